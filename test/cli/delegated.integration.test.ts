/**
 * Commands another package provides (src/cli/delegated.ts), with the package's loader injected: installed, the
 * group of its subcommands runs; not installed, one line says how to install it, exit 1, or 0 with it on stdout when
 * help is asked for. The real thing, `probekit assistant` in an app without @probekit/assistant and with it, is
 * test/package/consumer.integration.test.ts.
 */
import { CommandFailure, HelpRequest, type CliIo, type Subcommand } from '../../src/cli/command';
import { delegatedCommand, installedCommands, type CommandsLoader } from '../../src/cli/delegated';
import { freePort } from '../../exporter/loopback/reference-exporter';
import { runCli } from '../support/cli';

const INSTALL_LINE = 'probekit tools comes with the @example/tools package, which is not installed here: npm install @example/tools';

function captured(): CliIo & { output: { stdout: string; stderr: string } } {
  const output = { stdout: '', stderr: '' };
  return {
    output,
    stdout: (text) => void (output.stdout += text),
    stderr: (text) => void (output.stderr += text),
    env: {},
    readFile: () => '',
    cwd: process.cwd(),
  };
}

const tools = (load: CommandsLoader) => delegatedCommand('tools', 'do things with tools', '@example/tools', load);

const echo: Subcommand = {
  usage: 'probekit tools echo WORD',
  async run(args, io) {
    io.stdout(`${args.join(' ')}\n`);
    return 0;
  },
};
const installed: CommandsLoader = () => ({ SUBCOMMANDS: { tools: { echo } } });
const missing: CommandsLoader = () => undefined;

describe('installed', () => {
  it('runs the subcommand the package provides', async () => {
    const io = captured();
    await expect(tools(installed).run(['echo', 'hello'], io)).resolves.toBe(0);
    expect(io.output).toEqual({ stdout: 'hello\n', stderr: '' });
  });

  it("is a group of the package's subcommands: usage, help and a mistyped subcommand as every group's", async () => {
    const command = tools(installed);
    const usage = "usage:\n  probekit tools echo WORD\n\nprobekit tools <command> --help lists a command's flags, their defaults and its exit codes\n";
    expect(command.usage).toBe(usage);
    await expect(command.run(['--help'], captured())).rejects.toEqual(new HelpRequest(usage));
    await expect(command.run(['ecko'], captured())).rejects.toThrow('unknown tools command "ecko"; did you mean "echo"? the commands are echo (probekit tools --help)');
  });

  it('a package without this command is a failure naming the version to install', async () => {
    const failure = tools(() => ({ SUBCOMMANDS: {} })).run(['echo'], captured());
    await expect(failure).rejects.toBeInstanceOf(CommandFailure);
    await expect(failure).rejects.toThrow(/^the installed @example\/tools has no tools commands; install the one of this probekit's version: npm install @example\/tools@\d+\.\d+\.\d+$/);
  });
});

describe('not installed', () => {
  it.each([[[]], [['echo', 'hello']], [['ecko']]])('probekit tools %j is a failure (exit 1) of one line saying how to install it', async (args) => {
    const failure = tools(missing).run(args, captured());
    await expect(failure).rejects.toBeInstanceOf(CommandFailure);
    await expect(failure).rejects.toThrow(INSTALL_LINE);
  });

  it.each([[['--help']], [['-h']], [['echo', '--help']]])('probekit tools %j is help (exit 0): that line', async (args) => {
    await expect(tools(missing).run(args, captured())).rejects.toEqual(new HelpRequest(`${INSTALL_LINE}\n`));
  });

  it('its usage, for probekit help tools, is that line; its summary is still there for probekit --help', () => {
    expect(tools(missing).usage).toBe(`${INSTALL_LINE}\n`);
    expect(tools(missing).summary).toBe('do things with tools');
  });
});

describe('installedCommands', () => {
  it('finds @probekit/assistant/cli in this repository, with the assistant and search-engine subcommands', () => {
    expect(Object.keys(installedCommands('@probekit/assistant')()?.SUBCOMMANDS ?? {})).toEqual(['assistant', 'search-engine']);
  });

  it('answers undefined for a package that is not installed', () => {
    expect(installedCommands('@probekit/no-such-package')()).toBeUndefined();
  });
});

it('the dispatcher prints a CommandFailure as error: lines and exits 1 (a search engine that refuses, through the assistant)', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const refused = await runCli(['search-engine', 'create-key', '--url', closed, '--username', 'elastic', '--password-env', 'P', '--name', 'k'], { P: 'password' });
  expect(refused).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(new RegExp(`^error: [^\\n]*connection to ${closed} refused[^\\n]*\\n$`)) });
});
