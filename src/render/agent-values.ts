/**
 * The agent chart's values (the cluster form's agent configuration): the scrape jobs under
 * `<chartKey>.extraScrapeConfigs`, and the chart's exporter section switched on. The AgentValues construct is the
 * one caller: it renders the jobs with the exporter's address and access settings.
 */
import type { Spec } from '../model';
import type { ScrapeConfig } from './scrape-job';

export type AgentChartValues = Record<string, { extraScrapeConfigs?: ScrapeConfig[]; enabled?: boolean }>;

export function agentValuesFor(agent: Omit<Spec['agent'], 'scrapeJobs'>, scrapeConfigs: readonly ScrapeConfig[]): AgentChartValues {
  const values: AgentChartValues = { [agent.chartKey]: { extraScrapeConfigs: [...scrapeConfigs] } };
  if (agent.enableExporter) values[agent.exporterKey] = { enabled: true };
  return values;
}
