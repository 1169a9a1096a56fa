/**
 * `probekit report`: uptime, incidents, probe durations, certificates and error budgets over a window, from the
 * Prometheus that scrapes probekit's jobs, as JSON, Markdown, a self-contained HTML page or a job's SVG badge.
 * Progress goes to stderr on a terminal; the report to stdout or --out.
 */
import { writeFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { DURATION_HINT, formatDuration, parseDuration } from '@probekit/exporter';
import { closestName, readSpecFile, SpecFileError } from '../model';
import { collectReport, prometheusApi, PrometheusFailure, renderBadge, renderHtml, renderMarkdown, type Report } from '../report';
import { CommandFailure, helpText, parseFlags, readSecret, usageLine, UsageError, type CliIo, type Command, type Flags } from './command';

export const REPORT_FORMATS = ['html', 'json', 'markdown', 'svg-badge'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The format a file's extension asks for. */
const BY_EXTENSION: Readonly<Record<string, ReportFormat>> = { '.html': 'html', '.htm': 'html', '.json': 'json', '.md': 'markdown', '.markdown': 'markdown', '.svg': 'svg-badge' };

const DEFAULT_WINDOW = '30d';

const FLAGS = {
  prometheus: { type: 'string', value: 'URL', required: true, help: "the base URL of the Prometheus that scrapes probekit's jobs (http://prometheus:9090)" },
  spec: { type: 'string', value: 'FILE', defaultText: 'the PROBEKIT_SPEC environment variable, if set', help: 'the spec whose jobs are reported, with their slo objectives' },
  job: { type: 'string', value: 'NAME', multiple: true, defaultText: "the spec's jobs, else every job Prometheus has probe_success of", help: 'only this job' },
  window: { type: 'string', value: 'D', or: 'from', defaultText: DEFAULT_WINDOW, help: `the window's length, ending at --to: ${DURATION_HINT.replace('5s, 1m30s or 500ms', '30d, 7d or 24h')}` },
  from: { type: 'string', value: 'T', help: "the window's start: RFC 3339 (2026-11-01T00:00:00Z) or Unix seconds" },
  to: { type: 'string', value: 'T', defaultText: 'now', help: "the window's end: RFC 3339 or Unix seconds" },
  format: { type: 'string', value: 'FORMAT', defaultText: "--out's extension (.html, .json, .md, .svg), else markdown", help: REPORT_FORMATS.join(', ') },
  out: { type: 'string', short: 'o', value: 'FILE', defaultText: 'stdout', help: 'the file the report is written to' },
  title: { type: 'string', value: 'TEXT', default: 'Uptime report', help: "the HTML page's heading" },
  header: { type: 'string', value: "'NAME: VALUE'", multiple: true, help: 'a header sent with every query (Authorization, X-Scope-OrgID)' },
  'bearer-token-file': { type: 'string', value: 'FILE', help: 'a file holding a bearer token sent as Authorization to Prometheus' },
  timeout: { type: 'string', value: 'D', default: '2m', help: 'how long Prometheus may take over one query' },
} as const satisfies Flags;

const HELP = helpText(
  usageLine('probekit report', FLAGS),
  FLAGS,
  `Reports each target's uptime over the window (Prometheus' avg_over_time of probe_success at its end), its
incidents (each run of failed probes, from the first failed sample to the first successful one after it), the
median and 95th percentile of its probe durations, its slowest phase, the days left on its certificate, and,
for a job with an slo in the spec, the error budget left. svg-badge draws one job's uptime as a badge (give
--job once). docs/report.md documents the JSON.`,
  "0 written; 1 Prometheus unreachable, refusing a query, or without probekit's series in the window; 2 a mistake in the command line or the spec",
);

/** A time as the user wrote it: RFC 3339 or Unix seconds, to whole seconds. */
function timeFlag(value: string, flag: string): number {
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?$/i.test(value) ? Date.parse(value) / 1000 : NaN;
  if (!Number.isFinite(seconds)) throw new UsageError(`--${flag} ${value}: give a time as RFC 3339 (2026-11-01T00:00:00Z) or Unix seconds`);
  return Math.floor(seconds);
}

/** The window's edges in whole Unix seconds, and its length as text. */
function chosenWindow(values: { window?: string; from?: string; to?: string }, now: number): { from: number; to: number; window: string } {
  const to = values.to === undefined ? Math.floor(now / 1000) : timeFlag(values.to, 'to');
  if (values.from !== undefined) {
    const from = timeFlag(values.from, 'from');
    if (from >= to) throw new UsageError(`--from ${values.from}: is not before --to (${new Date(to * 1000).toISOString()}); give a start before the end`);
    return { from, to, window: formatDuration((to - from) * 1000) };
  }
  const window = values.window ?? DEFAULT_WINDOW;
  const milliseconds = parseDuration(window);
  if (milliseconds === undefined || milliseconds < 1000 || milliseconds % 1000 !== 0)
    throw new UsageError(`--window ${window}: give whole seconds or more as ${DURATION_HINT.replace('5s, 1m30s or 500ms', '30d, 7d or 24h')}`);
  return { from: to - milliseconds / 1000, to, window };
}

/** The --header flags as a header map; a malformed one is named by its name only, never its value. */
function headers(io: CliIo, given: readonly string[], tokenFile: string | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const header of given) {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*)$/.exec(header);
    if (match === null || match[2] === '') {
      const name = header.split(':')[0]!.slice(0, 40);
      throw new UsageError(`--header ${name}...: write it as 'Name: value' (a header name, a colon, its value)`);
    }
    result[match[1]!.toLowerCase()] = match[2]!;
  }
  if (tokenFile !== undefined) {
    if (result.authorization !== undefined) throw new UsageError("--bearer-token-file and --header 'Authorization: ...' exclude each other: give one of them");
    result.authorization = `Bearer ${readSecret(io, 'bearer token', 'bearer-token-env', undefined, 'bearer-token-file', tokenFile)}`;
  }
  return result;
}

