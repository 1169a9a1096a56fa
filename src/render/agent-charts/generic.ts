/**
 * Values for the generic agent chart of the product spec: the scrape jobs as a list under
 * `<chartKey>.extraScrapeConfigs`, and the chart's exporter section.
 *
 * The exporter section is always written, `enabled: false` unless the spec asks otherwise: the jobs scrape
 * probekit's exporter, so the chart's own would be a second exporter nobody scrapes, and leaving the key out would
 * keep whatever the chart defaults to.
 */
import type { GenericAgentChart } from '../../model';
import type { ScrapeConfig } from '../scrape-job';
import { helmCommandNote, type AgentChartValues } from './chart-values';

export type GenericChartValues = Record<string, { extraScrapeConfigs: ScrapeConfig[] } | { enabled: boolean }>;

export function genericChartValues(agent: GenericAgentChart, scrapeConfigs: readonly ScrapeConfig[], file: string): AgentChartValues<GenericChartValues> {
  return {
    values: { [agent.chartKey]: { extraScrapeConfigs: [...scrapeConfigs] }, [agent.exporterKey]: { enabled: agent.enableExporter } },
    notes: [
      `Values for the agent chart: the scrape jobs under ${agent.chartKey}.extraScrapeConfigs, the chart's exporter section ${agent.exporterKey} ${agent.enableExporter ? "enabled (it runs beside probekit's, which the jobs scrape)" : "disabled (the jobs scrape probekit's exporter)"}.`,
      helmCommandNote('<release>', '<agent-chart>', file),
    ],
  };
}
