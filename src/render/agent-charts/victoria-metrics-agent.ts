/**
 * Values for VictoriaMetrics' agent chart (VictoriaMetrics/helm-charts victoria-metrics-agent, read at chart
 * 0.46.0): its top-level `extraScrapeConfigs` is a list the chart appends to `config.scrape_configs`; vmagent reads
 * Prometheus' scrape configs, TLS and basic-auth settings included. The Secrets the jobs read are mounted through
 * `extraVolumes` and `extraVolumeMounts`.
 */
import type { ExporterAccess } from '../exporter-web-config';
import type { ScrapeConfig } from '../scrape-job';
import { helmCommandNote, replacedNote, type AgentChartValues } from './chart-values';
import { exporterAccessFiles, exporterSecretsNote, mountedSecretsNote, secretVolumes, volumeMounts, type SecretVolume, type VolumeMount } from './secret-files';

export interface VictoriaMetricsAgentChartValues {
  readonly extraScrapeConfigs: ScrapeConfig[];
  readonly extraVolumes?: SecretVolume[];
  readonly extraVolumeMounts?: VolumeMount[];
}

export function victoriaMetricsAgentChartValues(
  scrapeConfigs: readonly ScrapeConfig[],
  access: ExporterAccess,
  exporterNamespace: string,
  file: string,
): AgentChartValues<VictoriaMetricsAgentChartValues> {
  const files = exporterAccessFiles(access);
  return {
    values: { extraScrapeConfigs: [...scrapeConfigs], ...(files.length > 0 && { extraVolumes: secretVolumes(files), extraVolumeMounts: volumeMounts(files) }) },
    notes: [
      'Values for the vm/victoria-metrics-agent chart: the scrape jobs in extraScrapeConfigs.',
      replacedNote(['extraScrapeConfigs', 'extraVolumes', 'extraVolumeMounts']),
      ...mountedSecretsNote(files),
      ...exporterSecretsNote(access, exporterNamespace),
      helmCommandNote('vmagent', 'vm/victoria-metrics-agent', file),
    ],
  };
}
