/**
 * Probes on several cores (--probe.workers): worker threads behind the one listening port. The main thread
 * keeps everything that must be one: the HTTP server, /metrics, the history, the config and its reloads; a
 * probe goes to the least busy worker by its module's name and comes back as its metrics text and log.
 *
 * A reload reaches every worker before it takes effect: each compiles the new config from the modules as
 * written and says so, and only when all have does the main thread serve it; a worker that cannot keeps
 * the old config everywhere. Probes name the config they started with, which a worker keeps until no probe
 * can name it. A worker that stops (an error outside any probe ends its thread, as it would end a process)
 * is replaced; the probes it had in flight fail (probe_success 0) at once, and none waits past its deadline.
 *
 * A worker that holds a probe past its deadline is busy with something the probe could not stop (checks run
 * on check threads stopped at the deadline, and a reload compiles in slices leaving slow patterns to them, so
 * what is left is a compile no loader flagged or a heap at its limit collecting without end): from the deadline on no probe goes to it,
 * and if it has not answered ANSWER_GRACE_MS later it is terminated and replaced like one that stopped, its
 * probes failing with the reason said. Nothing else would end such a thread, and a worker whose probes all
 * timed out would look idle and take every later probe.
 */
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { LoadedConfig } from '../config/load';
import type { ProbeFailure } from '../contract/failure-reasons';
import type { WorkerReplacementCause } from '../metrics';
import type { Logger, ProbeLog } from '../log';
import type { Refusal } from '../probers/shared/target-guard';
import { PROBE_WORKER_ROLE, type ProbeRequest, type ProbeWorkerData, type ToMain, type ToWorker } from './probe-pool-messages';

export interface PoolProbe extends ProbeRequest {
  /** Fires when whoever asked went away: the worker stops the probe. */
  readonly abandoned?: AbortSignal;
}

/** A probe's answer from a worker; `metricsText` undefined when the worker could not run it. */
export interface PoolResult {
  readonly success: boolean;
  /** Why the probe failed, when the worker ran it and it failed. */
  readonly failure?: ProbeFailure;
  readonly refusal?: Refusal;
  readonly metricsText?: string;
  readonly contentType?: string;
}

/** Modules per part of a configure message (ProbePool.post). */
const MODULES_PER_PART = 1000;

/** How long past its deadline a probe's answer may take before the main thread replaces its worker. */
export const ANSWER_GRACE_MS = 2000;

interface Pending {
  readonly probeLog: ProbeLog;
  /** Whether its deadline passed without an answer: counted in its slot's `overdue`. */
  overdue: boolean;
  settle(result: PoolResult): void;
}

/** A probe waiting for a free worker. */
interface Waiting {
  /** Runs it on `slot`, which is free. */
  start(slot: Slot): void;
  /** Fails it with `detail`. */
  fail(detail: string): void;
}

interface Slot {
  worker: Worker;
  /** Whether it holds the config being served, so probes may go to it. */
  configured: boolean;
  readonly inFlight: Map<number, Pending>;
  /** Probes past their deadline without an answer: while any, no probe goes to this worker. */
  overdue: number;
  /** Answers to the configure message in flight, by generation. */
  readonly configuring: Map<number, (outcome: ToMain) => void>;
}

/**
 * What runs a worker: the bundle itself (one file, whose entry starts a worker by its role), or from source
 * (tests, tsx) the exporter's entry with tsx's TypeScript loader first, as its process had it.
 */
function workerSource(): string {
  if (!__filename.endsWith('.ts')) return `require(${JSON.stringify(__filename)});`;
  return `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(join(__dirname, '..', 'main.ts'))});`;
}

export class ProbePool {
  private readonly slots: Slot[] = [];
  /** Probes that found no worker free, oldest first. */
  private readonly waiting: Waiting[] = [];
  private nextId = 0;
  /** The generation probes name: the last config every worker accepted. */
  private generation = 0;
  /** The message that configured the workers with it, sent again to a worker that replaces a stopped one. */
  private served?: Extract<ToWorker, { kind: 'configure' }>;
  private stopping = false;

  constructor(
    readonly size: number,
    private readonly data: Omit<ProbeWorkerData, 'role'>,
    private readonly log: Logger,
    /** Hears of each worker replaced, and why (the exporter counts them). */
    private readonly replaced: (cause: WorkerReplacementCause) => void = () => undefined,
  ) {
    for (let index = 0; index < size; index += 1) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(workerSource(), { eval: true, workerData: { role: PROBE_WORKER_ROLE, ...this.data } satisfies ProbeWorkerData });
    const slot: Slot = { worker, configured: false, inFlight: new Map(), overdue: 0, configuring: new Map() };
    worker.on('message', (message: ToMain) => this.receive(slot, message));
    worker.on('error', (error) => this.log.error('A probe worker stopped on an error outside any probe; it is replaced', { err: error }));
    worker.on('exit', (code) => this.stopped(slot, code));
    if (this.served) void this.send(slot, this.served, true);
    return slot;
  }

