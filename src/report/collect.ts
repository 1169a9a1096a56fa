/**
 * A report from Prometheus: the figures it computes over the window (uptime as avg_over_time, duration quantiles,
 * the slowest phase, the certificate), the timeline as avg_over_time per bucket, and the incidents from the raw
 * probe_success samples of only the buckets where the timeline shows a failure (and the bucket after each, where
 * a run may end), so that a quiet month costs a handful of queries whatever its number of samples.
 */
import { PROBE_METRICS } from '../render/probe-metrics';
import { bucketRuns, failed, joinedRuns, type BucketRuns, type Sample } from './incidents';
import { errorBudgetRemaining, REPORT_SCHEMA_VERSION, type Incident, type JobReport, type Report, type TargetReport, type UnseenTarget } from './model';
import { PrometheusFailure, type PrometheusApi, type Series } from './prometheus-api';

export interface ReportRequest {
  /** The window, in whole Unix seconds. */
  readonly from: number;
  readonly to: number;
  /** The window as the user wrote it (30d), else as Prometheus would. */
  readonly window: string;
  /** The jobs to report; none: every job with probe_success series. */
  readonly jobs: readonly string[];
  /** Each job's targets as the spec names them (the `instance` label they get), to list those without series. */
  readonly expected?: Readonly<Record<string, readonly string[]>>;
  /** Each job's objective in percent, from the spec. */
  readonly slos: Readonly<Record<string, number>>;
  /** Called as queries finish: how many are done of how many known so far. */
  readonly progress?: (done: number, total: number) => void;
  /** The report's own time. @default now */
  readonly generatedAt?: Date;
}

/** The most timeline buckets: a bar per bucket, as a status page draws a bar per day. */
export const MOST_BUCKETS = 120;

/** Raw samples asked for in one query at most (Prometheus refuses past its --query.max-samples, 50 million). */
const SAMPLES_PER_QUERY = 500_000;

/** Queries in flight at once. */
const CONCURRENT_QUERIES = 4;

/**
 * How many buckets the window is cut into: the most, up to MOST_BUCKETS, that cut it into equal whole
 * milliseconds (100 always does for a window of whole seconds) and are no shorter than a second.
 */
export function bucketCount(windowSeconds: number): number {
  for (let count = Math.min(MOST_BUCKETS, windowSeconds); count > 1; count--) {
    if ((windowSeconds * 1000) % count === 0) return count;
  }
  return 1;
}

/** A PromQL string literal. */
function literal(text: string): string {
  return JSON.stringify(text);
}

