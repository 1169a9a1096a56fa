/**
 * From a failing probe to its logs: when a target's probes failed and why, read from Prometheus (every
 * `probe_success` sample of the window, and at each failed one the reason metric when the exporter has one, or
 * what the probe's other metrics say) or, without Prometheus, from the exporter's recent probes (its status page
 * and their debug logs); then the logs of the service behind the target over the failures, with a margin,
 * summarized as summarize_logs does.
 */
import { z } from 'zod';
import { describeFailure, FAILURE_REASON_METRIC, FAILURE_REASONS, TIMEOUT_PHASES, type FailureReason, type TimeoutPhase } from '@probekit/exporter';
import { DEFAULT_ANSWER_CHARS, DEFAULT_MESSAGE_CHARS, fitToBudget, LOG_DATA_NOTICE, MAX_ANSWER_CHARS, MAX_MESSAGE_CHARS } from './answers';
import { displayUrl } from './connection';
import { LOG_LEVELS } from './log-patterns';
import { byLevel, CompletenessBuilder, DEFAULT_LOG_INDEX, logQuery, searchLayouts, totalOf, unmatchableFilterNotes, type LogFilters } from './log-search';
import { defineSkill, SkillInputError, type SkillContext } from './skill';
import { MAX_PATTERNS, summarize } from './summarize';
import { targetLogs, TARGET_LOG_FILTERS, type TargetLogFilter } from './target-logs';
import { formatInstant, isTimeZone, resolveTime, TIME_HELP, TIME_ZONE_HELP } from './time';

/**
 * The exporter's failure reason (FAILURE_REASON_METRIC of its contract), when it has one: a gauge set to 1 on the
 * failed probe, labelled with the reason and, for a timeout, the phase. Upstream blackbox_exporter has none;
 * without it the reason is read from the probe's other metrics, in the same words where one fits.
 */
const REASON_METRIC = FAILURE_REASON_METRIC.name;
/** Metrics of blackbox_exporter's probers that tell why a probe failed. */
const REASON_METRICS = [
  REASON_METRIC,
  'probe_failed_due_to_regex',
  'probe_failed_due_to_cel',
  'probe_http_status_code',
  'probe_ssl_earliest_cert_expiry',
  'probe_grpc_healthcheck_response',
  'probe_grpc_status_code',
];

const FETCH_TIMEOUT_MS = 10_000;
/** Samples read from Prometheus at most: a day of probes every 15 s, and more. */
const MAX_SPAN_MS = 7 * 86_400_000;

interface Sample {
  readonly at: number;
  readonly value: number;
}

export interface Series {
  readonly metric: Record<string, string>;
  readonly samples: readonly Sample[];
}

export interface FailureRun {
  readonly from: string;
  /** The first probe that succeeded again, or the last that failed when none did in the window. */
  readonly to: string;
  readonly recovered: boolean;
  readonly probes: number;
  readonly reasons: Record<string, number>;
  readonly job?: string;
}

interface ProbeHistory {
  readonly source: string;
  readonly probes: number;
  readonly failed: number;
  readonly runs: FailureRun[];
  /** Failure times in epoch milliseconds, for the log window. */
  readonly first?: number;
  readonly last?: number;
  readonly notes: string[];
}

