/**
 * Body regexps and CEL expressions run off the thread that serves and probes, in threads that can be stopped:
 * what a check costs is decided by the body a target sends (a CEL expression quadratic in a list of 5,000
 * elements took 45 s of this thread against a 3 s timeout, then reported success). A check still running at the
 * probe's deadline has its thread ended, so the probe fails at its deadline and the thread that serves /probe
 * and /-/healthy never waits on a check. Each thread's heap is bounded: a body whose checks need more fails
 * its probe, not the exporter.
 *
 * A few threads are kept (the CPUs' worth, at least 2, at most 4), started as checks come and ended after a
 * while idle, all but one; a check waits for a free thread within its own deadline.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { beforeDeadline } from '../shared/deadline';
import type { ProbeDeadline } from '../types';
import { BODY_CHECK_ROLE, type BodyCheckJob, type BodyCheckResult } from './body-check-messages';

/** The heap one check thread may use, in MiB: a 4 MiB body of small JSON objects takes about 130 MiB in CEL, and fails at this. */
export const BODY_CHECK_HEAP_MIB = 64;
const MOST_THREADS = Math.min(4, Math.max(2, availableParallelism()));
/** How long a thread beyond the first stays idle before it ends. */
const IDLE_MS = 30_000;

/** A check whose thread ran out of its heap (BODY_CHECK_HEAP_MIB). */
export class BodyCheckOutOfMemory extends Error {
  constructor() {
    super(`checking the body needed more than the ${BODY_CHECK_HEAP_MIB} MiB of memory a body check may use`);
  }
}

type Job = DistributiveOmit<BodyCheckJob, 'id'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface Pending {
  readonly message: BodyCheckJob;
  settle(result: BodyCheckResult): void;
  fail(error: Error): void;
  thread?: Thread;
}

interface Thread {
  readonly worker: Worker;
  job?: Pending;
  idleTimer?: NodeJS.Timeout;
}

const threads = new Set<Thread>();
const idle: Thread[] = [];
const queue: Pending[] = [];
let nextId = 0;

/**
 * What a thread runs: the bundle itself (one file, whose entry points start ./body-check-worker.ts for this
 * role), or from source (tests, tsx) that file with tsx's TypeScript loader first.
 */
function workerSource(): string {
  if (!__filename.endsWith('.ts')) return `require(${JSON.stringify(__filename)});`;
  return `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(join(__dirname, 'body-check-worker.ts'))});`;
}

function spawn(): Thread {
  const worker = new Worker(workerSource(), { eval: true, workerData: { role: BODY_CHECK_ROLE }, resourceLimits: { maxOldGenerationSizeMb: BODY_CHECK_HEAP_MIB } });
  const thread: Thread = { worker };
  threads.add(thread);
  worker.on('message', (result: BodyCheckResult) => {
    const job = thread.job;
    if (job?.message.id !== result.id) return;
    thread.job = undefined;
    job.settle(result);
    release(thread);
  });
  worker.on('error', (error: Error & { code?: string }) => end(thread, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new BodyCheckOutOfMemory() : error));
  worker.on('exit', (code) => end(thread, new Error(`the body check's thread stopped (exit code ${code})`)));
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

/**
 * Runs `job` on a check thread and resolves with its verdict and log lines. At the deadline (or when the probe
 * is interrupted) it rejects as every phase does (DeadlineExceeded, phase `check`), and a thread still running
 * it is ended; a thread that runs out of its heap rejects it with BodyCheckOutOfMemory.
 */
export function checkBody(job: Job, deadline: ProbeDeadline): Promise<BodyCheckResult> {
  const running = new Promise<BodyCheckResult>((resolve, reject) => {
    const { signal } = deadline;
    const stop = (): void => {
      if (pending.thread) return end(pending.thread, new Error('stopped at the deadline'));
      const index = queue.indexOf(pending);
      if (index !== -1) queue.splice(index, 1);
      reject(new Error('stopped at the deadline'));
    };
    const pending: Pending = {
      message: { ...job, id: (nextId += 1) } as BodyCheckJob,
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
