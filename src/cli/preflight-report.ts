/**
 * What `probekit test` prints: one result per target, as a table for a person, JSON for a script, or JUnit XML
 * for a CI system, and the progress line of each finished target. Pure: results in, text out.
 */
import { describeFailure, type ProbeFailure, type ProbeSample, type TargetProbeResult } from '@probekit/exporter';
import { PROBE_METRICS } from '../render/probe-metrics';

/** What matters about a probe besides its result, per prober; each present when the probe got that far. */
export interface TargetDetails {
  readonly httpStatus?: number;
  readonly httpVersion?: string;
  readonly tlsVersion?: string;
  /** Days until the earliest certificate the server sent expires. */
  readonly certificateDaysLeft?: number;
  readonly dnsRcode?: string;
  readonly dnsAnswers?: number;
  readonly grpcServingStatus?: string;
  readonly icmpRoundTripMs?: number;
}

export interface TargetResult {
  readonly job: string;
  readonly target: string;
  readonly module: string;
  readonly prober: string;
  /** Not probed: the run was stopped (Ctrl-C) before its turn. */
  readonly skipped: boolean;
  readonly success: boolean;
  readonly durationSeconds: number;
  readonly failure?: ProbeFailure;
  /** For a failure that is no target's (`internal error`: the ICMP addon missing, say), what the probe's log says of it. */
  readonly note?: string;
  readonly details: TargetDetails;
}