async function getText(url: string, what: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new Error(`reading ${what} at ${displayUrl(url)} failed (${cause}); check the URL and that it is reachable from here`);
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`reading ${what} at ${displayUrl(url)} failed: ${response.status} ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
  return text;
}

function promString(value: string): string {
  return JSON.stringify(value);
}

async function promMatrix(base: string, selector: string, spanMs: number, at: number): Promise<Series[]> {
  const url = new URL('api/v1/query', base.endsWith('/') ? base : `${base}/`);
  url.searchParams.set('query', `${selector}[${spanMs}ms]`);
  url.searchParams.set('time', String(at / 1000));
  const answer = JSON.parse(await getText(url.toString(), 'probe history from Prometheus')) as {
    status: string;
    error?: string;
    data?: { resultType: string; result: { metric: Record<string, string>; values: [number, string][] }[] };
  };
  if (answer.status !== 'success' || answer.data?.resultType !== 'matrix') throw new Error(`Prometheus at ${displayUrl(base)} refused the query: ${answer.error ?? answer.status}`);
  return answer.data.result.map((series) => ({ metric: series.metric, samples: series.values.map(([ts, value]) => ({ at: Math.round(ts * 1000), value: Number(value) })) }));
}

/** A reason of the exporter's list, read from the other metrics of an exporter without the reason metric, with what showed it. */
function inferred(reason: FailureReason, detail?: string): string {
  return detail === undefined ? reason : `${reason} (${detail})`;
}

/** The reason metric's labels in words: `timed out (connect)`; a label outside the exporter's list is shown as it is. */
function namedReason(labels: Readonly<Record<string, string | undefined>>): string {
  const reason = labels[FAILURE_REASON_METRIC.labels.reason];
  if (reason === undefined) return 'failed (reason label missing)';
  if (!(FAILURE_REASONS as readonly string[]).includes(reason)) return reason;
  const phase = labels[FAILURE_REASON_METRIC.labels.phase];
  const knownPhase = phase !== undefined && (TIMEOUT_PHASES as readonly string[]).includes(phase) ? (phase as TimeoutPhase) : undefined;
  return describeFailure({ reason: reason as FailureReason, ...(knownPhase ? { phase: knownPhase } : {}) });
}

/** Why a probe failed at `at`, from the metrics of the same scrape (they share its timestamp). */
export function reasonAt(at: number, reasons: readonly Series[]): string {
  const valueOf = (name: string, where: (metric: Record<string, string>) => boolean = () => true) =>
    reasons.filter((series) => series.metric.__name__ === name && where(series.metric)).flatMap((series) => series.samples.filter((sample) => sample.at === at));
  const named = reasons.find((series) => series.metric.__name__ === REASON_METRIC && series.samples.some((sample) => sample.at === at && sample.value === 1));
  if (named !== undefined) return namedReason(named.metric);
  if (valueOf('probe_failed_due_to_regex').some((sample) => sample.value === 1)) return inferred('body or header regexp failed');
  if (valueOf('probe_failed_due_to_cel').some((sample) => sample.value === 1)) return inferred('body CEL expression failed');
  const grpc = reasons.find((series) => series.metric.__name__ === 'probe_grpc_healthcheck_response' && series.samples.some((sample) => sample.at === at && sample.value === 1));
  if (grpc !== undefined && grpc.metric.serving_status !== 'SERVING') return inferred('gRPC not serving', grpc.metric.serving_status ?? 'unknown');
  const status = valueOf('probe_http_status_code')[0];
  if (status !== undefined) return status.value === 0 ? 'no HTTP response (connection refused, timeout, TLS or DNS failure)' : inferred('HTTP status not accepted', String(status.value));
  const expiry = valueOf('probe_ssl_earliest_cert_expiry')[0];
  if (expiry !== undefined && expiry.value * 1000 < at) return inferred('certificate not valid', 'expired');
  return 'failed; no metric says why (see the exporter debug output)';
}

function label(selector: Record<string, string>): string {
  return `{${Object.entries(selector)
    .map(([key, value]) => `${key}=${promString(value)}`)
    .join(',')}}`;
}

async function fromPrometheus(base: string, target: string, job: string | undefined, start: number, end: number, zone: string | undefined): Promise<ProbeHistory> {
  const spanMs = end - start;
  const selector = { instance: target, ...(job === undefined ? {} : { job }) };
  const success = await promMatrix(base, `probe_success${label(selector)}`, spanMs, end);
  const notes: string[] = [];
  if (success.length === 0) {
    notes.push(`Prometheus has no probe_success for instance ${target}${job ? ` in job ${job}` : ''} in the window; check the target as the scrape job lists it`);
    return { source: `Prometheus ${displayUrl(base)}`, probes: 0, failed: 0, runs: [], notes };
  }
  const reasons = await promMatrix(base, `{${label(selector).slice(1, -1)},__name__=~${promString(REASON_METRICS.join('|'))}}`, spanMs, end);
  if (!reasons.some((series) => series.metric.__name__ === REASON_METRIC)) {
    notes.push(`the exporter has no ${REASON_METRIC} metric; reasons are read from its other metrics`);
  }
  const runs: FailureRun[] = [];
  let probes = 0;
  let failed = 0;
  let first: number | undefined;
  let last: number | undefined;
  const time = (instant: number) => formatInstant(instant, zone);
  for (const series of success) {
    let run: { from: number; last: number; probes: number; reasons: Record<string, number> } | undefined;
    const close = (recoveredAt?: number) => {
      if (run === undefined) return;
      runs.push({
        from: time(run.from),
        to: time(recoveredAt ?? run.last),
        recovered: recoveredAt !== undefined,
        probes: run.probes,
        reasons: run.reasons,
        ...(series.metric.job ? { job: series.metric.job } : {}),
      });
      run = undefined;
    };
    for (const sample of series.samples) {
      probes += 1;
      if (sample.value === 1) {
        close(sample.at);
        continue;
      }
      failed += 1;
      const reason = reasonAt(
        sample.at,
        reasons.filter((r) => r.metric.job === series.metric.job),
      );
      run ??= { from: sample.at, last: sample.at, probes: 0, reasons: {} };
      run.last = sample.at;
      run.probes += 1;
      run.reasons[reason] = (run.reasons[reason] ?? 0) + 1;
      first = first === undefined ? sample.at : Math.min(first, sample.at);
      last = last === undefined ? sample.at : Math.max(last, sample.at);
    }
    close();
  }
  return { source: `Prometheus ${displayUrl(base)}`, probes, failed, runs: runs.sort((a, b) => (a.from < b.from ? -1 : 1)), ...(first === undefined ? {} : { first, last }), notes };
}

function unescapeHtml(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** logfmt fields of one line: `key=value` or `key="quoted \"value\""`. */
function logfmtFields(line: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of line.matchAll(/([\w.]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const raw = match[2]!;
    try {
      fields[match[1]!] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
    } catch {
      fields[match[1]!] = raw.slice(1, -1);
    }
  }
  return fields;
}

/** Lines of a probe's log that say what it did, not what went wrong. */
const PROGRESS = new Set([
  'Beginning probe',
  'Resolving target address',
  'Resolved target address',
  'Making HTTP request',
  'Received HTTP response',
  'Response timings for roundtrip',
  'Probe failed',
  'Probe succeeded',
  'Dialing TCP without TLS',
  'Dialing TCP with TLS',
  'Successfully dialed',
]);
const CONTEXT_FIELDS = new Set(['ts', 'level', 'msg', 'module', 'target', 'caller']);

/**
 * Why a probe failed, from its debug output: the reason metric when it is there; else its last error (other than
 * "Probe failed"); else the last line that is not progress, since blackbox_exporter logs a rejected status code or
 * body at info level. What the line carries (err, status_code) is kept.
 */
export function reasonFromDebug(debug: string): string {
  const metric = new RegExp(`^${REASON_METRIC}\\{([^}]*)\\} 1`, 'm').exec(debug);
  if (metric) return namedReason(Object.fromEntries([...metric[1]!.matchAll(/([a-z_]+)="([^"]*)"/g)].map((label) => [label[1]!, label[2]!])));
  const lines = debug
    .split('Metrics that would have been returned:')[0]!
    .split('\n')
    .map(logfmtFields)
    .filter((fields) => fields.msg !== undefined && !PROGRESS.has(fields.msg));
  const chosen = lines.filter((fields) => fields.level === 'error').at(-1) ?? lines.at(-1);
  if (chosen === undefined) return 'failed; its debug output says not why';
  const details = Object.entries(chosen).filter(([key]) => !CONTEXT_FIELDS.has(key));
  const err = chosen.err;
  const rest = details.filter(([key]) => key !== 'err').map(([key, value]) => `${key}=${value}`);
  return `${chosen.msg}${err ? `: ${err}` : ''}${rest.length > 0 ? ` (${rest.join(' ')})` : ''}`;
}

/**
 * The exporter's status page lists its recent probes: module, target, result, then on ours a failed probe's reason
 * and the time (upstream's page has neither), and a link to the probe's debug output. Where the page names no
 * reason (upstream's), each failed probe's debug output is read for it.
 */
async function fromExporter(base: string, target: string, zone: string | undefined): Promise<ProbeHistory> {
  const root = base.endsWith('/') ? base : `${base}/`;
  const page = await getText(root, "the exporter's recent probes");
  // Upstream's page closes neither rows nor the header row; each row starts with <tr>, which is enough.
  const rows = page.split(/<tr>/).slice(1);
  const reasonColumn = [...(rows[0] ?? '').matchAll(/<th>(.*?)<\/th>/gs)].findIndex((header) => header[1] === 'Reason');
  const probes: { at?: number; success: boolean; id?: string; reason?: string }[] = [];
  for (const row of rows) {
    const cells = [...row.matchAll(/<td>(.*?)<\/td>/gs)].map((cell) => cell[1]!);
    if (cells.length < 4 || unescapeHtml(cells[1]!) !== target) continue;
    const id = /logs\?id=(\d+)/.exec(row)?.[1];
    const time = cells.map(unescapeHtml).find((cell) => /^\d{4}-\d{2}-\d{2}T/.test(cell));
    const reason = reasonColumn === -1 ? '' : unescapeHtml(cells[reasonColumn] ?? '');
    probes.push({
      success: !/Failure/.test(cells[2]!),
      ...(id === undefined ? {} : { id }),
      ...(time === undefined ? {} : { at: Date.parse(time) }),
      ...(reason === '' ? {} : { reason }),
    });
  }
  const notes = ["read from the exporter's recent probes (its status page), which hold only its last probes; give a Prometheus URL for a longer history"];
  if (probes.length === 0) notes.push(`the exporter's recent probes hold none of ${target}`);
  const failedProbes = probes.filter((probe) => !probe.success);
  const reasons: Record<string, number> = {};
  for (const probe of failedProbes) {
    const reason = probe.reason ?? (probe.id === undefined ? 'failed' : reasonFromDebug(await getText(`${root}logs?id=${probe.id}`, 'the debug output of a probe')));
    reasons[reason] = (reasons[reason] ?? 0) + 1;
  }
  const times = failedProbes.map((probe) => probe.at).filter((at): at is number => at !== undefined);
  const first = times.length > 0 ? Math.min(...times) : undefined;
  const last = times.length > 0 ? Math.max(...times) : undefined;
  if (failedProbes.length > 0 && times.length === 0) notes.push('the exporter does not say when its probes ran; the logs are read over the whole window asked for');
  const runs: FailureRun[] =
    failedProbes.length === 0
      ? []
      : [
          {
            from: first === undefined ? 'unknown' : formatInstant(first, zone),
            to: last === undefined ? 'unknown' : formatInstant(last, zone),
            recovered: probes[0]?.success === true,
            probes: failedProbes.length,
            reasons,
          },
        ];
  return { source: `exporter ${displayUrl(base)}`, probes: probes.length, failed: failedProbes.length, runs, ...(first === undefined ? {} : { first, last: last! }), notes };
}

