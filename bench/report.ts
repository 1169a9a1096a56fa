/**
 * `probekit report` at scale: 30 days of 100 targets probed every 30 s (8.64 million probe_success samples, and
 * probe_duration_seconds, five probe_http_duration_seconds phases and the certificate's expiry beside them) in
 * a TSDB made by promtool's OpenMetrics backfill, served by Debian's Prometheus; the report's wall time and the
 * peak resident memory of its process (GNU time), for JSON and HTML. The TSDB is kept in the temporary folder
 * and made again only when missing (--fresh makes it again). Needs a build (npm run build): it runs lib/.
 *
 *   npm run bench:report [-- --fresh] [-- --runs N] [-- --days 30] [-- --targets 100]
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { freePort } from './free-port';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** `--name N` of the command line, else `fallback`. */
function numberFlag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} ${process.argv[index + 1]}: give a whole number of 1 or more`);
  return value;
}

const TARGETS = numberFlag('targets', 100);
const JOBS = 4;
const DAYS = numberFlag('days', 30);
const INTERVAL = 30;
const PHASES = ['resolve', 'connect', 'tls', 'processing', 'transfer'] as const;
/** Ends on a day boundary, so the backfill's 2 h blocks and the window line up. */
const END = Date.UTC(2026, 10, 1) / 1000;
const START = END - DAYS * 86_400;
const BLOCK = 2 * 3600;
const TSDB = join(tmpdir(), `probekit-bench-report-tsdb-${TARGETS}x${DAYS}d-${INTERVAL}s-v1`);
const MAIN = resolve(__dirname, '../lib/cli/main.js');

/** A small deterministic generator, so every run backfills the same month. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

interface Target {
  readonly job: string;
  readonly instance: string;
  /** Failed probes: [start, end) in Unix seconds. */
  readonly outages: ReadonlyArray<readonly [number, number]>;
  readonly latency: number;
  readonly certificateExpiry: number;
}

function targets(): Target[] {
  const next = random(42);
  return Array.from({ length: TARGETS }, (_, index) => {
    const outages: Array<[number, number]> = [];
    const count = Math.floor(next() * 5);
    for (let outage = 0; outage < count; outage++) {
      const start = START + Math.floor(next() * (END - START - 7200));
      outages.push([start, start + 30 + Math.floor(next() * 3600)]);
    }
    return {
      job: `service-${index % JOBS}`,
      instance: `https://svc-${index}.example.com/health`,
      outages: outages.sort((a, b) => a[0] - b[0]),
      latency: 0.01 + next() * 0.2,
      certificateExpiry: END + Math.floor(5 + next() * 85) * 86_400,
    };
  });
}

/** One 2 h block's samples as OpenMetrics, each family's lines together, each series in time order. */
async function writeBlock(file: string, from: number, all: readonly Target[]): Promise<void> {
  const out = createWriteStream(file);
  const write = (text: string) => (out.write(text) ? undefined : once(out, 'drain'));
  const times: number[] = [];
  for (let time = from + 15; time < from + BLOCK; time += INTERVAL) times.push(time);
  const failed = (target: Target, time: number) => target.outages.some(([start, end]) => time >= start && time < end);
  const families: Array<[string, (target: Target) => Array<[string, (time: number) => number]>]> = [
    ['probe_success', (target) => [['', (time) => (failed(target, time) ? 0 : 1)]]],
    ['probe_duration_seconds', (target) => [['', (time) => target.latency * (1 + ((time / INTERVAL) % 7) / 10)]]],
    ['probe_http_duration_seconds', (target) => PHASES.map((phase, index) => [`,phase="${phase}"`, (time) => (target.latency / (index + 2)) * (1 + ((time / INTERVAL) % 5) / 10)])],
    ['probe_ssl_earliest_cert_expiry', (target) => [['', () => target.certificateExpiry]]],
  ];
  for (const [name, series] of families) {
    await write(`# TYPE ${name} gauge\n`);
    for (const target of all) {
      for (const [labels, value] of series(target)) {
        const prefix = `${name}{job="${target.job}",instance="${target.instance}"${labels}} `;
        await write(times.map((time) => `${prefix}${value(time)} ${time}\n`).join(''));
      }
    }
  }
  await write('# EOF\n');
  out.end();
  await once(out, 'finish');
}

