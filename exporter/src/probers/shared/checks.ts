/**
 * Where a probe's checks run: the regexps and CEL expressions a config writes, over the text a target sends
 * (a body, headers, a line of a tcp dialogue, dns records). What a check costs is the target's to decide: a CEL
 * expression quadratic in a list of 5,000 elements took 45 s of the serving thread against a 3 s timeout, a 70 KB
 * alternation over a 40 KB header 20 s. So a check runs in the probe's own thread only when its cost is provably
 * small (INLINE_CHECK_BUDGET), and otherwise on a check thread that can be stopped: a check still running at the
 * probe's deadline has its thread ended, so the probe fails at its deadline and the thread that serves /probe and
 * /-/healthy never waits on a check. Each thread's heap is bounded: a text whose checks need more fails its probe,
 * not the exporter. Cheap checks (a header against `^2\d\d$`) never wait for a thread.
 *
 * One pool per process (a probe worker thread has its own): a few threads (the CPUs' worth, at least 2, at most
 * 4), started as checks come and ended after a while idle, all but one; a check waits for a free thread within its
 * own deadline. A thread compiles each regexp and expression at its first use and keeps it; a deadline that comes
 * while the thread still compiles (a cost the config decides, not the target) lets the compile finish and skips
 * the matching, so the next probe finds it compiled.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Pattern } from '../../config/regexp';
import type { FailureReason } from '../../contract/failure-reasons';
import { beforeDeadline } from './deadline';
import { failedBecause, failureOf, passedOr } from './failure';
import type { ProbeDeadline, ProbeLogger, ProbeOutcome } from '../types';
import { CHECK_CANCELLED, CHECK_MATCHING, CHECK_ROLE, type CheckAnswer, type CheckJob, type CheckMessage, type CheckResult } from './check-messages';
import { runCheck } from './check-worker';

/** The heap one check thread may use, in MiB: a 4 MiB body of small JSON objects takes about 130 MiB in CEL, and fails at this. */
export const CHECK_HEAP_MIB = 64;

/**
 * The most a check may cost to run in the probe's own thread: RE2's program size (instructions) of its regexps
 * times the length of the text they read. RE2 matches in at most a constant times that; re2js's constant, measured
 * here on the worst patterns found (alternations whose branches all stay alive, ../../loopback/costly-regexp.ts),
 * is 2 to 25 ns, so a check under this budget holds the thread 100 ms at the most, and ordinary ones well under a
 * millisecond: `^2\d\d$` on a header is some 10 × 3, `ok|healthy` on a 64 KB body 10 × 65,536, a 20-instruction
 * validator over 45 KB of TXT records 20 × 45,000.
 * CEL's cost is not bounded by its text's length (an expression may be quadratic in the body): it always runs on
 * a check thread.
 */
export const INLINE_CHECK_BUDGET = 4_000_000;

const MOST_THREADS = Math.min(4, Math.max(2, availableParallelism()));
/** How long a thread beyond the first stays idle before it ends. */
const IDLE_MS = 30_000;

/** A check whose thread ran out of its heap (CHECK_HEAP_MIB). */
export class CheckOutOfMemory extends Error {
  constructor() {
    super(`the checks needed more than the ${CHECK_HEAP_MIB} MiB of memory a check may use`);
  }
}

interface Pending {
  readonly message: CheckMessage;
  settle(result: CheckResult): void;
  fail(error: Error): void;
  thread?: Thread;
}

interface Thread {
  readonly worker: Worker;
  /** Where the thread says it is matching (CHECK_MATCHING) and this one that it need not (CHECK_CANCELLED): one Int32. */
  readonly state: Int32Array;
  job?: Pending;
  /** A job given up at its deadline while the thread still compiled: the thread is busy until it answers. */
  draining?: boolean;
  idleTimer?: NodeJS.Timeout;
}

const threads = new Set<Thread>();
const idle: Thread[] = [];
const queue: Pending[] = [];
let nextId = 0;

/**
 * What a thread runs: the bundle itself (one file, whose entry points start ./check-worker.ts for this role), or
 * from source (tests, tsx) that file with tsx's TypeScript loader first.
 */