/**
 * The jobs to report, their objectives and their targets: the spec's (those named by --job, each checked), else
 * the --job names alone.
 */
function chosenJobs(io: CliIo, specFlag: string | undefined, named: readonly string[]): { jobs: string[]; slos: Record<string, number>; expected: Record<string, string[]> } {
  const file = specFlag ?? (io.env.PROBEKIT_SPEC === '' ? undefined : io.env.PROBEKIT_SPEC);
  if (file === undefined) return { jobs: [...named], slos: {}, expected: {} };
  let jobs;
  try {
    jobs = readSpecFile(file, { env: io.env, cwd: io.cwd, namedBy: specFlag === undefined ? `PROBEKIT_SPEC=${file}` : `--spec ${file}` }).spec.jobs;
  } catch (error) {
    throw error instanceof SpecFileError ? new UsageError(error.message) : error;
  }
  const all = jobs.map((job) => job.name);
  for (const name of named) {
    if (all.includes(name)) continue;
    const suggestion = closestName(name, all);
    throw new UsageError(`--job ${name}: the spec has no such job; ${suggestion ? `did you mean "${suggestion}"? ` : ''}its jobs are ${all.join(', ')}`);
  }
  const slos = Object.fromEntries(jobs.flatMap((job) => (job.slo === undefined ? [] : [[job.name, job.slo] as const])));
  const chosen = named.length > 0 ? [...named] : all;
  // A target's series carry it as their instance label (the seed's second relabel rule); discovered targets are not known here.
  const expected = Object.fromEntries(jobs.filter((job) => chosen.includes(job.name)).map((job) => [job.name, job.targets.map((target) => target.target)]));
  return { jobs: chosen, slos, expected };
}

function chosenFormat(format: string | undefined, out: string | undefined): ReportFormat {
  if (format !== undefined) {
    if (!(REPORT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format ${format}: give one of ${REPORT_FORMATS.join(', ')}`);
    return format as ReportFormat;
  }
  if (out === undefined) return 'markdown';
  const byExtension = BY_EXTENSION[extname(out).toLowerCase()];
  if (byExtension === undefined) throw new UsageError(`--out ${out}: its extension says no format; give --format (${REPORT_FORMATS.join(', ')}) or name the file .html, .json, .md or .svg`);
  return byExtension;
}

/** The report in the format asked for. */
export function renderReport(report: Report, format: ReportFormat, title: string): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'markdown':
      return renderMarkdown(report);
    case 'html':
      return renderHtml(report, { title });
    case 'svg-badge':
      return renderBadge(report, report.jobs[0]!);
  }
}

async function run(args: readonly string[], io: CliIo, now: () => number): Promise<number> {
  const { values } = parseFlags(args, FLAGS, HELP);
  const format = chosenFormat(values.format, values.out);
  if (format === 'svg-badge' && values.job?.length !== 1) throw new UsageError('--format svg-badge draws one job: give --job NAME once (run once per job for more badges)');
  const window = chosenWindow(values, now());
  const sent = headers(io, values.header ?? [], values['bearer-token-file']);
  const timeout = parseDuration(values.timeout);
  if (timeout === undefined || timeout < 1000 || timeout % 1000 !== 0)
    throw new UsageError(`--timeout ${values.timeout}: give whole seconds as ${DURATION_HINT.replace('5s, 1m30s or 500ms', '2m or 300s')}`);
  const timeoutSeconds = timeout / 1000;
  const { jobs, slos, expected } = chosenJobs(io, values.spec, values.job ?? []);
  let api;
  try {
    api = prometheusApi(values.prometheus!, { headers: sent, timeoutSeconds });
  } catch {
    throw new UsageError(`--prometheus ${values.prometheus}: not a URL; give Prometheus' base URL, such as http://prometheus:9090`);
  }

  const onTerminal = io.stderrIsTerminal === true;
  let report: Report;
  try {
    report = await collectReport(api, {
      ...window,
      jobs,
      slos,
      expected,
      progress: onTerminal ? (done, total) => io.stderr(`\rquerying ${api.shownUrl}: ${done} of ${total} queries`) : undefined,
    });
  } catch (error) {
    if (error instanceof PrometheusFailure) throw new CommandFailure(error.message);
    throw error;
  } finally {
    if (onTerminal) io.stderr('\n');
  }
  const text = renderReport(report, format, values.title);
  if (values.out === undefined) {
    io.stdout(text);
    return 0;
  }
  try {
    writeFileSync(resolve(io.cwd, values.out), text);
  } catch (error) {
    throw new CommandFailure(`cannot write ${values.out}: ${(error as NodeJS.ErrnoException).code ?? String(error)}; check that its folder exists and is writable`);
  }
  return 0;
}

export const reportCommand: Command = {
  summary: 'uptime, incidents and error budgets from Prometheus, as JSON, Markdown, an HTML page or a badge',
  usage: `usage: ${HELP}\n`,
  run: (args, io) => run(args, io, Date.now),
};
