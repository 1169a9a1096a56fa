/**
 * Spec to the agent's scrape jobs, one per spec job (and one more per other interval its targets ask for), with
 * blackbox_exporter's three relabel rules: the target becomes the `target` query parameter, the instance label
 * carries the target, and the scrape goes to the exporter.
 */
import { EXPORTER_PORT, METRICS_PATH, PROBE_PATH, sdPath } from '@probekit/exporter';
import { DEFAULTS, LOCATION_LABEL, MODULE_LABEL, type ScrapeJob, type Spec, type SpecModule } from '../model';
import { jobParts, targetSets } from '../model/targets';
import { renderDiscoveryScrapeConfigs } from './discovery';

export interface RelabelRule {
  readonly source_labels?: readonly string[];
  /** Absent for keep and drop rules, which only filter. */
  readonly target_label?: string;
  readonly replacement?: string;
  /** Only the discovery jobs' rules (./discovery.ts) match or filter; the three rules of a static job copy. */
  readonly regex?: string;
  /** hashmod only: the number of shards. */
  readonly modulus?: number;
  readonly action?: 'replace' | 'keep' | 'drop' | 'hashmod';
}

export interface ScrapeConfig {
  readonly job_name: string;
  readonly scrape_interval: string;
  readonly scrape_timeout: string;
  readonly metrics_path: string;
  /** The probe jobs' `module` parameter when all their targets use one; the exporter's own job has none. */
  readonly params?: { readonly module: readonly string[] };
  readonly static_configs?: ReadonlyArray<{ readonly targets: readonly string[]; readonly labels?: Readonly<Record<string, string>> }>;
  /** With `agent.targets: http_sd`: the job's targets from the exporter's `/sd/<job>`, reached as the scrapes reach it. */
  readonly http_sd_configs?: readonly HttpSdConfig[];
  /** A discovery job's Ingresses or Services (./discovery.ts), in Prometheus' form. */
  readonly kubernetes_sd_configs?: ReadonlyArray<{
    readonly role: 'ingress' | 'service';
    readonly namespaces?: { readonly names: readonly string[] };
    readonly selectors: ReadonlyArray<{ readonly role: 'ingress' | 'service'; readonly label: string }>;
  }>;
  /** The probe jobs' three rules; the exporter's own job scrapes its address as it is. */
  readonly relabel_configs?: readonly RelabelRule[];
  /** How the exporter is scraped when it serves https and/or asks for a password (`exporter.tls`, `exporter.basicAuth`). */
  readonly scheme?: 'https';
  readonly tls_config?: Readonly<Record<string, string>>;
  readonly basic_auth?: { readonly username: string; readonly password_file: string };
}

/** Prometheus' `http_sd_configs` entry: the URL and the HTTP client settings the exporter asks for (https, password). */
export interface HttpSdConfig {
  readonly url: string;
  readonly tls_config?: Readonly<Record<string, string>>;
  readonly basic_auth?: { readonly username: string; readonly password_file: string };
}

