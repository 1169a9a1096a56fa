/**
 * `probekit` as users meet it: help for every command and subcommand, the version, the exit codes docs/cli.md
 * documents (0 done, 1 failed, 2 a mistake in the command line), and mistakes answered with what was meant. As a
 * program, with the reader of its output gone: main.integration.test.ts.
 */
import { version } from '../../package.json';
import { COMMANDS } from '../../src/cli/main';
import { runCli } from '../support/cli';

/** Every command line the commands' usage lists (`['host', 'render']`, ...), read from the usage itself. */
const SUBCOMMANDS: string[][] = Object.values(COMMANDS).flatMap((command) =>
  command.usage
    .split('\n')
    .filter((line) => line.startsWith('  probekit '))
    .map((line) => line.trim().split(' ').slice(1, 3)),
);

describe('help', () => {
  it('probekit, --help, -h and help list the commands on stdout and exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const result = await runCli(args);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toContain('search-engine  create the API key for the assistant, and check the integration settings');
      expect(result.stdout).toContain('exit codes: 0 done; 1 failed (a spec, a search engine or a file refused, a probe of probekit test); 2 a mistake in the command line');
    }
  });

  it('probekit alone shows the same usage, on stderr, and exits 2', async () => {
    const [alone, help] = [await runCli([]), await runCli(['--help'])];
    expect(alone).toEqual({ code: 2, stdout: '', stderr: help.stdout });
  });

  it('lists the subcommands it knows of', () => {
    expect(SUBCOMMANDS).toEqual([
      ['host', 'render'],
      ['host', 'remove-jobs'],
      ['search-engine', 'create-key'],
      ['search-engine', 'check'],
      ['assistant', 'serve'],
      ['assistant', 'run'],
      ['assistant', 'list'],
    ]);
  });

  it.each(Object.keys(COMMANDS))('probekit %s --help, -h and probekit help %s print its usage on stdout and exit 0', async (name) => {
    for (const args of [
      [name, '--help'],
      [name, '-h'],
      ['help', name],
    ]) {
      expect(await runCli(args)).toEqual({ code: 0, stdout: COMMANDS[name]!.usage, stderr: '' });
    }
  });

  it.each(Object.keys(COMMANDS).filter((name) => SUBCOMMANDS.some(([group]) => group === name)))('probekit %s alone prints its subcommands on stderr and exits 2', async (name) => {
    expect(await runCli([name])).toEqual({ code: 2, stdout: '', stderr: COMMANDS[name]!.usage });
  });

  it.each(SUBCOMMANDS)('probekit %s %s --help and -h print its usage line on stdout and exit 0, whatever else is given', async (name, sub) => {
    const line = COMMANDS[name]!.usage.split('\n')
      .find((candidate) => candidate.startsWith(`  probekit ${name} ${sub} `))!
      .trim();
    for (const args of [['--help'], ['-h'], ['--url', 'https://127.0.0.1:1', '-h'], ['--no-such-flag', '--help']]) {
      const result = await runCli([name!, sub!, ...args]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.startsWith(`usage: ${line}\n`)).toBe(true);
    }
  });
});

/** The flags a usage line names: `--spec` of `--spec FILE`, `--job` of `[--job NAME]...`, both of `(--a VAR | --b FILE)`. */
function flagsOf(line: string): string[] {
  return [...line.matchAll(/(?:^|[\s[(])(--[a-z][a-z-]*)/g)].map((match) => match[1]!);
}

describe.each([['synth', []], ['test', []], ...SUBCOMMANDS.map(([name, sub]) => [name, [sub]])] as Array<[string, string[]]>)('probekit %s %j --help', (name, sub) => {
  it('lists each flag of the usage line on a line of its own, with what it gives, and -h', async () => {
    const { code, stdout } = await runCli([name, ...sub, '--help']);
    expect(code).toBe(0);
    const [usage, ...rest] = stdout.split('\n');
    const flags = flagsOf(usage!);
    expect(flags.length).toBeGreaterThan(0);
    for (const flag of [...flags, '--help']) expect(rest.find((line) => new RegExp(`^ {2}(-[a-z], )?${flag}( [A-Z]+)? +\\S`).test(line))).toBeDefined();
    expect(stdout).toMatch(/\nexit codes: 0 /);
  });
});

describe('a flag given a default says it in --help', () => {
  it.each([
    [['synth'], '--out DIR', 'dist'],
    [['test'], '--concurrency N', '16'],
    [['test'], '--output FORMAT', 'table'],
    [['host', 'render'], '--vendor NAME', 'probekit'],
    [['host', 'render'], '--out DIR', 'host'],
    [['host', 'remove-jobs'], '--from DIR', 'the --out folder'],
  ])('%j %s: %s', async (args, flag, fallback) => {
    const { stdout } = await runCli([...args, '--help']);
    expect(stdout.split('\n').find((line) => line.includes(`${flag} `))).toContain(`(default: ${fallback})`);
  });
});

it('--version prints the package version', async () => {
  expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `probekit ${version}\n`, stderr: '' });
});

