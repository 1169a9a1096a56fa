/**
 * Spec to the agent chart's values (the cluster form's agent configuration): the scrape jobs under
 * `<chartKey>.extraScrapeConfigs`, and the chart's exporter section switched on.
 */
import type { Spec } from '../model';
import { renderScrapeJobs, type ScrapeConfig } from './scrape-job';

export type AgentChartValues = Record<string, { extraScrapeConfigs?: ScrapeConfig[]; enabled?: boolean }>;

export function agentValuesFor(agent: Spec['agent'], scrapeConfigs: readonly ScrapeConfig[]): AgentChartValues {
  const values: AgentChartValues = { [agent.chartKey]: { extraScrapeConfigs: [...scrapeConfigs] } };
  if (agent.enableExporter) values[agent.exporterKey] = { enabled: true };
  return values;
}

export function renderAgentValues(spec: Spec): AgentChartValues {
  return agentValuesFor(spec.agent, renderScrapeJobs(spec));
}