  private receive(slot: Slot, message: ToMain): void {
    switch (message.kind) {
      case 'ready':
        return;
      case 'configured':
      case 'refused':
        slot.configuring.get(message.generation)?.(message);
        slot.configuring.delete(message.generation);
        return;
      case 'result': {
        const pending = slot.inFlight.get(message.id);
        if (!pending) return;
        slot.inFlight.delete(message.id);
        if (pending.overdue) slot.overdue -= 1;
        if (slot.overdue === 0) this.drain();
        pending.probeLog.adopt(message.entries);
        if (message.missing || message.failed !== undefined) {
          if (message.failed !== undefined) this.log.error('A probe worker failed to run a probe', { err: message.failed });
          pending.settle({ success: false });
        } else pending.settle({ success: message.success, failure: message.failure, refusal: message.refusal, metricsText: message.metricsText, contentType: message.contentType });
        return;
      }
    }
  }

  /** A worker stopped by itself: its probes fail now, and another takes its place. */
  private stopped(slot: Slot, code: number): void {
    if (!this.slots.includes(slot)) return;
    if (!this.stopping) this.log.error('A probe worker stopped; starting another', { exit_code: code });
    this.replace(slot, 'stopped', this.stopping ? 'the exporter stopped while it ran' : `the probe worker running it stopped (exit code ${code}); it was replaced`);
  }

