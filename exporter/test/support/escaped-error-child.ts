/**
 * An exporter in a process of its own, with faults planted in its probe path, for the test of the last line
 * of defence (src/server/escaped-errors.ts): the name lookup of `throw.test` throws from a timer, that of
 * `reject.test` leaves a rejected promise nobody awaits, and neither ever answers. Prints one JSON line per
 * probe it makes of itself, then throws outside any probe, which must end it.
 * Usage: tsx escaped-error-child.ts
 */
import { promises as dns } from 'node:dns';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';

const PLANTED: Record<string, () => void> = {
  'throw.test': () =>
    void setTimeout(() => {
      throw new Error('planted: thrown from a timer');
    }, 10),
  'reject.test': () => void Promise.reject(new Error('planted: rejected, never awaited')),
};

async function main(): Promise<void> {
  const lookup = dns.lookup;
  // Only the planted names are intercepted; the probes of a working target use an IP literal.
  dns.lookup = ((host: string, options: unknown) => {
    const plant = PLANTED[host];
    if (plant === undefined) return (lookup as (host: string, options: unknown) => unknown)(host, options);
    plant();
    return new Promise(() => undefined);
  }) as typeof dns.lookup;

  const target = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1');
  await new Promise((resolve) => target.once('listening', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'probekit-escaped-'));
  const configFile = join(dir, 'blackbox.yml');
  writeFileSync(configFile, 'modules:\n  http:\n    prober: http\n    timeout: 5s\n    http:\n      preferred_ip_protocol: ip4\n      ip_protocol_fallback: false\n');
  const exporter = new Exporter({ configFile, timeoutOffsetSeconds: 0.5, historyLimit: 10, log: new Logger('info') });
  await exporter.reload();
  const base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;

  // Each probe as the exporter reports it: its success, its failure reason and the duration it measured.
  const probeOf = async (host: string): Promise<void> => {
    const response = await fetch(`${base}/probe?module=http&target=${encodeURIComponent(`http://${host}/`)}`);
    const samples = parseMetrics(await response.text());
    const reason = samples.find((sample) => sample.name === 'probe_failure_reason')?.labels.reason;
    const seconds = metricValue(samples, 'probe_duration_seconds');
    process.stdout.write(`${JSON.stringify({ host, status: response.status, success: metricValue(samples, 'probe_success'), reason, seconds })}\n`);
  };
  for (const host of ['throw.test', 'reject.test', `127.0.0.1:${(target.address() as AddressInfo).port}`]) await probeOf(host);
  setTimeout(() => {
    throw new Error('planted: thrown outside any probe');
  }, 10);
}

void main();
