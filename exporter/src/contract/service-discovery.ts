/**
 * The exporter's HTTP service discovery (ours, not upstream's): with `--sd.targets-dir`, it serves the target
 * groups of each scrape job at `/sd/<job>` in Prometheus' HTTP SD format, read from the target files in that
 * folder. probekit renders those files into the exporter's own ConfigMaps, so that targets need not travel in
 * the agent's values (which Helm and Kubernetes cap at 1 MiB).
 */

/** Where a job's target groups are served: `/sd/<job>`, the job's name percent-encoded. */
export const SD_PATH_PREFIX = '/sd/';

/** The path of one job's target groups. */
export function sdPath(job: string): string {
  return `${SD_PATH_PREFIX}${encodeURIComponent(job)}`;
}

/**
 * Targets that share labels: an entry of Prometheus' HTTP SD answer (and of a file_sd file, and of a scrape job's
 * `static_configs`). Labels beginning with `__` are Prometheus' own, such as `__param_module`.
 */
export interface TargetGroup {
  readonly targets: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A target file: job names to their target groups, as JSON, plain (`.json`) or gzipped (`.json.gz`). A job may
 * appear in several files; its groups are served in the order of the files' paths, then as each file lists them.
 */
export type TargetFile = Readonly<Record<string, readonly TargetGroup[]>>;

/** The names of target files the exporter reads; any other file in the folder is ignored. */
export const TARGET_FILE_PATTERN = /\.json(\.gz)?$/;
