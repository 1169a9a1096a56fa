/**
 * Values for Grafana's k8s-monitoring chart, version 2 (grafana/k8s-monitoring-helm, read at chart 2.0.31): its
 * `prometheusOperatorObjects` feature makes the `alloy-metrics` collector scrape the Prometheus Operator's objects,
 * so the jobs reach it as the Probe objects (and the exporter's own metrics as the ServiceMonitor) in the manifests.
 * The values switch on the feature, its Probes and ServiceMonitors, and the collector; the cluster's name and where
 * the metrics go (`cluster.name`, `destinations`) are the user's, and the chart refuses to install without them.
 * Probes and ServiceMonitors of other applications are picked up too, as the feature does by default.
 */
import { helmCommandNote, type AgentChartValues } from './chart-values';

export interface K8sMonitoringChartValues {
  readonly prometheusOperatorObjects: { readonly enabled: true; readonly probes: { readonly enabled: true }; readonly serviceMonitors: { readonly enabled: true } };
  readonly 'alloy-metrics': { readonly enabled: true };
}

export function k8sMonitoringChartValues(file: string): AgentChartValues<K8sMonitoringChartValues> {
  return {
    values: { prometheusOperatorObjects: { enabled: true, probes: { enabled: true }, serviceMonitors: { enabled: true } }, 'alloy-metrics': { enabled: true } },
    notes: [
      'Values for the grafana/k8s-monitoring chart, version 2: its Alloy scrapes the Probe and ServiceMonitor objects of the manifests (kubectl apply them).',
      'Your own values must give cluster.name and a metrics destination (destinations), which the chart requires.',
      "The Probe and ServiceMonitor kinds must exist in the cluster: the Prometheus Operator's CRDs, or prometheusOperatorObjects.crds.deploy: true.",
      helmCommandNote('k8s-monitoring', 'grafana/k8s-monitoring --version ^2', file),
    ],
  };
}
