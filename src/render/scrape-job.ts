/**
 * Spec to the agent's scrape jobs, one per spec job, with blackbox_exporter's three relabel rules: the target
 * becomes the `target` query parameter, the instance label carries the target, and the scrape goes to the exporter.
 */
import { EXPORTER_PORT, PROBE_PATH } from '@probekit/exporter';
import type { Job, Spec } from '../model';

export interface RelabelRule {
  readonly source_labels?: readonly string[];
  readonly target_label: string;
  readonly replacement?: string;
}

export interface ScrapeConfig {
  readonly job_name: string;
  readonly scrape_interval: string;
  readonly scrape_timeout: string;
  readonly metrics_path: string;
  readonly params: { readonly module: readonly string[] };
  readonly static_configs: ReadonlyArray<{ readonly targets: readonly string[]; readonly labels?: Readonly<Record<string, string>> }>;
  readonly relabel_configs: readonly RelabelRule[];
}

/** The three rules every blackbox_exporter scrape job has, in their order. */
export function relabelRules(exporterAddress: string): RelabelRule[] {
  return [
    { source_labels: ['__address__'], target_label: '__param_target' },
    { source_labels: ['__param_target'], target_label: 'instance' },
    { target_label: '__address__', replacement: exporterAddress },
  ];
}

/** An exporter Service as the agent reaches it in a cluster: its cluster DNS name and port 9115. */
export function exporterServiceAddress(serviceName: string, namespace: string): string {
  return `${serviceName}.${namespace}.svc:${EXPORTER_PORT}`;
}

/** The spec's exporter as the agent reaches it in a cluster. */
export function clusterExporterAddress(spec: Spec): string {
  return exporterServiceAddress(spec.exporter.serviceName, spec.namespace);
}

/** The exporter as the agent reaches it on a single machine. */
export const LOCAL_EXPORTER_ADDRESS = `localhost:${EXPORTER_PORT}`;

export function renderScrapeJob(job: Job, exporterAddress: string): ScrapeConfig {
  const hasLabels = Object.keys(job.labels).length > 0;
  return {
    job_name: job.name,
    scrape_interval: job.scrapeInterval,
    scrape_timeout: job.scrapeTimeout,
    metrics_path: PROBE_PATH,
    params: { module: [job.module] },
    static_configs: [{ targets: [...job.targets], ...(hasLabels ? { labels: { ...job.labels } } : {}) }],
    relabel_configs: relabelRules(exporterAddress),
  };
}

export function renderScrapeJobs(spec: Spec, exporterAddress: string = clusterExporterAddress(spec)): ScrapeConfig[] {
  return spec.jobs.map((job) => renderScrapeJob(job, exporterAddress));
}
