/**
 * npm run bench -- synth (or npm run bench:synth): synthesis at scale, and the exporter's /sd/<job>.
 *
 * - `probekit synth` as users run it (the built CLI, lib/cli/main.js, `npm run build` first) of JSON specs of
 *   100,000 targets in 100 jobs, 1,000,000 in one job and 1,000,000 in 100 jobs (half http, half tcp modules),
 *   with `agent.targets: http_sd` and the prometheus chart, each under GNU time: wall time and peak RSS.
 * - The targets of a 300,000-target spec (one job) served by our exporter (its bundle) from the target files
 *   synthesized for it, laid out as its Deployment mounts them: the time of GET /sd/job-0 as Prometheus asks
 *   (gzip), and as a client without gzip, and the exporter's resident memory after.
 *
 * Prints the figures and writes them to bench/results-synth.json. Not part of npm test: the numbers depend on the
 * machine and its load.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './free-port';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { App } from 'cdk8s';
import { ProbekitChart } from '../src/cdk8s';
import { parseSpec, type SpecInput } from '../src/model';

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'lib', 'cli', 'main.js');
/** The exporter as it ships: the bundle `npm run build` writes. */
const EXPORTER = join(ROOT, 'exporter', 'dist', 'probekit-exporter.js');

/** Our exporter's bundle with `flags`, once it answers /-/healthy; `stop` ends it. */
async function startExporter(configFile: string, flags: readonly string[]): Promise<{ baseUrl: string; log: () => string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EXPORTER, `--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null || tries > 600) {
      await stop();
      throw new Error(`the exporter did not become healthy:\n${stderr}`);
    }
    if (
      await fetch(`${baseUrl}/-/healthy`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { baseUrl, log: () => stderr, stop };
    await new Promise((done) => setTimeout(done, 100));
  }
}

export function largeSpec(jobs: number, targetsPerJob: number): SpecInput {
  return {
    modules: { http_2xx: { preset: 'http_2xx' }, tcp_connect: { prober: 'tcp', timeout: '5s' } },
    jobs: Array.from({ length: jobs }, (_, job) => ({
      name: `job-${job}`,
      module: job % 2 === 0 ? 'http_2xx' : 'tcp_connect',
      targets: Array.from({ length: targetsPerJob }, (_, target) => (job % 2 === 0 ? `https://service-${target}.team-${job}.example.com/health` : `db-${target}.team-${job}.example.com:5432`)),
    })),
    agent: { chart: 'prometheus', targets: 'http_sd' },
  };
}

interface SynthFigure {
  readonly targets: number;
  readonly jobs: number;
  readonly seconds: number;
  /** User and system CPU: on a loaded machine the wall time is several times this. */
  readonly cpuSeconds: number;
  readonly peakMiB: number;
}

