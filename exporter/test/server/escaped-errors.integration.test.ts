/**
 * The last line of defence: an error that escapes a probe (thrown from a callback, a rejection nobody
 * awaits) fails that probe and leaves the exporter serving; one outside any probe still ends the process.
 * Faults are planted in a child exporter's probe path (support/escaped-error-child.ts): no target can
 * make one escape, which is what the rest of the probe path is built for.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { FROM_SOURCE } from '../../loopback/from-source';

const CHILD = resolve(__dirname, '../support/escaped-error-child.ts');

it('fails the probe an error escaped from, keeps serving, and exits on an error outside any probe', async () => {
  const child = spawn(process.execPath, [...FROM_SOURCE, CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  const probes = stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { host: string; status: number; success: number; reason?: string; seconds: number });
  // Failed at once, for what escaped, not at the module's 5 s timeout (which would say "timed out", after 5 s).
  expect(probes.map(({ host, status, success, reason }) => [host.replace(/:\d+$/, ''), status, success, reason])).toEqual([
    ['throw.test', 200, 0, 'internal error'],
    ['reject.test', 200, 0, 'internal error'],
    ['127.0.0.1', 200, 1, undefined],
  ]);
  expect(Math.max(...probes.map((probe) => probe.seconds))).toBeLessThan(5);
  expect(stderr).toMatch(/An error escaped a probe; the probe fails and the exporter keeps running.*kind=uncaughtException.*target=http:\/\/throw\.test\//);
  expect(stderr).toMatch(/An error escaped a probe.*kind=unhandledRejection.*target=http:\/\/reject\.test\//);
  expect(stderr).toMatch(/Unexpected error outside any probe; exiting.*planted: thrown outside any probe/);
  expect(code).toBe(1);
}, 30_000);
