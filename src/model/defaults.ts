/**
 * The spec's defaults filled in, one way for every reader: parseSpec fills a spec's parts with these, and the
 * constructs fill their props with the same functions, so that a construct alone and the same part of a spec
 * make the same objects. The values themselves are DEFAULTS (./spec.ts).
 */
import { DEFAULTS, type DashboardInput, type DashboardSettings, type ExporterInput, type Quantity, type Spec } from './spec';

const CPU_QUANTITY = /^([0-9]+(?:\.[0-9]+)?)(m?)$/;

/**
 * The probe threads the exporter runs under the CPU limit `cpu`, as its --probe.workers=auto (the default)
 * reads the cgroup quota that limit sets: the CPUs rounded up, at least 1; 1 runs probes in the serving thread.
 * Undefined when there is no limit, or it is not a CPU amount: the node's CPUs decide, unknown here.
 */
export function probeWorkersUnder(cpu: Quantity | undefined): number | undefined {
  const match = typeof cpu === 'number' ? [String(cpu), String(cpu), ''] : cpu === undefined ? null : CPU_QUANTITY.exec(cpu);
  if (!match) return undefined;
  const cores = Number(match[1]) / (match[2] === 'm' ? 1000 : 1);
  return Number.isFinite(cores) && cores > 0 ? Math.max(1, Math.ceil(cores)) : undefined;
}

/**
 * The default memory request and limit under the CPU limit `cpu`: a pool of N probe workers holds N threads'
 * heaps beside the serving thread's, each measured (docs/sizing.md), so each adds its figure to the one-thread
 * defaults. An amount the spec sets is kept as written.
 */
function memoryDefaults(cpu: Quantity | undefined): { request: Quantity; limit: Quantity } {
  const { requests, limits, perWorkerMiB } = DEFAULTS.exporter.resources;
  const workers = probeWorkersUnder(cpu) ?? 1;
  if (workers === 1) return { request: requests.memory, limit: limits.memory };
  const mebibytes = (quantity: string): number => Number(/^(\d+)Mi$/.exec(quantity)![1]);
  return { request: `${mebibytes(requests.memory) + workers * perWorkerMiB.idle}Mi`, limit: `${mebibytes(limits.memory) + workers * perWorkerMiB.peak}Mi` };
}

/** The exporter with every default filled in; the external URL without a trailing slash. */
export function exporterSettings(exporter: ExporterInput = {}): Spec['exporter'] {
  const replicas = exporter.replicas ?? DEFAULTS.exporter.replicas;
  const { networkPolicy, tls, basicAuth, allowedTargets, autoscaling } = exporter;
  return {
    image: exporter.image ?? DEFAULTS.exporter.image,
    replicas,
    serviceName: exporter.serviceName ?? DEFAULTS.exporter.serviceName,
    externalUrl: (exporter.externalUrl ?? DEFAULTS.exporterExternalUrl).replace(/\/+$/, ''),
    ...(networkPolicy === undefined ? {} : { networkPolicy }),
    ...(tls === undefined ? {} : { tls }),
    ...(basicAuth === undefined ? {} : { basicAuth }),
    ...(allowedTargets === undefined ? {} : { allowedTargets: { ...allowedTargets, denySelfAndMetadata: allowedTargets.denySelfAndMetadata ?? false } }),
    podDisruptionBudget: exporter.podDisruptionBudget ?? DEFAULTS.exporter.podDisruptionBudget,
    resources: exporterResources(exporter.resources),
    autoscaling: autoscaling && {
      minReplicas: autoscaling.minReplicas ?? replicas,
      maxReplicas: autoscaling.maxReplicas,
      cpuUtilization: autoscaling.cpuUtilization ?? DEFAULTS.exporter.autoscalingCpuUtilization,
    },
  };
}

/** Requests and limits with the defaults filled in, the memory ones following the CPU limit (memoryDefaults). */
function exporterResources(resources: ExporterInput['resources']): Spec['exporter']['resources'] {
  const { requests, limits } = DEFAULTS.exporter.resources;
  const cpuLimit = resources?.limits?.cpu ?? limits.cpu;
  const memory = memoryDefaults(cpuLimit);
  return {
    requests: { cpu: requests.cpu, memory: memory.request, ...resources?.requests },
    limits: { cpu: limits.cpu, memory: memory.limit, ...resources?.limits },
  };
}

/** The dashboard with every default filled in. */
export function dashboardSettings(dashboard: DashboardInput = {}): DashboardSettings {
  return {
    enabled: dashboard.enabled ?? DEFAULTS.dashboard.enabled,
    title: dashboard.title ?? DEFAULTS.dashboard.title,
    uid: dashboard.uid ?? DEFAULTS.dashboard.uid,
    labels: dashboard.labels ?? DEFAULTS.dashboard.labels,
  };
}
