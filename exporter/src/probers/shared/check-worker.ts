/**
 * Running a probe's checks (./checks.ts): the body regexps or CEL expressions, the header regexps, a dns
 * probe's record validators, query_response's `expect` on a line, as upstream runs them, with their log lines
 * recorded and sent back with the verdict. A check costs what the target's text makes it cost; on a check thread
 * it can be stopped at the probe's deadline by ending the thread, and its memory is the thread's own, bounded.
 * The same code runs a check in the probe's own thread when ./checks.ts finds it small enough.
 *
 * Only plain data crosses between threads, so on a check thread the checks come as the text they were written as
 * and are compiled once per text (the config loader checked they compile).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compileCel, type CelProgram } from '../../config/cel';
import { compileGoRegexp, type GoRegexp } from '../../config/regexp';
import type { ProbeLogger } from '../types';
import { CHECK_CANCELLED, CHECK_MATCHING, CHECK_ROLE, type CheckAnswer, type CheckJob, type CheckMessage, type CheckResult, type LoggedLine, type RecordValidatorJob } from './check-messages';

/** The compiled form of a regexp or CEL expression, by its text. */
export interface CompiledChecks {
  regexp(source: string): GoRegexp;
  cel(source: string): CelProgram;
}

/** Upstream's body regexps: any fail_if_body_matches_regexp matching, or any fail_if_body_not_matches_regexp not matching, fails. */
function bodyRegexpsPass(body: string, job: Extract<CheckJob, { kind: 'body-regexps' }>, compiled: CompiledChecks, logger: ProbeLogger): boolean {
  for (const source of job.failIfMatches) {
    if (compiled.regexp(source).test(body)) {
      logger.error('Body matched regular expression', { regexp: source });
      return false;
    }
  }
  for (const source of job.failIfNotMatches) {
    if (!compiled.regexp(source).test(body)) {
      logger.error('Body did not match regular expression', { regexp: source });
      return false;
    }
  }
  return true;
}

/**
 * Upstream's CEL checks: the body must parse as JSON and each expression must give a boolean; the probe
 * fails when fail_if_body_json_matches_cel is true or fail_if_body_json_not_matches_cel is false.
 */
function celPasses(body: string, job: Extract<CheckJob, { kind: 'cel' }>, compiled: CompiledChecks, logger: ProbeLogger): boolean {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    logger.error('Error unmarshalling HTTP body to JSON', { err: (error as Error).message });
    return false;
  }
  for (const [source, failWhen] of [
    [job.failIfMatches, true],
    [job.failIfNotMatches, false],
  ] as const) {
    if (source === undefined) continue;
    const outcome = compiled.cel(source).evaluate(json);
    if (!outcome.ok) {
      logger.error('Error evaluating CEL expression', { expression: source, err: outcome.problem });
      return false;
    }
    if (outcome.value === failWhen) {
      logger.error(failWhen ? 'Body matched CEL expression' : 'Body did not match CEL expression', { expression: source });
      return false;
    }
  }
  return true;
}

/** Upstream's header checks: a listed header missing fails unless allow_missing; then the regexps decide. */
function headersPass(job: Extract<CheckJob, { kind: 'headers' }>, compiled: CompiledChecks, logger: ProbeLogger): boolean {
  for (const check of job.checks) {
    const wanted = check.header.toLowerCase();
    const values = job.headers.filter(([name]) => name === wanted).map(([, value]) => value);
    if (values.length === 0) {
      if (check.allowMissing) continue;
      logger.error('Missing required header', { header: check.header });
      return false;
    }
    const matched = values.some((value) => compiled.regexp(check.regexp).test(value));
    if (matched === check.failWhenMatched) {
      logger.error(check.failWhenMatched ? 'Header matched regular expression' : 'Header did not match regular expression', { header: check.header, regexp: check.regexp });
      return false;
    }
  }
  return true;
}

/**
 * One dns validator over a section's records, as upstream: fail_if_matches_regexp fails on any record
 * matching; fail_if_not_matches_regexp on any record not matching; fail_if_none_matches_regexp when no
 * record matches. fail_if_all_match_regexp fails when some record does NOT match, despite its name: that
 * is what blackbox_exporter has always done, and configs written for it rely on it (see docs/probers.md, "dns").
 * fail_if_not_matches_regexp and fail_if_none_matches_regexp also fail when there are no records.
 */