  /**
   * Takes `slot` out of the pool, at once: its probes in flight fail with `detail`, and another worker takes
   * its place with the served config (probes go to it once it compiled that).
   */
  private replace(slot: Slot, cause: WorkerReplacementCause, detail: string): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    if (!this.stopping) this.slots[index] = this.spawn();
    else this.slots.splice(index, 1);
    for (const pending of slot.inFlight.values()) {
      pending.probeLog.error('Probe failed', { reason: 'internal error', detail });
      pending.settle({ success: false, failure: { reason: 'internal error', detail } });
    }
    slot.inFlight.clear();
    slot.overdue = 0;
    for (const answer of slot.configuring.values()) answer({ kind: 'refused', generation: -1, message: `a probe worker was replaced while it compiled the config: ${detail}` });
    slot.configuring.clear();
    if (!this.stopping) this.replaced(cause);
  }

  /** Sends a configure message; `serving` marks the slot configured once it accepted (a replacement's catch-up). */
  private send(slot: Slot, message: Extract<ToWorker, { kind: 'configure' }>, serving: boolean): Promise<ToMain> {
    return new Promise((resolve) => {
      slot.configuring.set(message.generation, (outcome) => {
        if (serving && outcome.kind === 'configured') {
          slot.configured = true;
          this.drain();
        }
        if (serving && outcome.kind === 'refused') this.log.error('A probe worker refused the config the others serve', { problem: outcome.message });
        resolve(outcome);
      });
      void this.post(slot, message);
    });
  }

  /**
   * Posts a configure message in parts of MODULES_PER_PART modules, giving the event loop back between them:
   * copying a message is this thread's work, and 44,000 modules in one held it over a second.
   */
  private async post(slot: Slot, message: Extract<ToWorker, { kind: 'configure' }>): Promise<void> {
    const { modules } = message;
    for (let start = 0; start + MODULES_PER_PART < modules.length; start += MODULES_PER_PART) {
      slot.worker.postMessage({ kind: 'configure-part', generation: message.generation, modules: modules.slice(start, start + MODULES_PER_PART) } satisfies ToWorker);
      await yieldToEventLoop();
    }
    const last = modules.length === 0 ? 0 : Math.floor((modules.length - 1) / MODULES_PER_PART) * MODULES_PER_PART;
    slot.worker.postMessage({ ...message, modules: modules.slice(last) } satisfies ToWorker);
  }

  /**
   * Hands `config` to every worker; resolves when all compiled it, rejects (and the workers keep serving the
   * previous one) when any could not. Call `commit` afterwards to make probes use it.
   */
  async prepare(config: LoadedConfig & { readonly slowToCompile?: readonly string[] }, file: string): Promise<() => void> {
    const message: Extract<ToWorker, { kind: 'configure' }> = {
      kind: 'configure',
      generation: this.generation + 1,
      file,
      modules: Object.entries(config.modules).map(([name, module]) => [name, module.written] as const),
      slow: config.slowToCompile ?? [],
      ...(config.writtenAllowedTargets && { allowedTargets: config.writtenAllowedTargets }),
    };
    const asked = [...this.slots];
    const outcomes = await Promise.all(asked.map((slot) => this.send(slot, message, false)));
    const refused = outcomes.find((outcome): outcome is Extract<ToMain, { kind: 'refused' }> => outcome.kind === 'refused');
    if (refused) throw new Error(`a probe worker could not compile the config: ${refused.message}`);
    return () => {
      this.generation = message.generation;
      this.served = message;
      for (const slot of this.slots) {
        // A worker that replaced another meanwhile holds the previous config only: it takes probes once it compiled this one.
        if (asked.includes(slot)) slot.configured = true;
        else {
          slot.configured = false;
          void this.send(slot, message, true);
        }
        // Probes already sent name the previous config at the oldest.
        slot.worker.postMessage({ kind: 'retire', below: message.generation - 1 } satisfies ToWorker);
      }
      this.drain();
    };
  }

  /** The least busy worker that serves the config and holds no probe past its deadline, if any. */
  private readySlot(): Slot | undefined {
    let least: Slot | undefined;
    for (const slot of this.slots) {
      if (slot.configured && slot.overdue === 0 && (least === undefined || slot.inFlight.size < least.inFlight.size)) least = slot;
    }
    return least;
  }

  /**
   * Runs one probe on the least busy worker that serves the config; `probeLog` gets the probe's lines. When none
   * is free (each is starting, or holds a probe whose deadline passed and whose answer is not here yet) the probe
   * waits for one, within its own deadline: an answer in transit frees its worker a moment later, and a worker
   * replaced is back once it compiled the config.
   */
  probe(request: PoolProbe, probeLog: ProbeLog): Promise<PoolResult> {
    const slot = this.readySlot();
    if (slot) return this.run(slot, request, probeLog);
    return new Promise((resolve) => {
      const deadlineAt = performance.now() + request.timeoutSeconds * 1000;
      const fail = (detail: string): void => {
        end();
        probeLog.error('Probe failed', { reason: 'internal error', detail });
        resolve({ success: false, failure: { reason: 'internal error', detail } });
      };
      const waiting: Waiting = {
        fail,
        start: (free) => {
          end();
          void this.run(free, { ...request, timeoutSeconds: Math.max(0, deadlineAt - performance.now()) / 1000 }, probeLog).then(resolve);
        },
      };
      const timer = setTimeout(
        () => fail(`no probe worker was free within the probe's deadline (${request.timeoutSeconds}s): each was starting, or held past a probe deadline and about to be replaced`),
        request.timeoutSeconds * 1000,
      );
      const onAbandoned = (): void => fail('the scrape went away while the probe waited for a free probe worker');
      const end = (): void => {
        clearTimeout(timer);
        request.abandoned?.removeEventListener('abort', onAbandoned);
        const index = this.waiting.indexOf(waiting);
        if (index !== -1) this.waiting.splice(index, 1);
      };
      if (request.abandoned?.aborted) return onAbandoned();
      request.abandoned?.addEventListener('abort', onAbandoned, { once: true });
      this.waiting.push(waiting);
    });
  }

  /** Starts waiting probes, oldest first, while a worker is free. */
  private drain(): void {
    while (this.waiting.length > 0) {
      const slot = this.readySlot();
      if (!slot) return;
      this.waiting[0]!.start(slot);
    }
  }

  private run(slot: Slot, request: PoolProbe, probeLog: ProbeLog): Promise<PoolResult> {
    const id = (this.nextId += 1);
    const { abandoned, ...fields } = request;
    return new Promise((resolve) => {
      const onAbandoned = (): void => slot.worker.postMessage({ kind: 'abort', id } satisfies ToWorker);
      let timer: NodeJS.Timeout | undefined;
      const settle = (result: PoolResult): void => {
        clearTimeout(timer);
        abandoned?.removeEventListener('abort', onAbandoned);
        resolve(result);
      };
      const pending: Pending = { probeLog, settle, overdue: false };
      slot.inFlight.set(id, pending);
      abandoned?.addEventListener('abort', onAbandoned, { once: true });
      const deadlineMs = request.timeoutSeconds * 1000;
      // At the deadline the worker's own probe has ended; an answer not here yet may never come.
      timer = setTimeout(() => {
        if (slot.inFlight.get(id) !== pending) return;
        pending.overdue = true;
        slot.overdue += 1;
        timer = setTimeout(() => {
          if (slot.inFlight.get(id) !== pending) return;
          const detail = `the probe worker running it did not answer within the probe's deadline (${request.timeoutSeconds}s) and ${ANSWER_GRACE_MS / 1000}s more; it was terminated and replaced`;
          this.log.error('A probe worker did not answer within the probe deadline; it is terminated and replaced', { module: request.module, target: request.shownTarget });
          this.replace(slot, 'deadline', detail);
          void slot.worker.terminate();
        }, ANSWER_GRACE_MS);
      }, deadlineMs);
      slot.worker.postMessage({ kind: 'probe', id, generation: this.generation, ...fields } satisfies ToWorker);
    });
  }

  /** Probes in flight per worker, for the exporter's own metrics. */
  inFlight(): number[] {
    return this.slots.map((slot) => slot.inFlight.size);
  }

  /** Ends every worker; their probes in flight fail. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const waiting of [...this.waiting]) waiting.fail('the exporter is stopping');
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }
}
