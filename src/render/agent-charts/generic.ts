/**
 * Values for the generic agent chart of the product spec: the scrape jobs as a list under
 * `<chartKey>.extraScrapeConfigs`, and the chart's exporter section.
 *
 * The exporter section is always written, `enabled: false` unless the spec asks otherwise: the jobs scrape
 * probekit's exporter, so the chart's own would be a second exporter nobody scrapes, and leaving the key out would
 * keep whatever the chart defaults to.
 */
import type { GenericAgentChart } from '../../model';
import type { ExporterAccess } from '../exporter-web-config';
import type { ScrapeConfig } from '../scrape-job';
import { helmCommandNote, type AgentChartValues } from './chart-values';
import { exporterAccessFiles, exporterSecretsNote } from './secret-files';

export type GenericChartValues = Record<string, { extraScrapeConfigs: ScrapeConfig[] } | { enabled: boolean }>;

/**
 * The chart's layout for extra volumes is unknown, so the header says which Secret keys the agent's pod must mount
 * where, for an exporter behind TLS or a password.
 */
function mountNotes(access: ExporterAccess, exporterNamespace: string): string[] {
  const files = exporterAccessFiles(access);
  if (files.length === 0) return [];
  const listed = files.map(({ secretName, keys, directory }) => `${keys.join(', ')} of ${secretName} in ${directory}/`).join('; ');
  return [`Mount into the agent's pod (the chart's extra volumes) the Secret keys the jobs read: ${listed}.`, ...exporterSecretsNote(access, exporterNamespace)];
}

export function genericChartValues(
  agent: GenericAgentChart,
  scrapeConfigs: readonly ScrapeConfig[],
  access: ExporterAccess,
  exporterNamespace: string,
  file: string,
): AgentChartValues<GenericChartValues> {
  return {
    values: { [agent.chartKey]: { extraScrapeConfigs: [...scrapeConfigs] }, [agent.exporterKey]: { enabled: agent.enableExporter } },
    notes: [
      `Values for the agent chart: the scrape jobs under ${agent.chartKey}.extraScrapeConfigs, the chart's exporter section ${agent.exporterKey} ${agent.enableExporter ? "enabled (it runs beside probekit's, which the jobs scrape)" : "disabled (the jobs scrape probekit's exporter)"}.`,
      ...mountNotes(access, exporterNamespace),
      helmCommandNote('<release>', '<agent-chart>', file),
    ],
  };
}