/** `probekit synth --spec <json>` under GNU time: its wall time and peak resident memory. */
function timeCli(dir: string, jobs: number, targetsPerJob: number): SynthFigure {
  const spec = join(dir, `spec-${jobs}x${targetsPerJob}.json`);
  writeFileSync(spec, JSON.stringify(largeSpec(jobs, targetsPerJob)));
  const out = join(dir, 'out');
  rmSync(out, { recursive: true, force: true });
  const times = join(dir, 'time.txt');
  execFileSync('/usr/bin/time', ['-f', '%e %U %S %M', '-o', times, process.execPath, CLI, 'synth', '--spec', spec, '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  const [seconds, user, system, kilobytes] = readFileSync(times, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  rmSync(spec);
  return { targets: jobs * targetsPerJob, jobs, seconds: seconds!, cpuSeconds: Math.round((user! + system!) * 100) / 100, peakMiB: Math.round(kilobytes! / 1024) };
}

/** The exporter's config and target files of a synthesized spec, written into `dir` as its pod mounts them. */
function layOut(input: SpecInput, dir: string): { config: string; targetsDir: string } {
  const chart = new ProbekitChart(new App(), 'probekit', { spec: parseSpec(input) });
  const manifests = chart.toJson() as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects
  const targetsDir = join(dir, 'targets');
  for (const object of manifests.filter((each) => each.kind === 'ConfigMap' && each.binaryData)) {
    for (const [key, base64] of Object.entries(object.binaryData as Record<string, string>)) {
      const path = join(targetsDir, String(object.metadata.name).split('-').pop()!, key);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, Buffer.from(base64, 'base64'));
    }
  }
  const config = manifests.find((each) => each.kind === 'ConfigMap' && each.metadata.name === 'blackbox-exporter-config')!.data['blackbox.yml'] as string;
  return { config, targetsDir };
}

interface SdFigure {
  readonly targets: number;
  readonly gzipMs: number;
  readonly plainMs: number;
  readonly gzippedBytes: number;
  readonly residentMiB: number;
}

async function timeSd(dir: string, targets: number): Promise<SdFigure> {
  const { config, targetsDir } = layOut(largeSpec(1, targets), dir);
  const configFile = join(dir, 'blackbox.yml');
  writeFileSync(configFile, config);
  const exporter = await startExporter(configFile, [`--sd.targets-dir=${targetsDir}`]);
  try {
    const url = `${exporter.baseUrl}/sd/job-0`;
    // The exporter's answers are ready once the reload that read the files is done: wait for the job to be served.
    for (let tries = 0; (await fetch(url, { method: 'HEAD' })).status !== 200; tries++) {
      if (tries > 600) throw new Error(`/sd/job-0 was not served within 60 s:\n${exporter.log()}`);
      await new Promise((done) => setTimeout(done, 100));
    }
    const timed = async (encoding: string): Promise<{ ms: number; bytes: number; targets: number }> => {
      const start = performance.now();
      const response = await fetch(url, { headers: { 'accept-encoding': encoding } });
      const raw = Buffer.from(await response.arrayBuffer());
      const ms = performance.now() - start;
      const groups = JSON.parse(raw.toString()) as Array<{ targets: string[] }>;
      return { ms, bytes: Number(response.headers.get('content-length') ?? raw.length), targets: groups.reduce((sum, group) => sum + group.targets.length, 0) };
    };
    const gzip = await timed('gzip');
    const plain = await timed('identity');
    if (gzip.targets !== targets || plain.targets !== targets) throw new Error(`/sd/job-0 served ${gzip.targets} and ${plain.targets} targets, not ${targets}`);
    const metrics = await (await fetch(`${exporter.baseUrl}/metrics`)).text();
    const resident = Number(/^process_resident_memory_bytes (\S+)$/m.exec(metrics)?.[1]);
    return { targets, gzipMs: Math.round(gzip.ms), plainMs: Math.round(plain.ms), gzippedBytes: gzip.bytes, residentMiB: Math.round(resident / 1024 / 1024) };
  } finally {
    await exporter.stop();
  }
}

export async function main(): Promise<void> {
  for (const built of [CLI, EXPORTER]) if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first (the bench times what ships)`);
  const dir = mkdtempSync(join(tmpdir(), 'probekit-bench-synth-'));
  try {
    const synth = [timeCli(dir, 100, 1_000), timeCli(dir, 1, 1_000_000), timeCli(dir, 100, 10_000)];
    for (const { targets, jobs, seconds, cpuSeconds, peakMiB } of synth) {
      console.log(`probekit synth, ${targets.toLocaleString('en')} targets in ${jobs} job(s), http_sd: ${seconds} s (${cpuSeconds} s of CPU), ${peakMiB} MiB peak (budget 30 s, 1.5 GB)`);
    }
    const sd = await timeSd(join(dir, 'sd'), 300_000);
    console.log(
      `/sd/job-0, ${sd.targets.toLocaleString('en')} targets: ${sd.gzipMs} ms gzipped (${sd.gzippedBytes} bytes), ${sd.plainMs} ms unzipped; exporter resident ${sd.residentMiB} MiB (budget 2 s)`,
    );
    const results = { date: new Date().toISOString(), loadAverage: loadavg(), node: process.version, synth, sd };
    writeFileSync(join(ROOT, 'bench', 'results-synth.json'), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
