/**
 * The thread that runs body checks (./body-checks.ts): the body regexps or the CEL expressions of one probe on
 * its body, as upstream runs them, with their log lines recorded and sent back with the verdict. A check costs
 * what the body makes it cost (a CEL expression quadratic in a list the target sends); here it can be stopped
 * at the probe's deadline by ending the thread, and its memory is the thread's own, bounded.
 *
 * Only plain data crosses between threads, so the checks come as the text they were written as and are
 * compiled here once per text (the config loader checked they compile).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { compileCel, type CelProgram } from '../../config/cel';
import { compileGoRegexp, type GoRegexp } from '../../config/regexp';
import type { ProbeLogger } from '../types';
import { BODY_CHECK_ROLE, type BodyCheckJob, type BodyCheckResult, type LoggedLine } from './body-check-messages';

/** Compiled checks by their text. A config's checks are few; a long run of reloads may add more, so the cache starts over past this. */
const MOST_CACHED = 1000;
const regexps = new Map<string, GoRegexp>();
const programs = new Map<string, CelProgram>();

function cached<T>(cache: Map<string, T>, source: string, compile: (source: string) => T): T {
  let compiled = cache.get(source);
  if (compiled === undefined) {
    if (cache.size >= MOST_CACHED) cache.clear();
    compiled = compile(source);
    cache.set(source, compiled);
  }
  return compiled;
}

/** Upstream's body regexps: any fail_if_body_matches_regexp matching, or any fail_if_body_not_matches_regexp not matching, fails. */
function regexpsPass(body: string, job: Extract<BodyCheckJob, { kind: 'regexps' }>, logger: ProbeLogger): boolean {
  for (const source of job.failIfMatches) {
    if (cached(regexps, source, compileGoRegexp).test(body)) {
      logger.error('Body matched regular expression', { regexp: source });
      return false;
    }
  }
  for (const source of job.failIfNotMatches) {
    if (!cached(regexps, source, compileGoRegexp).test(body)) {
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
function celPasses(body: string, job: Extract<BodyCheckJob, { kind: 'cel' }>, logger: ProbeLogger): boolean {
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
    const outcome = cached(programs, source, compileCel).evaluate(json);
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

/** Runs one job; its log lines are recorded for the probe's own logger. */
export function runBodyCheck(job: BodyCheckJob): BodyCheckResult {
  const lines: LoggedLine[] = [];
  const record =
    (level: LoggedLine['level']) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields: fields ?? {} });
    };
  const logger: ProbeLogger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).toString('utf8');
  const passed = job.kind === 'regexps' ? regexpsPass(body, job, logger) : celPasses(body, job, logger);
  return { id: job.id, passed, lines };
}

if (parentPort && (workerData as { role?: string } | null)?.role === BODY_CHECK_ROLE) {
  const port = parentPort;
  port.on('message', (job: BodyCheckJob) => port.postMessage(runBodyCheck(job)));
}
