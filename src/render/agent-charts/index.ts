/**
 * The agent's values in the layout of the chart that runs it (`agent.chart`). Every format carries the same jobs
 * (the probe jobs and the exporter's own, with the https and password settings the exporter asks for), or, for
 * k8s-monitoring, the switches that make it scrape the Probe objects.
 */
import type { AgentChart } from '../../model';
import type { ExporterAccess } from '../exporter-web-config';
import type { ScrapeConfig } from '../scrape-job';
import { alloyChartValues } from './alloy';
import type { AgentChartValues } from './chart-values';
import { genericChartValues } from './generic';
import { k8sMonitoringChartValues } from './k8s-monitoring';
import { prometheusChartValues } from './prometheus';
import { victoriaMetricsAgentChartValues } from './victoria-metrics-agent';

export interface AgentChartInput {
  readonly agent: AgentChart;
  /** The probe jobs and the exporter's own job, with the exporter's access settings; none when Probe objects replace them. */
  readonly scrapeConfigs: readonly ScrapeConfig[];
  /** How the exporter is reached, for the Secrets the agent's pod mounts. */
  readonly access: ExporterAccess;
  /** Where the exporter and its Secrets are. */
  readonly exporterNamespace: string;
  /** The values file's name, for the helm command in its header. */
  readonly file: string;
  /** alloy: how many clustered replicas share the targets (`agent.shards`); the other charts get a file per shard. @default 1 */
  readonly shards?: number;
}

export function renderAgentChartValues(input: AgentChartInput): AgentChartValues<object> {
  const { agent, scrapeConfigs, access, exporterNamespace, file } = input;
  switch (agent.chart) {
    case 'generic':
      return genericChartValues(agent, scrapeConfigs, access, exporterNamespace, file);
    case 'prometheus':
      return prometheusChartValues(scrapeConfigs, access, exporterNamespace, file);
    case 'victoria-metrics-agent':
      return victoriaMetricsAgentChartValues(scrapeConfigs, access, exporterNamespace, file);
    case 'alloy':
      return alloyChartValues(scrapeConfigs, agent.remoteWrite, access, exporterNamespace, file, input.shards);
    case 'k8s-monitoring':
      return k8sMonitoringChartValues(file);
  }
}

export { agentValuesText, type AgentChartValues } from './chart-values';
export { alloyString, goDuration, renderAlloyConfig, type AlloyChartValues } from './alloy';
export type { GenericChartValues } from './generic';
export type { K8sMonitoringChartValues } from './k8s-monitoring';
export { scrapeConfigsText, type PrometheusChartValues } from './prometheus';
export type { VictoriaMetricsAgentChartValues } from './victoria-metrics-agent';
export { REMOTE_WRITE_SECRET_DIR } from './secret-files';
export { OBJECT_DATA_BYTES, RELEASE_GZIP_BYTES, valuesSize, valuesSizeVerdict, type ValuesSize } from './release-size';