function validRecords(records: readonly string[], validator: RecordValidatorJob | undefined, compiled: CompiledChecks, logger: ProbeLogger): boolean {
  if (!validator) return true;
  const { failIfMatches, failIfAllMatch, failIfNotMatches, failIfNoneMatches } = validator;
  const test = (source: string, text: string): boolean => compiled.regexp(source).test(text);
  if (records.length === 0 && failIfNotMatches.length > 0) {
    logger.error('fail_if_not_matches_regexp specified but no RRs returned');
    return false;
  }
  if (records.length === 0 && failIfNoneMatches.length > 0) {
    logger.error('fail_if_none_matches_regexp specified but no RRs returned');
    return false;
  }
  let allMatch = true;
  let anyMatch = false;
  for (const text of records) {
    logger.debug('Validating RR', { rr: text });
    for (const source of failIfMatches) {
      if (test(source, text)) {
        logger.error('At least one RR matched regexp', { regexp: source, rr: text });
        return false;
      }
    }
    for (const source of failIfAllMatch) if (!test(source, text)) allMatch = false;
    for (const source of failIfNotMatches) {
      if (!test(source, text)) {
        logger.error('At least one RR did not match regexp', { regexp: source, rr: text });
        return false;
      }
    }
    for (const source of failIfNoneMatches) if (test(source, text)) anyMatch = true;
  }
  if (failIfAllMatch.length > 0 && !allMatch) {
    logger.error('Not all RRs matched a fail_if_all_match_regexp regexp');
    return false;
  }
  if (failIfNoneMatches.length > 0 && !anyMatch) {
    logger.error('None of the RRs matched any fail_if_none_matches_regexp regexp');
    return false;
  }
  return true;
}

/** A dns response's sections in upstream's order; the first whose records a validator refuses fails the probe. */
function sectionsPass(job: Extract<CheckJob, { kind: 'records' }>, compiled: CompiledChecks, logger: ProbeLogger): boolean {
  for (const { section, records, validator } of job.sections) {
    logger.debug(`Validating ${section} RRs`);
    if (!validRecords(records, validator, compiled, logger)) {
      logger.error(`${section} RRs validation failed`);
      return false;
    }
  }
  return true;
}

const bodyText = (body: Uint8Array): string => Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');

/** Runs one job with `compiled`'s regexps and expressions, writing its log lines to `logger`. */
export function runCheck(job: CheckJob, compiled: CompiledChecks, logger: ProbeLogger): CheckResult {
  switch (job.kind) {
    case 'body-regexps':
      return { passed: bodyRegexpsPass(bodyText(job.body), job, compiled, logger), lines: [] };
    case 'cel':
      return { passed: celPasses(bodyText(job.body), job, compiled, logger), lines: [] };
    case 'headers':
      return { passed: headersPass(job, compiled, logger), lines: [] };
    case 'records':
      return { passed: sectionsPass(job, compiled, logger), lines: [] };
    case 'expect': {
      const match = compiled.regexp(job.regexp).match(job.line);
      return match ? { passed: true, match, lines: [] } : { passed: false, lines: [] };
    }
  }
}

/** A logger that records its lines, for a check run where the probe's own logger is not. */
export function recordingLogger(): { logger: ProbeLogger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const record =
    (level: LoggedLine['level']) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields: fields ?? {} });
    };
  return { logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') }, lines };
}

/** Compiled checks by their text. A config's checks are few; a long run of reloads may add more, so the cache starts over past this. */
const MOST_CACHED = 1000;

function cached<T>(cache: Map<string, T>, compile: (source: string) => T): (source: string) => T {
  return (source) => {
    let compiled = cache.get(source);
    if (compiled === undefined) {
      if (cache.size >= MOST_CACHED) cache.clear();
      compiled = compile(source);
      cache.set(source, compiled);
    }
    return compiled;
  };
}

/** A check thread's compiled checks: each text compiled at its first use here, and kept. */
const threadCompiled: CompiledChecks = { regexp: cached(new Map(), compileGoRegexp), cel: cached(new Map(), compileCel) };

/** The regexps and CEL expressions a job uses. */
function sourcesOf(job: CheckJob): { regexps: string[]; cel: string[] } {
  switch (job.kind) {
    case 'body-regexps':
      return { regexps: [...job.failIfMatches, ...job.failIfNotMatches], cel: [] };
    case 'cel':
      return { regexps: [], cel: [job.failIfMatches, job.failIfNotMatches].filter((source) => source !== undefined) };
    case 'headers':
      return { regexps: job.checks.map((check) => check.regexp), cel: [] };
    case 'records':
      return { regexps: job.sections.flatMap(({ validator }) => (validator ? Object.values(validator).flat() : [])), cel: [] };
    case 'expect':
      return { regexps: [job.regexp], cel: [] };
  }
}

/**
 * Runs a job as a check thread does: its checks compiled here first, then, unless `state` says the pool gave the
 * job up meanwhile (CHECK_CANCELLED), run, its log lines recorded and sent back.
 */
export function runCheckMessage(message: CheckMessage, state?: Int32Array): CheckAnswer {
  const { regexps, cel } = sourcesOf(message);
  for (const source of regexps) threadCompiled.regexp(source).compile();
  for (const source of cel) threadCompiled.cel(source);
  if (state && Atomics.compareExchange(state, 0, 0, CHECK_MATCHING) === CHECK_CANCELLED) return { id: message.id, passed: false, lines: [] };
  const { logger, lines } = recordingLogger();
  const result = runCheck(message, threadCompiled, logger);
  return { ...result, id: message.id, lines };
}

if (parentPort && (workerData as { role?: string } | null)?.role === CHECK_ROLE) {
  const port = parentPort;
  const { state } = workerData as { state: Int32Array };
  port.on('message', (message: CheckMessage) => port.postMessage(runCheckMessage(message, state)));
}
