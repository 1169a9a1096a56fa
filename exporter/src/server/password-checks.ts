/**
 * bcrypt checks of the web config's basic_auth_users, off the serving thread and bounded. Each check takes
 * tens to hundreds of milliseconds of CPU at the usual costs, and a hash may carry any cost up to 31 (days of
 * CPU): on the serving thread, 150 wrong passwords at once, or one for a user with a cost-31 hash, held probes
 * and /-/healthy. Here one worker thread runs the checks one at a time:
 * - at most CHECKS_WAITING wait; a request beyond them is answered at once (429) rather than queued;
 * - a check still running after CHECK_LIMIT_MS is abandoned (its worker ended, a new one started) and the
 *   password refused; that hash is then refused without a check for HASH_REFUSED_MS, so a user whose hash is
 *   too costly to check costs one bounded check per period, however often it is tried.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type * as Bcrypt from 'bcryptjs';

export const PASSWORD_CHECK_ROLE = 'probekit-password-check';

/** How long one check may run: bcrypt cost 12 takes about 0.3 s on a core of today, 2.8 s on this project's loaded 2-core CI machine. */
export const CHECK_LIMIT_MS = 5_000;
/** How many checks may wait for the worker; more are refused at once. */
export const CHECKS_WAITING = 16;
/** How long a hash whose check was abandoned is refused without a check. */
export const HASH_REFUSED_MS = 5 * 60_000;

/**
 * `match`/`mismatch`: the check ran; `abandoned`: it ran past CHECK_LIMIT_MS; `skipped`: its hash's check was
 * abandoned lately, so it did not run; `busy`: too many were waiting.
 */
export type CheckOutcome = 'match' | 'mismatch' | 'abandoned' | 'skipped' | 'busy';

interface Check {
  readonly id: number;
  readonly password: string;
  readonly hash: string;
  readonly settle: (outcome: CheckOutcome) => void;
}

interface CheckRequest {
  readonly id: number;
  readonly password: string;
  readonly hash: string;
}

interface CheckReply {
  readonly id: number;
  readonly matches: boolean;
}

/**
 * What runs a worker: the bundle itself (one file, whose entry starts a worker by its role), or from source
 * (tests, tsx) this file with tsx's TypeScript loader first.
 */
function workerSource(): string {
  const self = JSON.stringify(__filename);
  if (!__filename.endsWith('.ts')) return `require(${self});`;
  return `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${self});`;
}

/** The cost a bcrypt hash carries (`$2b$12$…`: 12). */
export function bcryptCost(hash: string): number {
  return Number(/^\$2[abxy]?\$(\d\d)\$/.exec(hash)?.[1] ?? NaN);
}

export class PasswordChecks {
  private worker?: Worker;
  /** Whether the worker has started: a check's time runs from when the worker can take it. */
  private ready = false;
  private readonly waiting: Check[] = [];
  private running?: { readonly check: Check; readonly timer: NodeJS.Timeout };
  private nextId = 0;
  /** Hashes whose check was abandoned, and until when they are refused without one. */
  private readonly refusedUntil = new Map<string, number>();

  constructor(private readonly limitMs = CHECK_LIMIT_MS) {}

  /** Whether `password` matches the bcrypt `hash`, or why that was not checked. */
  check(password: string, hash: string): Promise<CheckOutcome> {
    const refused = this.refusedUntil.get(hash);
    if (refused !== undefined && refused > Date.now()) return Promise.resolve('skipped');
    if (this.waiting.length >= CHECKS_WAITING) return Promise.resolve('busy');
    return new Promise((settle) => {
      this.waiting.push({ id: this.nextId++, password, hash, settle });
      this.next();
    });
  }

  /** Ends the worker; waiting checks are refused. */
  async stop(): Promise<void> {
    for (const check of this.waiting.splice(0)) check.settle('busy');
    if (this.running) this.finish('busy');
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return;
    const worker = this.ensureWorker();
    if (!this.ready) return;
    const check = this.waiting.shift()!;
    const timer = setTimeout(() => {
      this.refusedUntil.set(check.hash, Date.now() + HASH_REFUSED_MS);
      // A worker in a bcrypt loop answers nothing: ending it is the only way to stop the check.
      this.worker = undefined;
      void worker.terminate();
      this.finish('abandoned');
    }, this.limitMs);
    this.running = { check, timer };
    worker.postMessage({ id: check.id, password: check.password, hash: check.hash } satisfies CheckRequest);
  }

  private finish(outcome: CheckOutcome): void {
    const running = this.running!;
    clearTimeout(running.timer);
    this.running = undefined;
    running.check.settle(outcome);
    this.next();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerSource(), { eval: true, workerData: { role: PASSWORD_CHECK_ROLE } });
    // An idle checker keeps no process alive.
    worker.unref();
    worker.on('message', (reply: CheckReply | 'ready') => {
      if (worker !== this.worker) return;
      if (reply === 'ready') {
        this.ready = true;
        this.next();
      } else if (this.running?.check.id === reply.id) this.finish(reply.matches ? 'match' : 'mismatch');
    });
    worker.on('error', () => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      if (this.running) this.finish('abandoned');
      else for (const check of this.waiting.splice(0)) check.settle('abandoned');
    });
    this.worker = worker;
    this.ready = false;
    return worker;
  }
}

/** The worker's side: compares what it is sent, one at a time. bcrypt loads here (3 MiB), not in the serving thread. */
function serveChecks(port: NonNullable<typeof parentPort>): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded in the worker only
  const bcrypt = require('bcryptjs') as typeof Bcrypt;
  port.on('message', ({ id, password, hash }: CheckRequest) => {
    let matches = false;
    try {
      matches = bcrypt.compareSync(password, hash);
    } catch {
      // A hash bcrypt cannot read matches nothing.
    }
    port.postMessage({ id, matches } satisfies CheckReply);
  });
  port.postMessage('ready');
}

if (!isMainThread && parentPort && (workerData as { role?: string } | null)?.role === PASSWORD_CHECK_ROLE) serveChecks(parentPort);
