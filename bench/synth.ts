/**
 * Synthesis at scale: 10,000 targets over 100 jobs, from spec to written manifests and agent values, as
 * `npm run synth` does it. Prints the median of a few runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ProbekitApp, ProbekitChart } from '../src/cdk8s';
import { parseSpec, type SpecInput } from '../src/model';

export function largeSpec(jobs: number, targetsPerJob: number): SpecInput {
  return {
    modules: { http_2xx: { preset: 'http_2xx' }, tcp_connect: { prober: 'tcp', timeout: '5s' } },
    jobs: Array.from({ length: jobs }, (_, job) => ({
      name: `job-${job}`,
      module: job % 2 === 0 ? 'http_2xx' : 'tcp_connect',
      targets: Array.from({ length: targetsPerJob }, (_, target) => (job % 2 === 0 ? `https://service-${target}.team-${job}.example.com/health` : `db-${target}.team-${job}.example.com:5432`)),
    })),
  };
}

export function timeSynth(input: SpecInput, runs = 5): { medianMs: number; runsMs: number[] } {
  const runsMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    const outdir = mkdtempSync(join(tmpdir(), 'probekit-bench-'));
    const start = performance.now();
    const app = new ProbekitApp({ outdir });
    new ProbekitChart(app, 'probekit', { spec: parseSpec(input, { env: {} }) });
    app.synth();
    runsMs.push(performance.now() - start);
    rmSync(outdir, { recursive: true, force: true });
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)], runsMs };
}

if (require.main === module) {
  const { medianMs, runsMs } = timeSynth(largeSpec(100, 100));
  console.log(`synth of 10,000 targets over 100 jobs: median ${medianMs.toFixed(0)} ms (runs: ${runsMs.map((ms) => ms.toFixed(0)).join(', ')} ms; budget 5000 ms)`);
}
