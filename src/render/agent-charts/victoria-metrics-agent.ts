/**
 * Values for VictoriaMetrics' agent chart (VictoriaMetrics/helm-charts victoria-metrics-agent, read at chart
 * 0.46.0): its top-level `extraScrapeConfigs` is a list the chart appends to `config.scrape_configs`; vmagent reads
 * Prometheus' scrape configs, TLS and basic-auth settings included. The Secrets the jobs read are mounted through
 * `extraVolumes` and `extraVolumeMounts`.
 *
 * With `config.useTpl` the chart writes the scrape configs out with `toYaml` and passes them through `tpl`; without,
 * it does not. Text that prints as itself in one way cannot in the other (a target or label holding `{{`), so the
 * values set `useTpl: true` and write every text of the jobs for `tpl`: the same configuration whatever the user's
 * own values say, and a user's configuration that holds no `{{` reads the same through `tpl`.
 */
import type { ExporterAccess } from '../exporter-web-config';
import type { ScrapeConfig } from '../scrape-job';
import { helmCommandNote, replacedNote, textsLiteralForTpl, type AgentChartValues } from './chart-values';
import { exporterAccessFiles, exporterSecretsNote, mountedSecretsNote, secretVolumes, volumeMounts, type SecretVolume, type VolumeMount } from './secret-files';

export interface VictoriaMetricsAgentChartValues {
  readonly config: { readonly useTpl: true };
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
    values: {
      config: { useTpl: true },
      extraScrapeConfigs: textsLiteralForTpl([...scrapeConfigs]),
      ...(files.length > 0 && { extraVolumes: secretVolumes(files), extraVolumeMounts: volumeMounts(files) }),
    },
    notes: [
      'Values for the vm/victoria-metrics-agent chart: the scrape jobs in extraScrapeConfigs, written for config.useTpl: true, which they set.',
      replacedNote(['extraScrapeConfigs', 'extraVolumes', 'extraVolumeMounts']),
      ...mountedSecretsNote(files),
      ...exporterSecretsNote(access, exporterNamespace),
      helmCommandNote('vmagent', 'vm/victoria-metrics-agent', file),
    ],
  };
}
