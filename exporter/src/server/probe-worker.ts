/**
 * A probe worker thread (--probe.workers): it runs probes for the main thread, which keeps the HTTP server,
 * /metrics, the history and reloads (./probe-pool.ts). It compiles each config it is given from the modules
 * as written (what the main thread's load validated: only plain data crosses threads) and keeps the
 * configs that probes in flight may still name, so that a reload never changes a running probe's module.
 * Its own log lines (the probe's, at --log.prober, and escaped errors) go to the process's stderr as the
 * main thread's do; each probe's lines also go back with its result, for the history and debug=true.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { compileAllowList } from '../config/allowed-targets';
import { ConfigError, type WrittenModules } from '../config/load';
import { compileParsed, moduleRecord, type CompiledConfig, type PatternCache } from '../config/module';
import type { Problem } from '../contract/problems';
import { Logger, ProbeLog, type Fields } from '../log';
import { containEscapedErrors } from './escaped-errors';
import { runProbe } from './probe-run';
import { SLICE_MILLISECONDS } from '../config/load-worker';
import { PROBE_WORKER_ROLE, type ProbeWorkerData, type ToMain, type ToWorker } from './probe-pool-messages';

/** Field values as the log writes them: primitives kept, the rest as its text (an Error does not survive every copy). */
function cloneable(fields: Fields): Fields {
  const out: Fields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
    else if (value instanceof Error) out[key] = value.message;
    else {
      try {
        out[key] = JSON.stringify(value) ?? String(value);
      } catch {
        out[key] = String(value);
      }
    }
  }
  return out;
}

function serve(port: NonNullable<typeof parentPort>, data: ProbeWorkerData): void {
  const log = new Logger(data.logLevel, undefined, data.logFormat, data.logProber);
  containEscapedErrors(log);
  const configs = new Map<number, CompiledConfig>();
  const running = new Map<number, AbortController>();
  const patterns: PatternCache = new Map();
  /** Modules of configure messages still to come, by generation. */
  const parts = new Map<number, Array<WrittenModules[number]>>();

  /**
   * Compiles a config, a slice of modules at a time, giving this thread's event loop back between slices: probes in
   * flight here go on meanwhile (a 44,000-module config compiles for seconds). From the first module the loader
   * found slow to compile on (`slow`), no pattern is compiled here: the modules keep them as text, and their checks
   * run on check threads, which compile them (../probers/shared/checks.ts); one pattern's compile cannot be cut,
   * and a probe held here past its deadline would have this worker replaced. CEL expressions are never compiled
   * here either (only check threads evaluate them).
   */
  const configure = async (message: Extract<ToWorker, { kind: 'configure' }>): Promise<ToMain> => {
    const modules = moduleRecord();
    const problems: Problem[] = [];
    const written = [...(parts.get(message.generation) ?? []), ...message.modules];
    parts.delete(message.generation);
    const slow = new Set(message.slow);
    let deferring = false;
    let sliceStarted = performance.now();
    for (const [name, module] of written) {
      deferring ||= slow.has(name);
      const compiled = compileParsed(name, module, undefined, deferring ? 'defer' : patterns, true);
      if ('problems' in compiled) problems.push(...compiled.problems);
      else modules[name] = compiled.module;
      if (performance.now() - sliceStarted > SLICE_MILLISECONDS) {
        await yieldToEventLoop();
        sliceStarted = performance.now();
      }
    }
    const allowedTargets = message.allowedTargets && compileAllowList(message.allowedTargets, ['allowed_targets'], problems);
    // The main thread's load passed the same modules: a problem here is a bug, said as such.
    if (problems.length > 0) return { kind: 'refused', generation: message.generation, message: new ConfigError(message.file, problems).message };
    configs.set(message.generation, { modules, ...(allowedTargets && { allowedTargets, writtenAllowedTargets: message.allowedTargets }) });
    patterns.clear();
    return { kind: 'configured', generation: message.generation };
  };

  const probe = async (message: Extract<ToWorker, { kind: 'probe' }>): Promise<ToMain> => {
    const config = configs.get(message.generation);
    const module = config?.modules[message.module];
    const probeLog = ProbeLog.forTarget(log, message.module, message.target);
    const abandoned = new AbortController();
    running.set(message.id, abandoned);
    try {
      if (!config || !module) {
        // The main thread only sends modules of a config every worker accepted; this is a bug, and the probe fails.
        probeLog.error('Module not loaded in this probe worker', { generation: message.generation });
        return { kind: 'result', id: message.id, success: false, metricsText: '', contentType: '', entries: [], missing: true };
      }
      const run = await runProbe(message.module, module, message.target, message.shownTarget, probeLog, {
        timeoutSeconds: message.timeoutSeconds,
        hostname: message.hostname,
        abandoned: abandoned.signal,
        openMetrics: message.openMetrics,
        allowedTargets: config.allowedTargets,
        self: message.self,
      });
      return {
        kind: 'result',
        id: message.id,
        success: run.success,
        ...(run.failure && { failure: run.failure }),
        ...(run.refusal && { refusal: run.refusal }),
        metricsText: run.registry.text(),
        contentType: run.registry.contentType,
        entries: probeLog.entries.map((entry) => ({ ...entry, fields: cloneable(entry.fields) })),
      };
    } finally {
      running.delete(message.id);
    }
  };

  port.on('message', (message: ToWorker) => {
    switch (message.kind) {
      case 'configure-part': {
        const earlier = parts.get(message.generation);
        if (earlier) earlier.push(...message.modules);
        else parts.set(message.generation, [...message.modules]);
        return;
      }
      case 'configure':
        configure(message).then(
          (reply) => port.postMessage(reply),
          (error: unknown) => port.postMessage({ kind: 'refused', generation: message.generation, message: String((error as Error).stack ?? error) } satisfies ToMain),
        );
        return;
      case 'retire':
        for (const generation of configs.keys()) if (generation < message.below) configs.delete(generation);
        return;
      case 'abort':
        running.get(message.id)?.abort();
        return;
      case 'probe':
        probe(message).then(
          (reply) => port.postMessage(reply),
          (error: unknown) =>
            port.postMessage({ kind: 'result', id: message.id, success: false, metricsText: '', contentType: '', entries: [], failed: String((error as Error).stack ?? error) } satisfies ToMain),
        );
        return;
    }
  });
  port.postMessage({ kind: 'ready' } satisfies ToMain);
}

if (parentPort && (workerData as Partial<ProbeWorkerData> | null)?.role === PROBE_WORKER_ROLE) serve(parentPort, workerData as ProbeWorkerData);
