/**
 * Spec to the agent's scrape jobs, one per spec job, with blackbox_exporter's three relabel rules: the target
 * becomes the `target` query parameter, the instance label carries the target, and the scrape goes to the exporter.
 */
import { EXPORTER_PORT, METRICS_PATH, PROBE_PATH } from '@probekit/exporter';
import { DEFAULTS, MODULE_LABEL, type ScrapeJob, type Spec } from '../model';

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
  /** The probe jobs' `module` parameter; the exporter's own job has none. */
  readonly params?: { readonly module: readonly string[] };
  readonly static_configs: ReadonlyArray<{ readonly targets: readonly string[]; readonly labels?: Readonly<Record<string, string>> }>;
  /** The probe jobs' three rules; the exporter's own job scrapes its address as it is. */
  readonly relabel_configs?: readonly RelabelRule[];
  /** How the exporter is scraped when it serves https and/or asks for a password (`exporter.tls`, `exporter.basicAuth`). */
  readonly scheme?: 'https';
  readonly tls_config?: Readonly<Record<string, string>>;
  readonly basic_auth?: { readonly username: string; readonly password_file: string };
}

/** A probe job: the module as parameter, the three rules. */
export interface ProbeScrapeConfig extends ScrapeConfig {
  readonly params: { readonly module: readonly string[] };
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

/** The exporter as an agent on the same machine reaches it; the model fills the host form's external URL from it too. */
export { localExporterAddress } from '../model';

/**
 * Targets that share a module and labels: one entry of a scrape job's `static_configs`, of an http_sd answer, or of
 * a Probe's `staticConfig`. Its labels are every label its targets' series carry beyond `job` and `instance`.
 */
export interface TargetGroup {
  readonly targets: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * A job's targets as target groups, the one shape every renderer of a scrape job (agent values, host files, Operator
 * Probes) writes them in. Each group carries the job's labels and its module as the `module` label, which the
 * probe's series do not otherwise say (the module is a query parameter), for the dashboard's filter and debug links.
 */
export function targetGroups(job: Pick<ScrapeJob, 'module' | 'labels' | 'targets'>): TargetGroup[] {
  return [{ targets: [...job.targets], labels: { ...job.labels, [MODULE_LABEL]: job.module } }];
}

export function renderScrapeJob(job: ScrapeJob, exporterAddress: string): ProbeScrapeConfig {
  return {
    job_name: job.name,
    scrape_interval: job.scrapeInterval,
    scrape_timeout: job.scrapeTimeout,
    metrics_path: PROBE_PATH,
    params: { module: [job.module] },
    static_configs: targetGroups(job),
    relabel_configs: relabelRules(exporterAddress),
  };
}

/** The job that scrapes the exporter's own metrics (`/metrics`: config reloads, build info), which one alert watches. */
export const EXPORTER_JOB_NAME = 'probekit-exporter';

/** The exporter's own scrape job, at the documented interval: its metrics change only on a reload. */
export function renderExporterScrapeJob(exporterAddress: string): ScrapeConfig {
  return {
    job_name: EXPORTER_JOB_NAME,
    scrape_interval: DEFAULTS.job.scrapeInterval,
    scrape_timeout: DEFAULTS.job.scrapeTimeout,
    metrics_path: METRICS_PATH,
    static_configs: [{ targets: [exporterAddress] }],
  };
}

export function renderScrapeJobs(spec: Spec, exporterAddress: string = clusterExporterAddress(spec)): ProbeScrapeConfig[] {
  return spec.jobs.map((job) => renderScrapeJob(job, exporterAddress));
}
