/**
 * What `probekit report` says of a window: per target its uptime, incidents, probe durations, certificate and error
 * budget, and per job a summary. The JSON format is this object as it is (docs/report.md documents it); Markdown,
 * HTML and the badge are written from it. Times are ISO 8601 in UTC, durations in seconds, shares in percent.
 */

/** The version of the JSON format: raised when a field changes meaning or goes, not when one is added. */
export const REPORT_SCHEMA_VERSION = 1;

/** One run of failed probes: from the first failed sample to the first successful one after it. */
export interface Incident {
  /** The first failed sample's time. */
  readonly start: string;
  /** The first successful sample's time after the run, or null while it goes on at the window's end. */
  readonly end: string | null;
  /** From start to end (to the window's end while open). */
  readonly seconds: number;
}

/** The phase of the probe that took longest on average over the window (`probe_<prober>_duration_seconds`). */
export interface SlowestPhase {
  readonly phase: string;
  readonly seconds: number;
}

export interface TargetReport {
  readonly job: string;
  /** The target as probed (the `instance` label). */
  readonly instance: string;
  /** The `location` label, when the series carry one (probes from several places). */
  readonly location?: string;
  /** avg_over_time(probe_success[window]) at the window's end, in percent: what Prometheus computes. */
  readonly uptimePercent: number;
  /** The probe_success samples in the window. */
  readonly samples: number;
  readonly incidents: readonly Incident[];
  /** The target's uptime per bucket of the timeline (null: no sample in that bucket). */
  readonly timeline: ReadonlyArray<number | null>;
  /** Median and 95th percentile of probe_duration_seconds over the window; null without samples. */
  readonly durationSeconds: { readonly p50: number; readonly p95: number } | null;
  readonly slowestPhase: SlowestPhase | null;
  /** Whole days from the window's end to the expiry of the earliest certificate last seen; null without TLS. */
  readonly certificateDaysLeft: number | null;
  /** The job's objective in percent (from the spec); null without one. */
  readonly slo: number | null;
  /** What is left of the error budget (100 - slo) over the window, in percent of it; below 0 when overspent. */
  readonly errorBudgetRemainingPercent: number | null;
}

export interface JobReport {
  readonly job: string;
  readonly targets: number;
  /** The mean of its targets' uptime: each target counts once, however often it is probed. */
  readonly uptimePercent: number;
  readonly incidents: number;
  /** The time its targets spent in incidents, summed. */
  readonly downtimeSeconds: number;
  readonly slo: number | null;
  /** The error budget left at the job's uptime. */
  readonly errorBudgetRemainingPercent: number | null;
  /** Whether its targets' series carry several locations (the report then shows the location of each). */
  readonly locations: readonly string[];
}

/**
 * A target the spec names (with --spec) that has no probe_success series in the window: not scraped yet, renamed,
 * or its agent not running. It is listed, and left out of every figure: its uptime is unknown, not 0 or 100.
 */
export interface UnseenTarget {
  readonly job: string;
  readonly instance: string;
}

export interface Report {
  readonly schemaVersion: typeof REPORT_SCHEMA_VERSION;
  /** Prometheus' base URL, without credentials. */
  readonly prometheus: string;
  readonly from: string;
  readonly to: string;
  /** The window's length as a Prometheus duration (30d, 1h30m). */
  readonly window: string;
  readonly windowSeconds: number;
  /** The length of one timeline bucket; the timeline's buckets end at from + bucketSeconds, ... up to to. */
  readonly bucketSeconds: number;
  readonly generatedAt: string;
  readonly jobs: readonly JobReport[];
  readonly targets: readonly TargetReport[];
  /** The spec's targets without a series in the window (empty without --spec), by job and target. */
  readonly unseen: readonly UnseenTarget[];
}

/** The error budget left, in percent of the budget: 100 at full uptime, 0 at the objective, below 0 past it. */
export function errorBudgetRemaining(uptimePercent: number, slo: number): number {
  const budget = 100 - slo;
  return ((budget - (100 - uptimePercent)) / budget) * 100;
}
