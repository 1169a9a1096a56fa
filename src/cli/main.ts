#!/usr/bin/env node
/**
 * `probekit`: one dispatcher for every subcommand. To add one, write `src/cli/<name>.ts` exporting a Command and
 * add it to COMMANDS.
 */
import { ProblemsError } from '../model';
import { SearchEngineError } from '../search/connection';
import { SkillInputError } from '../search/skill';
import { assistantCommand } from './assistant';
import { hostCommand } from './host';
import { processIo, UsageError, type CliIo, type Command } from './command';
import { searchEngineCommand } from './search-engine';

export const COMMANDS: Readonly<Record<string, Command>> = {
  'search-engine': searchEngineCommand,
  assistant: assistantCommand,
  host: hostCommand,
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return `usage: probekit <command> [options]\n\ncommands:\n${Object.entries(COMMANDS)
    .map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`)
    .join('\n')}\n`;
}

/** Each line of the error's message (one a problem) as `error: <line>`; returns the exit code. */
function printError(io: CliIo, error: Error, code: number): number {
  for (const line of error.message.split('\n')) io.stderr(`error: ${line}\n`);
  return code;
}

/** Runs one command line; returns the exit code. Expected failures print one line: 2 for usage, 1 otherwise. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === 'help') {
    io.stderr(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    io.stderr(`error: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof SkillInputError) return printError(io, error, 2);
    if (error instanceof SearchEngineError || error instanceof ProblemsError) return printError(io, error, 1);
    throw error;
  }
}

if (require.main === module) {
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
