/**
 * Spec to the agent chart's values (the cluster form's agent configuration): the scrape jobs under
 * `<chartKey>.extraScrapeConfigs`, and the chart's exporter section switched on.
 */
import type { Spec } from '../model';
import { clusterExporterAddress, renderExporterScrapeJob, renderScrapeJobs, type ScrapeConfig } from './scrape-job';

export type AgentChartValues = Record<string, { extraScrapeConfigs?: ScrapeConfig[]; enabled?: boolean }>;

export function agentValuesFor(agent: Omit<Spec['agent'], 'scrapeJobs'>, scrapeConfigs: readonly ScrapeConfig[]): AgentChartValues {
  const values: AgentChartValues = { [agent.chartKey]: { extraScrapeConfigs: [...scrapeConfigs] } };
  if (agent.enableExporter) values[agent.exporterKey] = { enabled: true };
  return values;
}

/**
 * The spec's agent values: the probe jobs and the exporter's own job, unless `agent.scrapeJobs` is false (the
 * Prometheus Operator's Probe objects and ServiceMonitor scrape them instead).
 */
export function renderAgentValues(spec: Spec): AgentChartValues {
  return agentValuesFor(spec.agent, spec.agent.scrapeJobs ? [...renderScrapeJobs(spec), renderExporterScrapeJob(clusterExporterAddress(spec))] : []);
}
