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
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { LoadedConfig } from '../config/load';
import type { ProbeFailure } from '../contract/failure-reasons';
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

/** How long past its deadline a probe's answer may take before the main thread gives up on its worker. */
const ANSWER_GRACE_MS = 2000;

interface Pending {
  readonly probeLog: ProbeLog;
  settle(result: PoolResult): void;
}

interface Slot {
  worker: Worker;
  /** Whether it holds the config being served, so probes may go to it. */
  configured: boolean;
  readonly inFlight: Map<number, Pending>;
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
  ) {
    for (let index = 0; index < size; index += 1) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(workerSource(), { eval: true, workerData: { role: PROBE_WORKER_ROLE, ...this.data } satisfies ProbeWorkerData });
    const slot: Slot = { worker, configured: false, inFlight: new Map(), configuring: new Map() };
    worker.on('message', (message: ToMain) => this.receive(slot, message));
    worker.on('error', (error) => this.log.error('A probe worker stopped on an error outside any probe; it is replaced', { err: error }));
    worker.on('exit', (code) => this.replace(slot, code));
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
        pending.probeLog.adopt(message.entries);
        if (message.missing || message.failed !== undefined) {
          if (message.failed !== undefined) this.log.error('A probe worker failed to run a probe', { err: message.failed });
          pending.settle({ success: false });
        } else pending.settle({ success: message.success, failure: message.failure, refusal: message.refusal, metricsText: message.metricsText, contentType: message.contentType });
        return;
      }
    }
  }

  /** A worker stopped: its probes fail now, and another takes its place with the served config. */
  private replace(slot: Slot, code: number): void {
    for (const pending of slot.inFlight.values()) pending.settle({ success: false });
    slot.inFlight.clear();
    for (const answer of slot.configuring.values()) answer({ kind: 'refused', generation: -1, message: `a probe worker stopped (exit code ${code}) while it compiled the config` });
    slot.configuring.clear();
    const index = this.slots.indexOf(slot);
    if (this.stopping || index === -1) return;
    this.log.error('A probe worker stopped; starting another', { exit_code: code });
    this.slots[index] = this.spawn();
  }

  /** Sends a configure message; `serving` marks the slot configured once it accepted (a replacement's catch-up). */
  private send(slot: Slot, message: Extract<ToWorker, { kind: 'configure' }>, serving: boolean): Promise<ToMain> {
    return new Promise((resolve) => {
      slot.configuring.set(message.generation, (outcome) => {
        if (serving && outcome.kind === 'configured') slot.configured = true;
        if (serving && outcome.kind === 'refused') this.log.error('A probe worker refused the config the others serve', { problem: outcome.message });
        resolve(outcome);
      });
      slot.worker.postMessage(message);
    });
  }

  /**
   * Hands `config` to every worker; resolves when all compiled it, rejects (and the workers keep serving the
   * previous one) when any could not. Call `commit` afterwards to make probes use it.
   */
  async prepare(config: LoadedConfig, file: string): Promise<() => void> {
    const message: Extract<ToWorker, { kind: 'configure' }> = {
      kind: 'configure',
      generation: this.generation + 1,
      file,
      modules: Object.entries(config.modules).map(([name, module]) => [name, module.written] as const),
      ...(config.writtenAllowedTargets && { allowedTargets: config.writtenAllowedTargets }),
    };
    const outcomes = await Promise.all(this.slots.map((slot) => this.send(slot, message, false)));
    const refused = outcomes.find((outcome): outcome is Extract<ToMain, { kind: 'refused' }> => outcome.kind === 'refused');
    if (refused) throw new Error(`a probe worker could not compile the config: ${refused.message}`);
    return () => {
      this.generation = message.generation;
      this.served = message;
      for (const slot of this.slots) {
        slot.configured = true;
        // Probes already sent name the previous config at the oldest.
        slot.worker.postMessage({ kind: 'retire', below: message.generation - 1 } satisfies ToWorker);
      }
    };
  }

  /** Runs one probe on the least busy worker that serves the config; `probeLog` gets the probe's lines. */
  probe(request: PoolProbe, probeLog: ProbeLog): Promise<PoolResult> {
    const ready = this.slots.filter((slot) => slot.configured);
    // Every worker stopped at once and none is back yet: the probe fails rather than waits.
    if (ready.length === 0) return Promise.resolve({ success: false });
    const slot = ready.reduce((least, each) => (each.inFlight.size < least.inFlight.size ? each : least));
    const id = (this.nextId += 1);
    const { abandoned, ...fields } = request;
    return new Promise((resolve) => {
      const onAbandoned = (): void => slot.worker.postMessage({ kind: 'abort', id } satisfies ToWorker);
      const settle = (result: PoolResult): void => {
        clearTimeout(timer);
        abandoned?.removeEventListener('abort', onAbandoned);
        resolve(result);
      };
      slot.inFlight.set(id, { probeLog, settle });
      abandoned?.addEventListener('abort', onAbandoned, { once: true });
      // Declared after settle, which reads it: no answer can arrive before this line runs.
      const timer = setTimeout(
        () => {
          if (!slot.inFlight.delete(id)) return;
          this.log.error('A probe worker did not answer within the probe deadline; the probe fails', { module: request.module, target: request.shownTarget });
          slot.worker.postMessage({ kind: 'abort', id } satisfies ToWorker);
          settle({ success: false });
        },
        request.timeoutSeconds * 1000 + ANSWER_GRACE_MS,
      );
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
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
