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
