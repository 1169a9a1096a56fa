/**
 * Values for the Prometheus community chart (prometheus-community/prometheus, read at chart 29.27.0): its
 * `extraScrapeConfigs` is text, a YAML list of scrape configs that the chart passes through `tpl` and appends to
 * the server's `scrape_configs`; the Secrets the jobs read are mounted through `server.extraVolumes` and
 * `server.extraVolumeMounts`, which take volumes as Kubernetes writes them (`server.extraSecretMounts` cannot limit
 * a Secret to some of its keys).
 */
import { stringify } from 'yaml';
import { goTemplateLiteral } from '../go-template';
import type { ExporterAccess } from '../exporter-web-config';
import type { ScrapeConfig } from '../scrape-job';
import { helmCommandNote, replacedNote, type AgentChartValues } from './chart-values';
import { exporterAccessFiles, exporterSecretsNote, mountedSecretsNote, secretVolumes, volumeMounts, type SecretVolume, type VolumeMount } from './secret-files';

export interface PrometheusChartValues {
  readonly extraScrapeConfigs: string;
  readonly server?: { readonly extraVolumes: SecretVolume[]; readonly extraVolumeMounts: VolumeMount[] };
}

/** The jobs as the chart's text: a YAML list, or nothing (a `[]` would follow the chart's own jobs and break its YAML). */
export function scrapeConfigsText(scrapeConfigs: readonly ScrapeConfig[]): string {
  return scrapeConfigs.length === 0 ? '' : goTemplateLiteral(stringify(scrapeConfigs, { lineWidth: 0 }));
}

export function prometheusChartValues(scrapeConfigs: readonly ScrapeConfig[], access: ExporterAccess, exporterNamespace: string, file: string): AgentChartValues<PrometheusChartValues> {
  const files = exporterAccessFiles(access);
  return {
    values: {
      extraScrapeConfigs: scrapeConfigsText(scrapeConfigs),
      ...(files.length > 0 && { server: { extraVolumes: secretVolumes(files), extraVolumeMounts: volumeMounts(files) } }),
    },
    notes: [
      'Values for the prometheus-community/prometheus chart: the scrape jobs in extraScrapeConfigs (text).',
      replacedNote(['extraScrapeConfigs', 'server.extraVolumes', 'server.extraVolumeMounts']),
      ...mountedSecretsNote(files),
      ...exporterSecretsNote(access, exporterNamespace),
      helmCommandNote('prometheus', 'prometheus-community/prometheus', file),
    ],
  };
}
