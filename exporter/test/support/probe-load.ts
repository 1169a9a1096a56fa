/**
 * Many /probe requests against an exporter run as a process, and what the process holds meanwhile: its
 * resident memory and open descriptors, read from /proc. For the resource tests (and for measuring the
 * reference exporter the same way by hand).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, get, request } from 'node:http';

/** Resident memory of process `pid`, in MB (VmRSS). */
export function residentMegabytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  if (line === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** Open descriptors of process `pid`. */
export function descriptorsOf(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * Sends `total` GET requests to `baseUrl` + each of `paths` in turn, `concurrency` at a time, over connections
 * that are closed at the end (so that they do not count among the exporter's descriptors). Resolves with how
 * many answers had each status.
 */
export async function sendProbes(baseUrl: string, paths: readonly string[], total: number, concurrency: number): Promise<Map<number, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses = new Map<number, number>();
  const url = new URL(baseUrl);
  let next = 0;
  const one = (path: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const outgoing = request({ agent, host: url.hostname, port: url.port, path }, (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', reject);
      });
      outgoing.once('error', reject);
      outgoing.end();
    });
  const worker = async (): Promise<void> => {
    while (next < total) {
      const path = paths[next % paths.length];
      next += 1;
      const status = await one(path);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return statuses;
}

/** The body of a GET of `url` on a connection of its own, closed after (fetch would keep one open in the exporter). */
export function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.once('end', () => resolve(body));
      response.once('error', reject);
    }).once('error', reject);
  });
}
