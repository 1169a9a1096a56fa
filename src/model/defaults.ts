/**
 * The spec's defaults filled in, one way for every reader: parseSpec fills a spec's parts with these, and the
 * constructs fill their props with the same functions, so that a construct alone and the same part of a spec
 * make the same objects. The values themselves are DEFAULTS (./spec.ts).
 */
import { DEFAULTS, type DashboardInput, type DashboardSettings, type ExporterInput, type Spec } from './spec';

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
    resources: {
      requests: { ...DEFAULTS.exporter.resources.requests, ...exporter.resources?.requests },
      limits: { ...DEFAULTS.exporter.resources.limits, ...exporter.resources?.limits },
    },
    autoscaling: autoscaling && {
      minReplicas: autoscaling.minReplicas ?? replicas,
      maxReplicas: autoscaling.maxReplicas,
      cpuUtilization: autoscaling.cpuUtilization ?? DEFAULTS.exporter.autoscalingCpuUtilization,
    },
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