function workerSource(): string {
  if (!__filename.endsWith('.ts')) return `require(${JSON.stringify(__filename)});`;
  return `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(join(__dirname, 'check-worker.ts'))});`;
}

function spawn(): Thread {
  const state = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(workerSource(), { eval: true, workerData: { role: CHECK_ROLE, state }, resourceLimits: { maxOldGenerationSizeMb: CHECK_HEAP_MIB } });
  const thread: Thread = { worker, state };
  threads.add(thread);
  worker.on('message', (answer: CheckAnswer) => {
    if (thread.draining) {
      thread.draining = false;
      return release(thread);
    }
    const job = thread.job;
    if (job?.message.id !== answer.id) return;
    thread.job = undefined;
    job.settle(answer);
    release(thread);
  });
  worker.on('error', (error: Error & { code?: string }) => end(thread, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new CheckOutOfMemory() : error));
  worker.on('exit', (code) => end(thread, new Error(`the check's thread stopped (exit code ${code})`)));
  return thread;
}

/** The thread is gone (or going): its job fails with `error`, and waiting jobs go to the others. */
function end(thread: Thread, error: Error): void {
  if (!threads.delete(thread)) return;
  clearTimeout(thread.idleTimer);
  const index = idle.indexOf(thread);
  if (index !== -1) idle.splice(index, 1);
  const job = thread.job;
  thread.job = undefined;
  job?.fail(error);
  void thread.worker.terminate();
  dispatch();
}

function assign(thread: Thread, job: Pending): void {
  clearTimeout(thread.idleTimer);
  thread.job = job;
  job.thread = thread;
  Atomics.store(thread.state, 0, 0);
  // A thread at work keeps the process up (`probekit test` awaits it); an idle one does not.
  thread.worker.ref();
  thread.worker.postMessage(job.message);
}

function release(thread: Thread): void {
  thread.worker.unref();
  const next = queue.shift();
  if (next) return assign(thread, next);
  idle.push(thread);
  thread.idleTimer = setTimeout(() => {
    if (threads.size > 1 && idle.includes(thread)) end(thread, new Error('idle'));
  }, IDLE_MS).unref();
}

function dispatch(): void {
  while (queue.length > 0 && (idle.length > 0 || threads.size < MOST_THREADS)) assign(idle.pop() ?? spawn(), queue.shift()!);
}

/** What each probe's deadline stopped, for its failure's detail: a prober's own wait on the deadline may answer first. */
const stopped = new WeakMap<AbortSignal, string>();

/**
 * The check's words for the probe's log and failure when the deadline stopped it (`what` is plural: "the header
 * regexps"), or undefined.
 */
export function stoppedCheck(deadline: ProbeDeadline): string | undefined {
  return stopped.get(deadline.signal);
}

/**
 * Runs `job` on a check thread and resolves with its verdict and log lines. At the deadline (or when the probe
 * is interrupted) it rejects as every phase does (DeadlineExceeded, phase `check`): a thread matching it is
 * ended, one still compiling finishes its compile and skips the rest; a thread that runs out of its heap
 * rejects it with CheckOutOfMemory.
 */
function onCheckThread(job: CheckJob, deadline: ProbeDeadline): Promise<CheckResult> {
  const running = new Promise<CheckResult>((resolve, reject) => {
    const { signal } = deadline;
    const stop = (): void => {
      const thread = pending.thread;
      if (thread?.job !== pending) {
        const index = queue.indexOf(pending);
        if (index !== -1) queue.splice(index, 1);
        return reject(new Error('stopped at the deadline'));
      }
      if (Atomics.compareExchange(thread.state, 0, 0, CHECK_CANCELLED) === CHECK_MATCHING) return end(thread, new Error('stopped at the deadline'));
      // Still compiling: it will answer without matching, and is free again then.
      thread.job = undefined;
      thread.draining = true;
      reject(new Error('stopped at the deadline'));
    };
    const pending: Pending = {
      message: { ...job, id: (nextId += 1) },
      settle: (result) => {
        signal.removeEventListener('abort', stop);
        resolve(result);
      },
      fail: (error) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    };
    if (signal.aborted) return reject(new Error('stopped at the deadline'));
    signal.addEventListener('abort', stop, { once: true });
    queue.push(pending);
    dispatch();
  });
  return beforeDeadline(deadline, 'check', running);
}

