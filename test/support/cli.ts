/** Runs `probekit` in-process with a captured CliIo: what a user would see, without a build or a child process. */
import { readFileSync } from 'node:fs';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCli(argv: readonly string[], env: Record<string, string> = {}, stopped?: Promise<void>, cwd = process.cwd()): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    readFile: (path) => readFileSync(path, 'utf8'),
    cwd,
    ...(stopped ? { stopped } : {}),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/**
 * The flag table of a command's `--help`, as flag → the note in brackets at the end of its line (`default: dist`,
 * `required`, `not with --ca-file; default: ...`), or null for a line without one: `--out` of `  -o, --out DIR  ...`.
 */
export function helpNotes(help: string): Record<string, string | null> {
  const rows = help.split('\n').flatMap((line) => {
    const row = /^ {2}(?:-[a-zA-Z], )?(--[a-z][a-z-]*)(?: \S+)? {2,}(\S.*)$/.exec(line);
    return row === null ? [] : [[row[1]!, /\(([^()]*)\)$/.exec(row[2]!)?.[1] ?? null] as const];
  });
  return Object.fromEntries(rows);
}