/** The month as TSDB blocks: one OpenMetrics file per 2 h block, each backfilled by promtool. */
async function backfill(): Promise<void> {
  rmSync(TSDB, { recursive: true, force: true });
  mkdirSync(TSDB, { recursive: true });
  const all = targets();
  const file = join(tmpdir(), 'probekit-bench-report.om');
  const started = Date.now();
  for (let from = START; from < END; from += BLOCK) {
    await writeBlock(file, from, all);
    execFileSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', file, TSDB], { stdio: 'inherit' });
    process.stderr.write(`\rbackfilled ${(from + BLOCK - START) / BLOCK} of ${(END - START) / BLOCK} blocks`);
  }
  rmSync(file, { force: true });
  process.stderr.write(`\nbackfill: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

/**
 * Seconds of the window the TSDB's blocks hold, from each block's meta.json: a backfill that was stopped leaves
 * blocks for part of the window, which must not pass for the whole.
 */
function coveredSeconds(): number {
  const metas = readdirSync(TSDB)
    .filter((name) => /^[0-9A-Z]{26}$/.test(name) && existsSync(join(TSDB, name, 'meta.json')))
    .map((name) => JSON.parse(readFileSync(join(TSDB, name, 'meta.json'), 'utf8')) as { minTime: number; maxTime: number });
  return metas.reduce((sum, meta) => sum + Math.max(0, Math.min(meta.maxTime / 1000, END) - Math.max(meta.minTime / 1000, START)), 0);
}

async function startPrometheus(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const config = join(TSDB, '..', 'probekit-bench-report-prometheus.yml');
  writeFileSync(config, 'global: {}\n');
  const child = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${TSDB}`, '--storage.tsdb.retention.time=100y', `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (tries > 600) throw new Error('Prometheus did not become ready');
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Waits until Prometheus has compacted the backfilled blocks (they are kept compacted for the next run). */
async function settle(url: string): Promise<void> {
  let last = -1;
  for (let quiet = 0; quiet < 3;) {
    await new Promise((done) => setTimeout(done, 5_000));
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const loaded = Number(/^prometheus_tsdb_blocks_loaded (\d+)$/m.exec(metrics)?.[1] ?? -1);
    quiet = loaded === last ? quiet + 1 : 0;
    last = loaded;
  }
  process.stderr.write(`Prometheus holds ${last} blocks\n`);
}

/** One report by the built CLI under GNU time: wall seconds and peak resident KiB. */
function timedReport(url: string, format: string): { seconds: number; peakMiB: number; bytes: number } {
  const out = join(tmpdir(), `probekit-bench-report.${format === 'markdown' ? 'md' : format}`);
  const statsFile = join(tmpdir(), 'probekit-bench-report.time');
  execFileSync(
    '/usr/bin/time',
    ['-f', '%e %M', '-o', statsFile, process.execPath, MAIN, 'report', '--prometheus', url, '--window', `${DAYS}d`, '--to', String(END), '--format', format, '--out', out, '--timeout', '10m'],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const stats = readFileSync(statsFile, 'utf8');
  const [seconds, kib] = stats.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, peakMiB: kib! / 1024, bytes: statSync(out).size };
}

async function main(): Promise<void> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm run build first`);
  const runs = numberFlag('runs', 3);
  // A block's maxTime is exclusive and its samples 30 s apart: a whole window is covered to within a sample a block.
  if (process.argv.includes('--fresh') || !existsSync(TSDB) || coveredSeconds() < END - START - ((DAYS * 86_400) / BLOCK) * INTERVAL) await backfill();
  const prometheus = await startPrometheus();
  try {
    await settle(prometheus.url);
    for (const format of ['json', 'html']) {
      const results = Array.from({ length: runs }, () => timedReport(prometheus.url, format));
      const median = <T>(values: T[], key: (value: T) => number) => values.map(key).sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      console.log(
        `report ${format}, ${DAYS} days x ${TARGETS} targets x ${INTERVAL} s: median ${median(results, (r) => r.seconds).toFixed(2)} s, peak RSS ${median(results, (r) => r.peakMiB).toFixed(0)} MiB (runs: ${results.map((r) => `${r.seconds.toFixed(2)} s ${r.peakMiB.toFixed(0)} MiB`).join(', ')}; output ${(results[0]!.bytes / 1024).toFixed(0)} KiB)`,
      );
    }
  } finally {
    await prometheus.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