/** What running `patterns` over `textLength` characters may cost, or undefined when some was not compiled in this thread. */
function inlineCost(patterns: readonly Pattern[], textLength: number): number | undefined {
  let instructions = 0;
  for (const { regexp } of new Set(patterns)) {
    if (!regexp.compiledHere) return undefined;
    instructions += regexp.programSize();
  }
  return instructions * textLength;
}

/** The regexps a check uses, compiled in this thread, and the length of all the text they may read. */
export interface InlineCheck {
  readonly patterns: readonly Pattern[];
  readonly textLength: number;
}

/**
 * Runs `job`: here, when `inline` says its regexps and text and their cost is within INLINE_CHECK_BUDGET, else on a
 * check thread under the probe's deadline. Its log lines go to `logger` either way. Rejects as onCheckThread does;
 * a deadline that stopped it is said in the log (`what`: the checks' name, plural) and kept for stoppedCheck.
 */
export async function runChecks(job: CheckJob, inline: InlineCheck | undefined, deadline: ProbeDeadline, logger: ProbeLogger, what: string): Promise<CheckResult> {
  const cost = inline && inlineCost(inline.patterns, inline.textLength);
  if (inline && cost !== undefined && cost <= INLINE_CHECK_BUDGET) {
    const compiled = new Map(inline.patterns.map((pattern) => [pattern.source, pattern.regexp]));
    return runCheck(
      job,
      {
        regexp: (source) => compiled.get(source)!,
        cel: () => {
          throw new Error('CEL runs on a check thread');
        },
      },
      logger,
    );
  }
  logger.debug('Checks sent to a check thread', { check: what, ...(cost === undefined ? {} : { cost, inline_budget: INLINE_CHECK_BUDGET }) });
  // Said as the deadline fires: the prober's own wait on the deadline may answer before this one.
  const onDeadline = (): void => void stopped.set(deadline.signal, `the ${what} were still running at the deadline, and were stopped`);
  deadline.signal.addEventListener('abort', onDeadline, { once: true });
  try {
    const result = await onCheckThread(job, deadline);
    for (const line of result.lines) logger[line.level](line.message, line.fields);
    return result;
  } catch (error) {
    if (deadline.signal.aborted && !(error instanceof CheckOutOfMemory)) logger.error('Check stopped at the deadline', { check: what, err: error as Error });
    throw error;
  } finally {
    deadline.signal.removeEventListener('abort', onDeadline);
  }
}

/**
 * A check's outcome: passed, or failed for `reason` (its log line written by the check). A check stopped at the
 * deadline fails the probe as a timeout saying what was still running; one out of its memory fails it for `reason`,
 * saying so.
 */
export async function checkOutcome(job: CheckJob, inline: InlineCheck | undefined, deadline: ProbeDeadline, logger: ProbeLogger, reason: FailureReason, what: string): Promise<ProbeOutcome> {
  try {
    return passedOr((await runChecks(job, inline, deadline, logger, what)).passed, reason);
  } catch (error) {
    return checkFailure(error, deadline, logger, reason, what);
  }
}

/** The outcome of a check that threw: see checkOutcome. */
export function checkFailure(error: unknown, deadline: ProbeDeadline, logger: ProbeLogger, reason: FailureReason, what: string): ProbeOutcome {
  if (error instanceof CheckOutOfMemory) {
    logger.error('Check ran out of memory', { check: what, err: error });
    return failedBecause(reason, error.message);
  }
  const outcome = failureOf(error, 'internal error');
  if (!outcome.success && outcome.reason === 'internal error') logger.error('Check failed', { check: what, err: error as Error });
  return withStoppedCheck(outcome, deadline);
}

/** A timeout's outcome with what the deadline stopped (stoppedCheck) as its detail, when a check was stopped. */
export function withStoppedCheck(outcome: ProbeOutcome, deadline: ProbeDeadline): ProbeOutcome {
  const detail = stoppedCheck(deadline);
  return !outcome.success && outcome.reason === 'timed out' && detail !== undefined ? { ...outcome, detail } : outcome;
}