export const OUTPUT_FORMATS = ['table', 'json', 'junit'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const SECONDS_PER_DAY = 86_400;

function sample(samples: readonly ProbeSample[], name: string, labels: Readonly<Record<string, string>> = {}): ProbeSample | undefined {
  return samples.find((candidate) => candidate.name === name && Object.entries(labels).every(([label, value]) => candidate.labels[label] === value));
}

/**
 * The details of a probe from its metrics (the ones /probe returns) and, for the DNS rcode, which no metric
 * carries, the `rcode` field the dns prober logs with the response. `now` is in Unix seconds.
 */
export function probeDetails(prober: string, probe: Pick<TargetProbeResult, 'samples' | 'log'>, now: number): TargetDetails {
  const { samples } = probe;
  const details: { -readonly [K in keyof TargetDetails]: TargetDetails[K] } = {};
  const status = sample(samples, PROBE_METRICS.httpStatusCode)?.value;
  if (status !== undefined && status > 0) details.httpStatus = status;
  const version = sample(samples, PROBE_METRICS.httpVersion)?.value;
  if (version !== undefined && version > 0) details.httpVersion = `HTTP/${version.toFixed(1)}`;
  const tls = samples.find((candidate) => candidate.name === PROBE_METRICS.tlsVersion && candidate.value === 1);
  if (tls?.labels.version) details.tlsVersion = tls.labels.version;
  const expiry = sample(samples, PROBE_METRICS.certificateExpiry)?.value;
  if (tls && expiry !== undefined && expiry > 0) details.certificateDaysLeft = Math.floor((expiry - now) / SECONDS_PER_DAY);
  if (prober === 'dns') {
    const rcode = probe.log.map((entry) => entry.fields.rcode).find((value) => typeof value === 'string');
    if (typeof rcode === 'string') details.dnsRcode = rcode;
    const answers = sample(samples, PROBE_METRICS.dnsAnswerRecords)?.value;
    if (answers !== undefined && rcode !== undefined) details.dnsAnswers = answers;
  }
  const serving = samples.find((candidate) => candidate.name === PROBE_METRICS.grpcHealthResponse && candidate.value === 1);
  if (serving?.labels.serving_status) details.grpcServingStatus = serving.labels.serving_status;
  if (prober === 'icmp') {
    const rtt = sample(samples, PROBE_METRICS.icmpPhaseDuration, { phase: 'rtt' })?.value;
    if (rtt !== undefined && rtt > 0) details.icmpRoundTripMs = rtt * 1000;
  }
  return details;
}

/**
 * What the probe's log says of an internal error, which is the exporter's or its install's and not the target's:
 * its first error line's cause (the line's `err`, else the line itself). Undefined for any other outcome.
 */
export function internalErrorNote(probe: Pick<TargetProbeResult, 'failure' | 'log'>): string | undefined {
  if (probe.failure?.reason !== 'internal error') return undefined;
  const line = probe.log.find((entry) => entry.level === 'error');
  if (line === undefined) return undefined;
  return typeof line.fields.err === 'string' ? line.fields.err : line.message;
}

/** The details in words: `HTTP 200 HTTP/1.1, TLS 1.3, certificate 89 days`. */
export function detailsText(details: TargetDetails): string {
  const parts: string[] = [];
  if (details.httpStatus !== undefined) parts.push(`HTTP ${details.httpStatus}${details.httpVersion ? ` ${details.httpVersion}` : ''}`);
  if (details.tlsVersion !== undefined) parts.push(details.tlsVersion);
  if (details.certificateDaysLeft !== undefined) parts.push(`certificate ${counted(details.certificateDaysLeft, 'day')}`);
  if (details.dnsRcode !== undefined) parts.push(`${details.dnsRcode}, ${counted(details.dnsAnswers ?? 0, 'answer')}`);
  if (details.grpcServingStatus !== undefined) parts.push(details.grpcServingStatus);
  if (details.icmpRoundTripMs !== undefined) parts.push(`round trip ${durationText(details.icmpRoundTripMs / 1000)}`);
  return parts.join(', ');
}

function resultWord(result: TargetResult): string {
  if (result.skipped) return 'skipped';
  return result.success ? 'ok' : 'FAIL';
}

/**
 * A duration for a person: milliseconds to three significant figures (`0.423 ms`, `12.3 ms`, `456 ms`, whole from
 * 100 ms on), and from 10 s on seconds to three (`12.3 s`, `125 s`).
 */
export function durationText(seconds: number): string {
  const milliseconds = seconds * 1000;
  if (milliseconds >= 10_000) return `${seconds >= 100 ? Math.round(seconds) : Number(seconds.toPrecision(3))} s`;
  if (milliseconds >= 100 || milliseconds === 0) return `${Math.round(milliseconds)} ms`;
  return `${Number(milliseconds.toPrecision(3))} ms`;
}

/** `1 answer`, `2 answers`, `0 answers`. */
function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

function reasonText(result: TargetResult): string {
  if (result.skipped) return 'not run: stopped';
  if (!result.failure) return '';
  return result.note === undefined ? describeFailure(result.failure) : `${describeFailure(result.failure)}: ${result.note}`;
}

/** One line per finished target, for a log or a terminal that is not one. */
export function progressLine(result: TargetResult, done: number, total: number): string {
  const reason = reasonText(result);
  return `[${done}/${total}] ${resultWord(result)} ${result.job} ${result.target} ${durationText(result.durationSeconds)}${reason ? ` ${reason}` : ''}\n`;
}

const BAR_WIDTH = 30;

/** The progress bar of a terminal, redrawn in place. */
export function progressBar(done: number, total: number, failed: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
  return `\r[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total}${failed > 0 ? `, ${failed} failed` : ''}`;
}

export interface Summary {
  readonly total: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly skipped: number;
  readonly seconds: number;
}

export function summarize(results: readonly TargetResult[], seconds: number): Summary {
  const skipped = results.filter((result) => result.skipped).length;
  const succeeded = results.filter((result) => result.success).length;
  return { total: results.length, succeeded, failed: results.length - succeeded - skipped, skipped, seconds };
}

export function tableText(results: readonly TargetResult[], summary: Summary): string {
  const header = ['JOB', 'TARGET', 'MODULE', 'RESULT', 'DURATION', 'DETAILS', 'REASON'];
  const rows = results.map((result) => [
    result.job,
    result.target,
    result.module,
    resultWord(result),
    result.skipped ? '-' : durationText(result.durationSeconds),
    detailsText(result.details),
    reasonText(result),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: readonly string[]): string =>
    `${cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd()}\n`;
  const skipped = summary.skipped > 0 ? `, ${summary.skipped} not run` : '';
  return `${line(header)}${rows.map(line).join('')}\n${counted(summary.total, 'target')}: ${summary.succeeded} ok, ${summary.failed} failed${skipped} in ${durationText(summary.seconds)}\n`;
}

export function jsonText(results: readonly TargetResult[], summary: Summary): string {
  return `${JSON.stringify({ summary, results }, null, 2)}\n`;
}

/** Characters XML 1.0 cannot hold at all, even escaped: removed from text that came from outside. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xml(text: string): string {
  return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/**
 * JUnit XML as CI systems read it (Jenkins, GitLab, GitHub's test reporters): a test suite per job, a test case
 * per target, a failure with the reason as its message and type, a target not run as skipped.
 */
export function junitText(results: readonly TargetResult[], summary: Summary): string {
  const jobs = [...new Set(results.map((result) => result.job))];
  const suites = jobs.map((job) => {
    const cases = results.filter((result) => result.job === job);
    const failures = cases.filter((result) => !result.success && !result.skipped).length;
    const skipped = cases.filter((result) => result.skipped).length;
    const time = cases.reduce((sum, result) => sum + result.durationSeconds, 0);
    const body = cases.map((result) => {
      const open = `    <testcase classname="${xml(job)}" name="${xml(result.target)}" time="${result.durationSeconds.toFixed(3)}">`;
      const details = detailsText(result.details);
      if (result.skipped) return `${open}\n      <skipped message="not run: stopped"/>\n    </testcase>`;
      if (result.success) return `${open}\n      <system-out>${xml(`module ${result.module}${details ? `: ${details}` : ''}`)}</system-out>\n    </testcase>`;
      const reason = reasonText(result);
      return `${open}\n      <failure message="${xml(reason)}" type="${xml(result.failure?.reason ?? '')}">${xml(`module ${result.module}: ${reason}${details ? `; ${details}` : ''}`)}</failure>\n    </testcase>`;
    });
    return `  <testsuite name="${xml(job)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time.toFixed(3)}">\n${body.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="probekit test" tests="${summary.total}" failures="${summary.failed}" errors="0" skipped="${summary.skipped}" time="${summary.seconds.toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

export function reportText(format: OutputFormat, results: readonly TargetResult[], summary: Summary): string {
  switch (format) {
    case 'table':
      return tableText(results, summary);
    case 'json':
      return jsonText(results, summary);
    case 'junit':
      return junitText(results, summary);
  }
}