function checkedSourceUrl(given: string | undefined, configured: string | undefined, field: string, flag: string): string | undefined {
  if (given === undefined) return configured;
  if (configured !== undefined && given.replace(/\/$/, '') !== configured.replace(/\/$/, '')) {
    throw new SkillInputError([{ path: ['input', field], message: `this server reads probes from ${displayUrl(configured)} only (${flag}); leave ${field} out` }]);
  }
  return given;
}

const url = (what: string) =>
  z
    .string()
    .regex(/^https?:\/\/[^\s@]+$/, 'must be an http:// or https:// URL without credentials')
    .optional()
    .describe(what);
const when = (what: string, fallback: string) =>
  z
    .string()
    .refine((text) => resolveTime(text, Date.now()) !== undefined, { error: `must be ${TIME_HELP}` })
    .default(fallback)
    .describe(`${what}: date math or an absolute time; default ${fallback}`);

export const probeFailureLogs = defineSkill({
  name: 'probe_failure_logs',
  description:
    "Given a probe's target, find when its probes failed and why (from Prometheus, or the exporter's recent probes), then summarize the logs of the service behind the target around those failures.",
  input: z
    .object({
      target: z.string().min(1).describe('The target as the scrape job lists it (the instance label), e.g. https://checkout.example.com/health'),
      job: z.string().min(1).optional().describe('Scrape job, when the target is probed by several'),
      from: when('Start of the window to look for failures in', 'now-1h'),
      to: when('End of the window', 'now'),
      timeZone: z
        .string()
        .refine(isTimeZone, { error: `must be ${TIME_ZONE_HELP}` })
        .optional()
        .describe('Time zone of times written without one and of the answer; default UTC'),
      prometheusUrl: url("Prometheus that scrapes the exporter; default the server's --prometheus-url"),
      exporterUrl: url("The exporter, read when there is no Prometheus; default the server's --exporter-url"),
      index: z.string().min(1).optional().describe("Where the logs are; default the target rule's index, or the skills' default"),
      ...(Object.fromEntries(TARGET_LOG_FILTERS.map((name) => [name, z.string().min(1).optional().describe(`Log filter ${name}; overrides what the target maps to`)])) as Record<
        TargetLogFilter,
        z.ZodOptional<z.ZodString>
      >),
      level: z.enum(LOG_LEVELS).optional().describe('Only logs of this level; default all levels'),
      marginSeconds: z.number().int().min(0).max(86_400).default(120).describe('Logs are read from this long before the first failure to this long after the last'),
      top: z.number().int().min(1).max(MAX_PATTERNS).default(10).describe('How many log patterns to return'),
      maxMessageChars: z.number().int().min(20).max(MAX_MESSAGE_CHARS).default(DEFAULT_MESSAGE_CHARS),
      maxAnswerChars: z.number().int().min(1000).max(MAX_ANSWER_CHARS).default(DEFAULT_ANSWER_CHARS),
    })
    .strict(),
  async handler(input, context: SkillContext) {
    const now = Date.now();
    const zone = input.timeZone ?? 'UTC';
    const start = resolveTime(input.from, now, zone)!;
    const end = resolveTime(input.to, now, zone)!;
    if (start >= end) throw new SkillInputError([{ path: ['input', 'to'], message: 'the window ends before it starts; give a "to" after "from"' }]);
    if (end - start > MAX_SPAN_MS) throw new SkillInputError([{ path: ['input', 'from'], message: 'the window is longer than 7 days; narrow it' }]);
    const prometheus = checkedSourceUrl(input.prometheusUrl, context.settings.prometheusUrl, 'prometheusUrl', '--prometheus-url');
    const exporter = checkedSourceUrl(input.exporterUrl, context.settings.exporterUrl, 'exporterUrl', '--exporter-url');
    if (prometheus === undefined && exporter === undefined) {
      throw new SkillInputError([{ path: ['input', 'prometheusUrl'], message: 'give the Prometheus that scrapes the exporter (or exporterUrl), or start the server with --prometheus-url' }]);
    }

    const explicit = Object.fromEntries(TARGET_LOG_FILTERS.filter((name) => input[name] !== undefined).map((name) => [name, input[name]!]));
    const mapped = targetLogs(input.target, context.settings.targetLogs);
    if (mapped === undefined && Object.keys(explicit).length === 0) {
      throw new SkillInputError([
        {
          path: ['input', 'target'],
          message: `no rule says which logs belong to ${input.target}; give service, namespace, pod, container or host in the call, or start the server with a --target-logs rule for it`,
        },
      ]);
    }
    const history = prometheus !== undefined ? await fromPrometheus(prometheus, input.target, input.job, start, end, input.timeZone) : await fromExporter(exporter!, input.target, input.timeZone);
    const filters: LogFilters = { ...mapped?.filters, ...explicit, ...(input.level ? { level: input.level } : {}) };
    const index = input.index ?? mapped?.index ?? DEFAULT_LOG_INDEX;
    const base = {
      target: input.target,
      source: history.source,
      window: { from: formatInstant(start, input.timeZone), to: formatInstant(end, input.timeZone) },
      probes: history.probes,
      failedProbes: history.failed,
      failures: history.runs,
      logs: { index, filters, rule: Object.keys(explicit).length === 0 ? mapped!.rule : mapped === undefined ? 'the call' : `${mapped.rule}, with the call's filters` },
    };
    if (history.failed === 0) {
      return { ...base, notes: [...history.notes, 'no probe of this target failed in the window; no logs were read'] };
    }
    const margin = input.marginSeconds * 1000;
    const logFrom = history.first === undefined ? start : history.first - margin;
    const logTo = history.last === undefined ? end : history.last + margin + 1;
    const window = { from: new Date(logFrom).toISOString(), to: new Date(logTo).toISOString() };
    const target = await context.logTarget(index);
    const completeness = new CompletenessBuilder();
    for (const note of history.notes) completeness.note(note);
    unmatchableFilterNotes(target, filters, completeness);
    const levels = await searchLayouts<{
      timed_out: boolean;
      _shards: { total: number; successful: number; failed: number };
      hits: { total?: { value: number }; hits: unknown[] };
      aggregations?: { levels?: { buckets: { key: string; doc_count: number }[] } };
    }>(
      context.client,
      target,
      (layout) => ({ size: 0, track_total_hits: true, query: logQuery(layout.fields, layout.messageIsText, filters, window), aggs: { levels: { terms: { field: layout.fields.level, size: 50 } } } }),
      new CompletenessBuilder(),
    );
    const summary = await summarize(context, target, filters, window, { maxMessageChars: input.maxMessageChars, ...(input.timeZone ? { timeZone: input.timeZone } : {}) }, completeness);
    const answer = {
      ...base,
      logs: {
        ...base.logs,
        window: { from: formatInstant(logFrom, input.timeZone), to: formatInstant(logTo, input.timeZone) },
        total: levels.reduce((sum, { answer: a }) => sum + totalOf(a), 0),
        byLevel: byLevel(levels.flatMap(({ answer: a }) => a.aggregations?.levels?.buckets ?? [])),
        distinctPatterns: summary.patterns.length,
        ...completeness.build(summary.unclassified > 0),
        dataNotice: LOG_DATA_NOTICE,
        patterns: summary.patterns.slice(0, input.top),
      },
    };
    const fitted = fitToBudget(answer.logs, 'patterns', input.maxAnswerChars - JSON.stringify({ ...answer, logs: {} }).length, 'ask for fewer with "top", or raise maxAnswerChars');
    return { ...answer, logs: fitted };
  },
});