describe('mistakes: exit 2, one line naming what was meant', () => {
  it.each([
    [['serch-engine'], 'error: unknown command "serch-engine"; did you mean "search-engine"? the commands are synth, test, host, report, search-engine, assistant (probekit --help)'],
    [['deploy'], 'error: unknown command "deploy"; the commands are synth, test, host, report, search-engine, assistant (probekit --help)'],
    [['help', 'hots'], 'error: unknown command "hots"; did you mean "host"? the commands are synth, test, host, report, search-engine, assistant (probekit --help)'],
    [['host', 'rendr'], 'error: unknown host command "rendr"; did you mean "render"? the commands are render, remove-jobs (probekit host --help)'],
    [['assistant', 'lst'], 'error: unknown assistant command "lst"; did you mean "list"? the commands are serve, run, list (probekit assistant --help)'],
    [['search-engine', 'create-key', '--password', 'x'], 'error: --password: unknown flag; did you mean --password-env or --password-file?'],
    [['search-engine', 'check', '--api-token', 'T'], 'error: --api-token: unknown flag; did you mean --api-token-env or --api-token-file?'],
    [['search-engine', 'check', '--ca-fil', 'x'], 'error: --ca-fil: unknown flag; did you mean --ca-file?'],
    [['host', 'render', '--zzz'], 'error: --zzz: unknown flag; see probekit host render --help'],
    [['host', 'render', '--spec'], 'error: --spec: needs a value (--spec VALUE)'],
    [['host', 'render', '--spec', '--out', 'x'], 'error: --spec: needs a value, and the next argument starts with -; write --spec=VALUE if the value does'],
    [['host', 'render', 'spec.yaml'], 'error: unexpected argument "spec.yaml"; see probekit host render --help'],
    [['host', 'render'], 'error: --spec is required: the spec to render the files from'],
    [['test'], 'error: --spec is required (or the PROBEKIT_SPEC environment variable): the spec whose targets are probed'],
    [['host', 'render', '--spec', 's.yaml', '--vendor', 'Acme Corp'], 'error: --vendor Acme Corp: not a directory name; use lower case letters, digits, . _ -'],
    [['assistant', 'run', 'count_logs', '--url', 'localhost:9200', '--api-token-env', 'T'], 'error: --url localhost:9200: not a URL; write https://localhost:9200'],
    [['assistant', 'serve', '--http', 'eighty', '--url', 'https://127.0.0.1:1', '--api-token-env', 'T'], 'error: --http eighty: not a port number; give 0 to 65535 (0 picks a free one)'],
    [
      ['assistant', 'serve', '--http', '0', '--http-token-env', 'UNSET', '--url', 'https://127.0.0.1:1', '--api-token-env', 'T'],
      'error: --http-token-env: environment variable UNSET is not set or empty; export it with the bearer token MCP clients must send',
    ],
  ])('%j', async (args, line) => {
    expect(await runCli(args, { T: 'token' })).toEqual({ code: 2, stdout: '', stderr: `${line}\n` });
  });

  it('a URL from the environment is named by its variable', async () => {
    expect(await runCli(['assistant', 'run', 'count_logs', '--api-token-env', 'T'], { T: 'token', PROBEKIT_SEARCH_ENGINE_URL: '127.0.0.1:19201' })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: PROBEKIT_SEARCH_ENGINE_URL=127.0.0.1:19201: not a URL; write https://127.0.0.1:19201\n',
    });
  });
});
