/**
 * The plain HTTP scenario as the issue that asked for it measured it: nginx (Debian's nginx-light) as the
 * probed target, and wrk as the load on the exporter's /probe. wrk reports percentiles, not each request, so a
 * round here carries its own p50 and p99 instead of latencies.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../loopback/reference-exporter';
import { cpuMilliseconds, type Round } from './measure';

export const NGINX = '/usr/sbin/nginx';
export const WRK = '/usr/bin/wrk';

/** Why the scenario cannot run here, or undefined. */
export function nginxWrkUnavailable(): string | undefined {
  const missing = [NGINX, WRK].filter((binary) => !existsSync(binary));
  return missing.length === 0 ? undefined : `${missing.join(' and ')} missing: install nginx-light and wrk`;
}

export interface Nginx {
  readonly port: number;
  stop(): Promise<void>;
}

/** nginx on a loopback port, one worker, answering every request with a short text, its files in a temporary folder. */
export async function startNginx(): Promise<Nginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'probekit-nginx-'));
  for (const folder of ['logs', 'temp']) mkdirSync(join(prefix, folder));
  const port = await freePort();
  const temp = (name: string): string => `${name}_temp_path ${join(prefix, 'temp', name)};`;
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `daemon off;
master_process off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    location / { return 200 "hello from nginx\\n"; }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return { port, stop };
    if (Date.now() > until) {
      await stop();
      throw new Error(`nginx did not answer on port ${port}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function wrkMilliseconds(text: string, label: string): number {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
  if (!match) throw new Error(`wrk printed no ${label} latency:\n${text}`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

/** One round of wrk at `concurrency` connections against `url`; wrk counts answers other than 2xx and 3xx as failures. */
export async function wrkRound(url: string, pid: number, concurrency: number, seconds: number): Promise<Round> {
  const threads = Math.min(2, concurrency);
  const cpuBefore = cpuMilliseconds(pid);
  const started = performance.now();
  const text = await new Promise<string>((resolve, reject) =>
    execFile(WRK, ['-t', String(threads), '-c', String(concurrency), '-d', `${Math.max(1, Math.round(seconds))}s`, '--latency', url], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  const cpuMs = cpuMilliseconds(pid) - cpuBefore;
  const probes = Number(/^\s*(\d+) requests in/m.exec(text)?.[1] ?? NaN);
  const durationSeconds = (performance.now() - started) / 1000;
  const failures = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0) + Number(/Socket errors:.*timeout (\d+)/.exec(text)?.[1] ?? 0);
  return {
    seconds: Math.min(durationSeconds, Math.max(1, Math.round(seconds))),
    probes,
    failures,
    firstFailure: failures > 0 ? `wrk: ${failures} answers were errors or timed out` : undefined,
    cpuMs,
    p50Ms: wrkMilliseconds(text, '50%'),
    p99Ms: wrkMilliseconds(text, '99%'),
  };
}
