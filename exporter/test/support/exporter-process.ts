/** Our exporter as a child process started from source, with its stderr kept, for tests of its command line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { FROM_SOURCE } from '../../loopback/from-source';
import { OUR_EXPORTER_MAIN, withProbeWorkersPinned } from '../../loopback/reference-exporter';

export interface StartedExporter {
  readonly child: ChildProcess;
  stderr(): string;
}

export interface StartOptions {
  /** A descriptor the child gets as its fd 3 (a listening socket, as systemd passes one). */
  readonly fd?: number;
  /** Sets LISTEN_PID to the child's own pid and LISTEN_FDS=1, as systemd does: a shell sets them to $$, then execs node. */
  readonly asSystemdService?: boolean;
}

export function startExporter(args: readonly string[], options: StartOptions = {}): StartedExporter {
  let stderr = '';
  const node = [...FROM_SOURCE, OUR_EXPORTER_MAIN, ...withProbeWorkersPinned(args)];
  const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'ignore', 'pipe'];
  if (options.fd !== undefined) stdio.push(options.fd);
  const child = options.asSystemdService ? spawn('/bin/sh', ['-c', 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"', process.execPath, ...node], { stdio }) : spawn(process.execPath, node, { stdio });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

export async function stopExporter({ child }: StartedExporter): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** Polls `check` every 100 ms for up to 15 s; a check that throws counts as not yet. */
export async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 150; tries += 1) {
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