/** A regular expression matching exactly these texts (RE2, as Prometheus anchors it). */
function alternatives(texts: readonly string[]): string {
  return texts.map((text) => text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&')).join('|');
}

/** The selector's matchers of these jobs (and instances): `job=~"web|api"`. */
function matchers(jobs: readonly string[], instances: readonly string[] = []): string {
  const parts = [];
  if (jobs.length > 0) parts.push(`job=~${literal(alternatives(jobs))}`);
  if (instances.length > 0) parts.push(`instance=~${literal(alternatives(instances))}`);
  return parts.join(',');
}

/** The labels a target is known by; others (module, team) are the same target's. */
const TARGET_LABELS = ['job', 'instance', 'location'] as const;
const BY_TARGET = `by (${TARGET_LABELS.join(', ')})`;

function keyOf(metric: Readonly<Record<string, string>>): string {
  return TARGET_LABELS.map((label) => metric[label] ?? '').join('\u0000');
}

function iso(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}

function roundedSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** Runs `tasks` at most `limit` at once, in order of the list. */
async function pooled<T>(tasks: ReadonlyArray<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

interface TargetSeries {
  readonly metric: Readonly<Record<string, string>>;
  /** avg_over_time of each series of the target, and its sample count, to join several. */
  readonly uptimes: Array<{ readonly uptime: number; readonly samples: number }>;
}

export async function collectReport(api: PrometheusApi, request: ReportRequest): Promise<Report> {
  const { from, to, jobs } = request;
  const windowSeconds = to - from;
  const buckets = bucketCount(windowSeconds);
  const bucketMs = (windowSeconds * 1000) / buckets;
  const range = `[${windowSeconds}s]`;
  const selector = `{${matchers(jobs)}}`;
  let done = 0;
  let total = 7; // the queries of the figures below; the incidents' are added once known
  const counted = async <T>(query: Promise<T>): Promise<T> => {
    const result = await query;
    done += 1;
    request.progress?.(done, total);
    return result;
  };

  const [uptimes, counts, timeline, p50, p95, phases, certificates] = await Promise.all([
    counted(api.instant(`avg_over_time(${PROBE_METRICS.success}${selector}${range})`, to)),
    counted(api.instant(`count_over_time(${PROBE_METRICS.success}${selector}${range})`, to)),
    counted(api.range(`avg ${BY_TARGET} (avg_over_time(${PROBE_METRICS.success}${selector}[${bucketMs}ms]))`, from + bucketMs / 1000, to, bucketMs / 1000)),
    counted(api.instant(`max ${BY_TARGET} (quantile_over_time(0.5, ${PROBE_METRICS.duration}${selector}${range}))`, to)),
    counted(api.instant(`max ${BY_TARGET} (quantile_over_time(0.95, ${PROBE_METRICS.duration}${selector}${range}))`, to)),
    counted(api.instant(`max by (${TARGET_LABELS.join(', ')}, phase) (avg_over_time({__name__=~${literal(PHASE_METRICS)}${jobs.length > 0 ? `,${matchers(jobs)}` : ''}}${range}))`, to)),
    counted(api.instant(`min ${BY_TARGET} (last_over_time(${PROBE_METRICS.certificateExpiry}${selector}${range}))`, to)),
  ]);

  const targets = new Map<string, TargetSeries>();
  const sampleCount = new Map<string, number>();
  for (const series of counts) sampleCount.set(JSON.stringify(series.metric), series.value);
  for (const series of uptimes) {
    const key = keyOf(series.metric);
    const entry = targets.get(key) ?? { metric: series.metric, uptimes: [] };
    entry.uptimes.push({ uptime: series.value, samples: sampleCount.get(JSON.stringify(series.metric)) ?? 0 });
    targets.set(key, entry);
  }
  if (targets.size === 0) {
    const which = jobs.length === 0 ? '' : ` of job ${jobs.map((job) => `"${job}"`).join(', ')}`;
    throw new PrometheusFailure(
      `Prometheus at ${api.shownUrl} has no ${PROBE_METRICS.success} series${which} between ${iso(from)} and ${iso(to)}; check --job${jobs.length === 0 ? '' : ' (and --spec)'} and the window, and that Prometheus scrapes probekit's jobs`,
    );
  }

  const bucketIndex = (time: number) => Math.round(((time - from) * 1000) / bucketMs) - 1;
  const timelines = new Map<string, Array<number | null>>();
  for (const series of timeline) {
    const line: Array<number | null> = new Array<number | null>(buckets).fill(null);
    for (const [time, value] of series.value) {
      const index = bucketIndex(time);
      if (index >= 0 && index < buckets) line[index] = value;
    }
    timelines.set(keyOf(series.metric), line);
  }

  const incidents = await collectIncidents(
    api,
    request,
    targets,
    timelines,
    bucketMs,
    (queries) => {
      total += queries;
      request.progress?.(done, total);
    },
    () => {
      done += 1;
      request.progress?.(done, total);
    },
  );

  const byKey = <V>(series: ReadonlyArray<Series<V>>) => new Map(series.map((entry) => [keyOf(entry.metric), entry.value]));
  const medians = byKey(p50);
  const tails = byKey(p95);
  const expiries = byKey(certificates);
  const slowest = new Map<string, { phase: string; seconds: number }>();
  for (const series of phases) {
    const key = keyOf(series.metric);
    const phase = series.metric.phase ?? '';
    if (!Number.isFinite(series.value) || (slowest.get(key)?.seconds ?? -1) >= series.value) continue;
    slowest.set(key, { phase, seconds: series.value });
  }

  const reports: TargetReport[] = [...targets.entries()].map(([key, { metric, uptimes: parts }]) => {
    const samples = parts.reduce((sum, part) => sum + part.samples, 0);
    // One series is the usual case, and its figure is Prometheus' own; several (a label changed in the window) are weighed by their samples.
    const uptime = parts.length === 1 ? parts[0]!.uptime : parts.reduce((sum, part) => sum + part.uptime * part.samples, 0) / Math.max(samples, 1);
    const uptimePercent = uptime * 100;
    const slo = request.slos[metric.job ?? ''] ?? null;
    const median = medians.get(key);
    const tail = tails.get(key);
    const expiry = expiries.get(key);
    const phase = slowest.get(key);
    return {
      job: metric.job ?? '',
      instance: metric.instance ?? '',
      ...(metric.location === undefined ? {} : { location: metric.location }),
      uptimePercent,
      samples,
      incidents: incidents.get(key) ?? [],
      timeline: (timelines.get(key) ?? new Array<null>(buckets).fill(null)).map((value) => (value === null ? null : value * 100)),
      durationSeconds: median === undefined || tail === undefined || !Number.isFinite(median) ? null : { p50: median, p95: tail },
      slowestPhase: phase === undefined ? null : phase,
      certificateDaysLeft: expiry === undefined || !(expiry > 0) ? null : Math.floor((expiry - to) / 86_400),
      slo,
      errorBudgetRemainingPercent: slo === null ? null : errorBudgetRemaining(uptimePercent, slo),
    };
  });
  reports.sort((a, b) => a.job.localeCompare(b.job) || a.instance.localeCompare(b.instance) || (a.location ?? '').localeCompare(b.location ?? ''));

  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    prometheus: api.shownUrl,
    from: iso(from),
    to: iso(to),
    window: request.window,
    windowSeconds,
    bucketSeconds: bucketMs / 1000,
    generatedAt: (request.generatedAt ?? new Date()).toISOString(),
    jobs: jobReports(reports),
    targets: reports,
    unseen: unseenTargets(request.expected ?? {}, reports),
  };
}

/** The expected targets that no report covers (from any location), in the spec's order of jobs and targets. */
function unseenTargets(expected: Readonly<Record<string, readonly string[]>>, reports: readonly TargetReport[]): UnseenTarget[] {
  const seen = new Set(reports.map((target) => `${target.job}\u0000${target.instance}`));
  return Object.entries(expected).flatMap(([job, instances]) => [...new Set(instances)].filter((instance) => !seen.has(`${job}\u0000${instance}`)).map((instance) => ({ job, instance })));
}

/** The phase metrics of the probers that time their phases (http, icmp, grpc), as one name pattern. */
const PHASE_METRICS = [PROBE_METRICS.httpPhaseDuration, PROBE_METRICS.icmpPhaseDuration, PROBE_METRICS.grpcPhaseDuration].join('|');

function jobReports(targets: readonly TargetReport[]): JobReport[] {
  const jobs = new Map<string, TargetReport[]>();
  for (const target of targets) jobs.set(target.job, [...(jobs.get(target.job) ?? []), target]);
  return [...jobs.entries()].map(([job, members]) => {
    const uptimePercent = members.reduce((sum, target) => sum + target.uptimePercent, 0) / members.length;
    const slo = members[0]!.slo;
    return {
      job,
      targets: members.length,
      uptimePercent,
      incidents: members.reduce((sum, target) => sum + target.incidents.length, 0),
      downtimeSeconds: roundedSeconds(members.reduce((sum, target) => sum + target.incidents.reduce((inner, incident) => inner + incident.seconds, 0), 0)),
      slo,
      errorBudgetRemainingPercent: slo === null ? null : errorBudgetRemaining(uptimePercent, slo),
      locations: [...new Set(members.flatMap((target) => (target.location === undefined ? [] : [target.location])))].sort(),
    };
  });
}

/**
 * Each target's incidents: for every bucket where its timeline shows a failure, and the next bucket with samples
 * after it (where a run open at the bucket's end may end), its raw samples, reduced bucket by bucket to runs.
 */
async function collectIncidents(
  api: PrometheusApi,
  request: ReportRequest,
  targets: ReadonlyMap<string, TargetSeries>,
  timelines: ReadonlyMap<string, ReadonlyArray<number | null>>,
  bucketMs: number,
  planned: (queries: number) => void,
  finished: () => void,
): Promise<Map<string, Incident[]>> {
  // bucket index -> the targets whose samples of that bucket are needed
  const needed = new Map<number, string[]>();
  for (const [key, line] of timelines) {
    if (!targets.has(key)) continue;
    const wanted = new Set<number>();
    line.forEach((value, index) => {
      if (value === null || !failed(value)) return;
      wanted.add(index);
      const after = line.findIndex((next, later) => later > index && next !== null);
      if (after >= 0) wanted.add(after);
    });
    for (const index of wanted) needed.set(index, [...(needed.get(index) ?? []), key]);
  }

  const windowSeconds = request.to - request.from;
  const perBucket = (key: string) => Math.ceil((targets.get(key)!.uptimes.reduce((sum, part) => sum + part.samples, 0) * bucketMs) / 1000 / windowSeconds) + 1;
  const queries: Array<{ index: number; keys: string[] }> = [];
  for (const [index, keys] of [...needed.entries()].sort(([a], [b]) => a - b)) {
    let batch: string[] = [];
    let size = 0;
    for (const key of keys) {
      if (batch.length > 0 && size + perBucket(key) > SAMPLES_PER_QUERY) {
        queries.push({ index, keys: batch });
        batch = [];
        size = 0;
      }
      batch.push(key);
      size += perBucket(key);
    }
    queries.push({ index, keys: batch });
  }
  planned(queries.length);

  const runs = new Map<string, Array<{ index: number; runs: BucketRuns }>>();
  await pooled(
    queries.map(({ index, keys }) => async () => {
      const end = request.from + ((index + 1) * bucketMs) / 1000;
      const start = end - bucketMs / 1000;
      const members = keys.map((key) => targets.get(key)!.metric);
      const jobs = [...new Set(members.map((metric) => metric.job ?? ''))];
      const instances = [...new Set(members.map((metric) => metric.instance ?? ''))];
      const result = await api.samples(`${PROBE_METRICS.success}{${matchers(jobs, instances)}}[${bucketMs}ms]`, end);
      const wanted = new Set(keys);
      const samples = new Map<string, Sample[]>();
      for (const series of result) {
        const key = keyOf(series.metric);
        if (!wanted.has(key)) continue;
        // Prometheus 2 includes a sample at the range's very start, which belongs to the bucket before.
        const inBucket = series.value.filter(([time]) => time > start);
        samples.set(key, [...(samples.get(key) ?? []), ...inBucket]);
      }
      for (const [key, list] of samples) {
        if (list.length === 0) continue;
        const reduced = bucketRuns(list.sort((a, b) => a[0] - b[0]));
        if (reduced !== undefined) runs.set(key, [...(runs.get(key) ?? []), { index, runs: reduced }]);
      }
      finished();
    }),
    CONCURRENT_QUERIES,
  );

  const incidents = new Map<string, Incident[]>();
  for (const [key, list] of runs) {
    const joined = joinedRuns(list.sort((a, b) => a.index - b.index).map((entry) => entry.runs));
    incidents.set(
      key,
      joined.map(([start, end]) => ({ start: iso(start), end: end === null ? null : iso(end), seconds: roundedSeconds((end ?? request.to) - start) })),
    );
  }
  return incidents;
}
