#!/usr/bin/env node
/**
 * `probekit`: one dispatcher for every command. To add one, write `src/cli/<name>.ts` exporting a Command (usually
 * a commandGroup of subcommands) and add it to COMMANDS. The assistant's commands are `@probekit/assistant`'s,
 * loaded when they run (./delegated.ts).
 */
import { version } from '../../package.json';
import { closestName, ProblemsError } from '../model';
import { hostCommand } from './host';
import { CommandFailure, HelpRequest, processIo, UsageError, type CliIo, type Command } from './command';
import { delegatedCommand } from './delegated';
import { reportCommand } from './report';
import { synthCommand } from './synth';
import { testCommand } from './preflight';

const ASSISTANT_PACKAGE = '@probekit/assistant';

export const COMMANDS: Readonly<Record<string, Command>> = {
  synth: synthCommand,
  test: testCommand,
  host: hostCommand,
  report: reportCommand,
  'search-engine': delegatedCommand('search-engine', 'create the API key for the assistant, and check the integration settings', ASSISTANT_PACKAGE),
  assistant: delegatedCommand('assistant', "serve the assistant's search-engine skills over MCP, or run one", ASSISTANT_PACKAGE),
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return `usage: probekit <command> [<subcommand>] [flags]
       probekit <command> [<subcommand>] --help
       probekit --version

commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`)
  .join('\n')}

--help after a command, or after a subcommand (probekit host render --help), lists its flags with their
defaults, and its exit codes.

exit codes: 0 done; 1 failed (a spec, a search engine or a file refused, a probe of probekit test); 2 a mistake in the command line
`;
}

/** Each line of the error's message (one a problem) as `error: <line>`; returns the exit code. */
function printError(io: CliIo, error: Error, code: number): number {
  for (const line of error.message.split('\n')) io.stderr(`error: ${line}\n`);
  return code;
}

/** The command named `name`, or a UsageError naming the likely one. */
function commandNamed(name: string): Command {
  const command = COMMANDS[name];
  if (command !== undefined) return command;
  const suggestion = closestName(name, Object.keys(COMMANDS));
  throw new UsageError(`unknown command "${name}"; ${suggestion ? `did you mean "${suggestion}"? ` : ''}the commands are ${Object.keys(COMMANDS).join(', ')} (probekit --help)`);
}

/**
 * Runs one command line; returns the exit code: 0 done, 1 failed, 2 a mistake in the command line. Help asked
 * for goes to stdout with 0; help given because the command line says too little goes to stderr with 2.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      io.stderr(usage());
      return 2;
    }
    if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
      io.stdout(usage());
      return 0;
    }
    if (name === '--version') {
      io.stdout(`probekit ${version}\n`);
      return 0;
    }
    if (name === 'help') throw new HelpRequest(commandNamed(rest[0]!).usage);
    return await commandNamed(name).run(rest, io);
  } catch (error) {
    if (error instanceof HelpRequest) {
      io.stdout(error.usage);
      return 0;
    }
    if (error instanceof UsageError) return printError(io, error, 2);
    if (error instanceof CommandFailure || error instanceof ProblemsError) return printError(io, error, 1);
    throw error;
  }
}

/**
 * The exit status when the reader of stdout or stderr has gone (`probekit assistant list | head -1`): git, kubectl
 * and coreutils are killed by SIGPIPE there, which the shell reports as 128 + 13. Node ignores SIGPIPE, so the
 * write fails with EPIPE instead; the command then stops at once and quietly (nobody reads what it would say),
 * with the status those programs give, so that `set -o pipefail` treats it as they are treated.
 */
const READER_GONE_EXIT = 128 + 13;

/** Output that cannot be written ends the command: quietly when the reader has gone, else said on stderr (exit 1). */
function endWhenOutputFails(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(READER_GONE_EXIT);
    if (stream === process.stdout) process.stderr.write(`error: writing the output failed: ${error.message}\n`);
    process.exit(1);
  });
}

if (require.main === module) {
  endWhenOutputFails(process.stdout);
  endWhenOutputFails(process.stderr);
  const io = processIo();
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