/** A probe job: the module as parameter (or each group's, see MODULE_PARAM_LABEL), the three rules. */
export interface ProbeScrapeConfig extends ScrapeConfig {
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

/** The label a shard's hash of the target is written to: `__tmp_` labels are dropped after relabelling. */
export const SHARD_HASH_LABEL = '__tmp_hash';

/**
 * One agent's share of the targets (`agent.shards`): after the three rules, the target (`__param_target`) hashed
 * modulo the shard count, and the targets of this shard's number kept. Prometheus reads no environment variable in
 * relabel rules, so each shard's number is written in its own values.
 */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export function shardRules({ index, count }: Shard): RelabelRule[] {
  return [
    { source_labels: ['__param_target'], modulus: count, target_label: SHARD_HASH_LABEL, action: 'hashmod' },
    { source_labels: [SHARD_HASH_LABEL], regex: String(index), action: 'keep' },
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
 * The label that gives a target group's scrapes their `module` parameter. Prometheus lets a scrape config's
 * `params` outrank it, so a scrape config whose groups use several modules has no `params`, and each group this label.
 */
export const MODULE_PARAM_LABEL = '__param_module';

/**
 * A job's targets as target groups, the one shape every renderer of a scrape job (agent values, host files, Operator
 * Probes) writes them in: targets that share a module and labels, in the order the spec first names each. A group's
 * labels are the job's, its targets' own, and their module as the `module` label (which the probe's series do not
 * otherwise say: the module is a query parameter), for the dashboard's filter, the debug links and the alerts; when
 * the job's targets use several modules, each group also carries its module as `__param_module`.
 */
export function targetGroups(job: Pick<ScrapeJob, 'labels' | 'targets'>): TargetGroup[] {
  const sets = targetSets(job);
  const several = new Set(sets.map((set) => set.module)).size > 1;
  return sets.map(({ module, labels, targets }) => ({ targets, labels: { ...labels, [MODULE_LABEL]: module, ...(several ? { [MODULE_PARAM_LABEL]: module } : {}) } }));
}

/** The one module every target of `job` uses, as the scrape config's `params`; none when they use several (see MODULE_PARAM_LABEL). */
export function moduleParams(job: Pick<ScrapeJob, 'targets'>): { readonly module: readonly string[] } | undefined {
  const modules = new Set(job.targets.map((target) => target.module));
  return modules.size === 1 ? { module: [...modules] } : undefined;
}

/**
 * Where a scrape job's targets travel: in the job (`static_configs`), or served by the exporter at `/sd/<job>`
 * (`agent.targets: http_sd`), where `url` is the exporter's base URL (`http://<service>.<namespace>.svc:9115`).
 */
export type TargetsSource = { readonly kind: 'inline' } | { readonly kind: 'http_sd'; readonly baseUrl: string };

export const INLINE_TARGETS: TargetsSource = { kind: 'inline' };

/** A job as the agent's scrape configs: one per part of its static targets (see jobParts), then its discovery's (./discovery.ts). */
export function renderJobScrapeConfigs(
  job: ScrapeJob,
  modules: Readonly<Record<string, SpecModule>>,
  exporterAddress: string,
  source: TargetsSource = INLINE_TARGETS,
  shard?: Shard,
): ProbeScrapeConfig[] {
  const configs = [...jobParts(job).map((part) => renderScrapeJob(part, exporterAddress, source)), ...renderDiscoveryScrapeConfigs(job, modules[job.module]!, exporterAddress)];
  return shard === undefined ? configs : configs.map((config) => ({ ...config, relabel_configs: [...config.relabel_configs, ...shardRules(shard)] }));
}

/**
 * One part of a job (see jobParts) as the agent's scrape config. With http_sd the exporter serves the part's target
 * groups (targetGroups) under the part's name, which is the scrape job's: the same groups, labels and module
 * parameters either way, and the three rules untouched.
 */
export function renderScrapeJob(job: ScrapeJob, exporterAddress: string, source: TargetsSource = INLINE_TARGETS): ProbeScrapeConfig {
  const params = moduleParams(job);
  return {
    job_name: job.name,
    scrape_interval: job.scrapeInterval,
    scrape_timeout: job.scrapeTimeout,
    metrics_path: PROBE_PATH,
    ...(params && { params }),
    ...(source.kind === 'inline' ? { static_configs: targetGroups(job) } : { http_sd_configs: [{ url: `${source.baseUrl}${sdPath(job.name)}` }] }),
    relabel_configs: relabelRules(exporterAddress),
  };
}

/** The job that scrapes the exporter's own metrics (`/metrics`: config reloads, build info), which one alert watches. */
export const EXPORTER_JOB_NAME = 'probekit-exporter';

/**
 * The exporter's own scrape job, at the documented interval: its metrics change only on a reload. A located
 * deployment's carries its location, so that every location's exporter stays its own series where they all arrive.
 */
export function renderExporterScrapeJob(exporterAddress: string, location?: string): ScrapeConfig {
  return {
    job_name: EXPORTER_JOB_NAME,
    scrape_interval: DEFAULTS.job.scrapeInterval,
    scrape_timeout: DEFAULTS.job.scrapeTimeout,
    metrics_path: METRICS_PATH,
    static_configs: [{ targets: [exporterAddress], ...(location === undefined ? {} : { labels: { [LOCATION_LABEL]: location } }) }],
  };
}

export function renderScrapeJobs(spec: Spec, exporterAddress: string = clusterExporterAddress(spec)): ProbeScrapeConfig[] {
  return spec.jobs.flatMap((job) => renderJobScrapeConfigs(job, spec.modules, exporterAddress));
}
