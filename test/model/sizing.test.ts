/**
 * exporter.sizeFromTargets: the probes a second of the listed targets times the CPU a probe takes (docs/sizing.md)
 * give the autoscaler's minimum (the replicas of 500m that carry them at 80 %, at least 2) and maximum (twice),
 * and each replica's CPU; the README's sizing table is these rows.
 */
import { parseSpec, type SpecInput } from '../../src/model';
import { exporterSize, PROBE_CPU_MS } from '../../src/model/sizing';
import { problemsOf } from '../support/problems';

const targets = (count: number, write: (index: number) => string): string[] => Array.from({ length: count }, (_, index) => write(index));
const spec = (count: number, write: (index: number) => string, prober: 'http' | 'tcp', exporter: SpecInput['exporter'] = { sizeFromTargets: true }): SpecInput => ({
  exporter,
  modules: { m: { prober } },
  jobs: [{ name: 'j', module: 'm', scrapeInterval: '60s', targets: targets(count, write) }],
});
const https = (index: number) => `https://site-${index}.example.com`;
const http = (index: number) => `http://site-${index}.example.com`;
const tcp = (index: number) => `db-${index}.example.com:5432`;

describe('exporter.sizeFromTargets', () => {
  it.each([
    [1_000, 'https', 2, 4],
    [100_000, 'https', 12, 24],
    [100_000, 'http', 5, 10],
    [100_000, 'tcp', 3, 6],
  ] as const)('%i %s targets every 60 s: autoscaler from %i to %i replicas of 500m', (count, kind, min, max) => {
    const write = { https, http, tcp }[kind];
    const prober = kind === 'tcp' ? 'tcp' : 'http';
    const { exporter } = parseSpec(spec(count, write, prober));
    expect(exporter.autoscaling).toEqual({ minReplicas: min, maxReplicas: max, cpuUtilization: 80 });
    expect(exporter.resources).toEqual({ requests: { cpu: '500m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
    const cpuMs = write === https ? PROBE_CPU_MS.tls : prober === 'http' ? PROBE_CPU_MS.http : PROBE_CPU_MS.plain;
    expect(exporter.sizedFromTargets!.cores).toBeCloseTo(((count / 60) * cpuMs) / 1000, 5);
  });

  it('counts each target at its own interval, and a million HTTPS targets every 60 s as 45 cores: 113 to 226 replicas', () => {
    const job = (count: number, interval: string) => ({
      name: 'j',
      module: 'm',
      scrapeInterval: interval,
      scrapeTimeout: '10s',
      labels: {},
      targets: targets(count, https).map((target) => ({ target, module: 'm', labels: {}, scrapeInterval: interval })),
    });
    const modules = { m: { prober: 'http' } } as const;
    expect(exporterSize([job(1_000_000, '60s')], modules, 80)).toEqual({ probesPerSecond: expect.closeTo(16_666.67, 1), cores: 45, minReplicas: 113, maxReplicas: 226, cpu: '500m' });
    expect(exporterSize([job(600, '30s')], modules, 80).probesPerSecond).toBeCloseTo(20, 6);
  });

  it('is refused beside replicas, autoscaling or a CPU amount, which it would overrule', () => {
    expect(problemsOf(() => parseSpec(spec(1, https, 'http', { sizeFromTargets: true, replicas: 3, resources: { limits: { cpu: '1' } } })))).toEqual([
      "exporter.replicas: is set beside exporter.sizeFromTargets, which sets the replicas and each one's CPU from the targets; remove it, or remove sizeFromTargets",
      "exporter.resources.limits.cpu: is set beside exporter.sizeFromTargets, which sets the replicas and each one's CPU from the targets; remove it, or remove sizeFromTargets",
    ]);
  });
});
