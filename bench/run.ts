/**
 * npm run bench: our exporter against the reference blackbox_exporter (Debian 0.23.0), same config, same
 * local targets, same load, one after the other in one run, reported as ratios (ours / reference).
 * Bounded to well under two minutes. Not part of npm test: numbers depend on the machine and its load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { makeTlsFixtures } from '../test/support/tls-fixtures';
import { REFERENCE_EXPORTER, startExporter, type RunningExporter } from '../test/support/reference-exporter';

const SECONDS_PER_RUN = Number(process.env.BENCH_SECONDS ?? 6);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BUNDLE = resolve(__dirname, '../exporter/dist/probekit-exporter.js');

const CONFIG = `modules:
  http_2xx:
    prober: http
    timeout: 5s
    http:
      preferred_ip_protocol: ip4
      ip_protocol_fallback: false
      tls_config:
        insecure_skip_verify: true
`;

/** The targets run in their own process, so serving them does not compete with the load generator. */
const TARGET_SERVER = `
const http = require('node:http'), http2 = require('node:http2'), fs = require('node:fs');
const handler = (request, response) => response.end('hello from the bench target');
const plain = http.createServer(handler).listen(0, '127.0.0.1', () => {
  const secure = http2.createSecureServer({ cert: fs.readFileSync(process.argv[1]), key: fs.readFileSync(process.argv[2]), allowHTTP1: true }, handler)
    .listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ http: plain.address().port, https: secure.address().port }) + '\\n'));
});
`;

interface RunResult {
  readonly probesPerSecond: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly failures: number;
  readonly rssMiB: number;
  readonly peakRssMiB: number;
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? NaN;
}

async function load(exporter: RunningExporter, target: string): Promise<RunResult> {
  const url = `${exporter.baseUrl}/probe?module=http_2xx&target=${encodeURIComponent(target)}`;
  const probeOnce = async (): Promise<{ ms: number; ok: boolean }> => {
    const started = performance.now();
    const text = await (await fetch(url)).text();
    return { ms: performance.now() - started, ok: /^probe_success 1$/m.test(text) };
  };
  // Warm-up: JIT, connection set-up of the load generator.
  const warmUntil = Date.now() + 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < warmUntil) await probeOnce();
  }));
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const until = Date.now() + SECONDS_PER_RUN * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < until) {
      const { ms, ok } = await probeOnce();
      latencies.push(ms);
      if (!ok) failures += 1;
    }
  }));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const memory = memoryOf(exporter.pid);
  return { probesPerSecond: latencies.length / elapsed, p50: percentile(latencies, 0.5), p90: percentile(latencies, 0.9), p99: percentile(latencies, 0.99), failures, rssMiB: memory.rss, peakRssMiB: memory.peak };
}

function format(value: number, digits = 1): string {
  return value.toFixed(digits).padStart(9);
}

async function main(): Promise<void> {
  if (!existsSync(REFERENCE_EXPORTER)) throw new Error(`${REFERENCE_EXPORTER} is missing: install prometheus-blackbox-exporter`);
  const oursCommand = existsSync(BUNDLE) ? 'bundle' : 'source (tsx; run npm run build for the bundle)';
  const pki = makeTlsFixtures();
  const targets: ChildProcess = spawn(process.execPath, ['-e', TARGET_SERVER, pki.serverCertFile, pki.serverKeyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(targets.stdout!, 'data')) as [Buffer];
  const ports = JSON.parse(line.toString()) as { http: number; https: number };
  const scenarios: Array<[string, string]> = [
    ['HTTP/1.1', `http://127.0.0.1:${ports.http}/`],
    ['HTTP/2 over TLS', `https://127.0.0.1:${ports.https}/`],
  ];
  const results: Array<{ scenario: string; reference: RunResult; ours: RunResult }> = [];
  try {
    for (const [scenario, target] of scenarios) {
      // A fresh pair per scenario, run one after the other so they never compete for the CPU.
      const reference = await startExporter('reference', CONFIG);
      const ours = await startExporter('ours', CONFIG, existsSync(BUNDLE) ? { command: [process.execPath, BUNDLE] } : {});
      try {
        const referenceResult = await load(reference, target);
        const oursResult = await load(ours, target);
        results.push({ scenario, reference: referenceResult, ours: oursResult });
      } finally {
        await Promise.all([reference.stop(), ours.stop()]);
      }
    }
  } finally {
    targets.kill();
    pki.cleanup();
  }

  console.log(`probekit-exporter (${oursCommand}) vs blackbox_exporter 0.23.0: ${SECONDS_PER_RUN}s per run, ${CONCURRENCY} concurrent probes, targets on loopback`);
  console.log('scenario           metric              reference      ours   ours/ref');
  for (const { scenario, reference, ours } of results) {
    const rows: Array<[string, number, number, number]> = [
      ['probes/s', reference.probesPerSecond, ours.probesPerSecond, 1],
      ['latency p50 ms', reference.p50, ours.p50, 2],
      ['latency p90 ms', reference.p90, ours.p90, 2],
      ['latency p99 ms', reference.p99, ours.p99, 2],
      ['RSS MiB', reference.rssMiB, ours.rssMiB, 1],
      ['peak RSS MiB', reference.peakRssMiB, ours.peakRssMiB, 1],
      ['failed probes', reference.failures, ours.failures, 0],
    ];
    for (const [metric, r, o, digits] of rows) {
      console.log(`${scenario.padEnd(18)} ${metric.padEnd(16)} ${format(r, digits)} ${format(o, digits)} ${r === 0 ? '        -' : format(o / r, 2)}`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
