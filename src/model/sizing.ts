/**
 * The exporter sized from the spec's targets (`exporter.sizeFromTargets`): the probes a second its listed targets
 * ask for (each target once per its scrape interval), times the CPU a probe takes (docs/sizing.md, the bench's
 * figures with their margin), gives the cores the probes need; each replica gets a CPU request and limit of
 * REPLICA_CPU_MILLICORES, of which the autoscaler keeps it at its utilization target; the minimum is the replicas
 * that carry the probes there (at least 2, so that a replica can be rolled), the maximum twice that (a freshly
 * started replica spends up to twice its steady CPU a probe while V8 compiles it). Targets found in the cluster
 * (`jobs[].discover`) are not known at synth and not counted.
 */
import { parseDuration } from '@probekit/exporter';
import type { ScrapeJob, SpecModule } from './spec';

/** Milliseconds of CPU a probe takes, with the margin docs/sizing.md keeps: TLS handshakes, plain connections, HTTP and gRPC. */
export const PROBE_CPU_MS = { tls: 2.7, plain: 0.6, http: 1 } as const;

/** The CPU each replica requests and is limited to when sized from the targets. */
export const REPLICA_CPU_MILLICORES = 500;

/** Whether a probe of `target` with `module` makes a TLS handshake: https, or tcp/grpc with tls set. */
function handshakes(target: string, module: SpecModule): boolean {
  if (module.prober === 'http') return /^https:/i.test(target);
  const section = (module as unknown as Record<string, { tls?: boolean } | undefined>)[module.prober];
  return section?.tls === true;
}

/** Milliseconds of CPU one probe of `target` takes. */
export function probeCpuMs(target: string, module: SpecModule): number {
  if (handshakes(target, module)) return PROBE_CPU_MS.tls;
  return module.prober === 'http' || module.prober === 'grpc' ? PROBE_CPU_MS.http : PROBE_CPU_MS.plain;
}

export interface ExporterSize {
  /** Probes a second the listed targets ask for. */
  readonly probesPerSecond: number;
  /** Cores the probes take at the figures above. */
  readonly cores: number;
  readonly minReplicas: number;
  readonly maxReplicas: number;
  /** Each replica's CPU request and limit. */
  readonly cpu: string;
}

export function exporterSize(jobs: readonly ScrapeJob[], modules: Readonly<Record<string, SpecModule>>, cpuUtilization: number): ExporterSize {
  let probesPerSecond = 0;
  let cpuMsPerSecond = 0;
  for (const job of jobs) {
    for (const { target, module, scrapeInterval } of job.targets) {
      const perSecond = 1000 / (parseDuration(scrapeInterval) ?? parseDuration(job.scrapeInterval)!);
      probesPerSecond += perSecond;
      cpuMsPerSecond += perSecond * probeCpuMs(target, modules[module] ?? modules[job.module]!);
    }
  }
  // Rounded to a millionth of a core: a sum of thirds must not tip a replica over by a rounding error.
  const cores = Math.round(cpuMsPerSecond * 1000) / 1_000_000;
  const carried = (REPLICA_CPU_MILLICORES / 1000) * (cpuUtilization / 100);
  const minReplicas = Math.max(2, Math.ceil(cores / carried));
  return { probesPerSecond, cores, minReplicas, maxReplicas: 2 * minReplicas, cpu: `${REPLICA_CPU_MILLICORES}m` };
}
