/**
 * Loading the config file without holding up the server. A worker thread reads, parses and validates the
 * file, compiling every module (which checks every pattern), and hands each module over as written as soon
 * as it compiled, with what its patterns cost to compile; this thread compiles those again, in slices that give the event
 * loop back between them, while the worker goes on with the next. Probes and /-/healthy are answered while
 * even a very large file loads, and the two threads work at once. Only plain data crosses between the
 * threads: compiled patterns, URLs and Buffers do not, so each thread makes its own (cloning a compiled
 * pattern costs more than compiling it). A refused file discards what was compiled.
 *
 * A slice ends between modules, and one pattern's compile cannot be cut: re2js takes seconds over some
 * patterns upstream's Go compiles in milliseconds (a 72 KB pattern, `(\pL{10,1000})` repeated). So from the
 * first module whose patterns cost more than SLOW_COMPILE_COST on, this thread compiles no pattern: the
 * modules keep them as text, and their checks run on check threads, which compile them
 * (../probers/shared/checks.ts); the exporter also hands such a config to a probe worker (../server/exporter-server.ts).
 * With probe workers, this thread compiles no pattern at all. CEL expressions are never compiled here: only
 * check threads evaluate them.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { isMainThread, MessageChannel, parentPort, receiveMessageOnPort, Worker, workerData, type MessagePort } from 'node:worker_threads';
import { ConfigError, loadConfigFile, type LoadedConfig, type WrittenModules } from './load';
import type { Problem } from '../contract/problems';
import { compileParsed, moduleRecord, type CompiledModule, type PatternCache } from './module';
import { compileAllowList, type AllowedTargetsSection } from './allowed-targets';

const ROLE = 'probekit-config-loader';
/**
 * Modules per message, and messages sent before this thread has compiled one: each message costs this thread
 * its decoding, and Node decodes every message waiting on a port in one go, so the worker sends the next
 * only when this thread asks for it.
 */
const MODULES_PER_MESSAGE = 1000;
const MESSAGES_AHEAD = 2;
/** How long one slice of compiling may hold the event loop (here, and in probe workers: ../server/probe-worker.ts). */
export const SLICE_MILLISECONDS = 10;
/**
 * A module whose new patterns cost more than this to compile (GoRegexp.compileCost: 20,000 is some 60 to 150 ms
 * of re2js here) would hold this thread as long: its patterns, and those of every module after it, are not
 * compiled here. A measure, not a timing: a pause of the loading thread's garbage collector must not make an
 * ordinary module look slow. Ordinary patterns cost tens to hundreds.
 */
export const SLOW_COMPILE_COST = 20_000;

type LoaderMessage =
  /** `slow`: those of `modules` whose new patterns cost more than SLOW_COMPILE_COST to compile. */
  | { readonly kind: 'modules'; readonly modules: WrittenModules; readonly slow: readonly string[] }
  | { readonly kind: 'loaded'; readonly notes: readonly string[]; readonly allowedTargets?: AllowedTargetsSection }
  | { readonly kind: 'refused'; readonly file: string; readonly problems: readonly Problem[] }
  | { readonly kind: 'failed'; readonly message: string };

interface LoaderData {
  readonly role: typeof ROLE;
  readonly file: string;
  /** Where this thread asks for the next message, one word per message. */
  readonly asks: MessagePort;
}

/** The worker's side: load the file, sending compiled modules as asked, then say how it ended. */
async function serveLoad(port: NonNullable<typeof parentPort>, { file, asks }: LoaderData): Promise<void> {
  const ready: Array<{ modules: WrittenModules[number][]; slow: string[] }> = [{ modules: [], slow: [] }];
  let allowed = MESSAGES_AHEAD;
  const send = (): void => {
    while (receiveMessageOnPort(asks) !== undefined) allowed += 1;
    while (allowed > 0 && ready.length > 1) {
      allowed -= 1;
      port.postMessage({ kind: 'modules', ...ready.shift()! } satisfies LoaderMessage);
    }
  };
  let reply: LoaderMessage;
  try {
    const config = await loadConfigFile(file, (name, module, patternCost) => {
      const batch = ready.at(-1)!;
      batch.modules.push([name, module.written]);
      if (patternCost > SLOW_COMPILE_COST) batch.slow.push(name);
      if (batch.modules.length < MODULES_PER_MESSAGE) return;
      ready.push({ modules: [], slow: [] });
      send();
    });
    ready.push({ modules: [], slow: [] });
    while (ready.length > 1) {
      send();
      if (ready.length > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    reply = { kind: 'loaded', notes: config.notes, allowedTargets: config.writtenAllowedTargets };
  } catch (error) {
    reply = error instanceof ConfigError ? { kind: 'refused', file: error.file, problems: error.problems } : { kind: 'failed', message: String((error as Error).stack ?? error) };
  }
  port.postMessage(reply);
  asks.close();
}

if (!isMainThread && parentPort && (workerData as Partial<LoaderData> | null)?.role === ROLE) {
  void serveLoad(parentPort, workerData as LoaderData);
}

/**
 * What the worker runs. The bundle is one file, and loading it in a worker with this role starts serveLoad
 * above. From source (tests, tsx) the worker first registers tsx's TypeScript loader, as its process did.
 */
function workerSource(): string {
  const self = JSON.stringify(__filename);
  if (!__filename.endsWith('.ts')) return `require(${self});`;
  return `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${self});`;
}

/** Compiles modules that already passed a load, a slice at a time, into `modules`. */
async function compileInSlices(file: string, written: WrittenModules, modules: Record<string, CompiledModule>, patterns: PatternCache | 'defer'): Promise<void> {
  let sliceStarted = performance.now();
  for (const [name, module] of written) {
    const compiled = compileParsed(name, module, undefined, patterns, true);
    // The worker compiled the same module without a problem; a difference would be a bug here, said as such.
    if ('problems' in compiled) throw new ConfigError(file, compiled.problems);
    modules[name] = compiled.module;
    if (performance.now() - sliceStarted > SLICE_MILLISECONDS) {
      await yieldToEventLoop();
      sliceStarted = performance.now();
    }
  }
}

/** A config loaded in a worker thread, and whether its patterns were compiled in this one. */
export interface LoadedOffThread extends LoadedConfig {
  /** Modules whose new patterns cost more than SLOW_COMPILE_COST to compile. */
  readonly slowToCompile: readonly string[];
  /**
   * False when this thread compiled no pattern from some module on (asked not to, or a module was slow):
   * only probe workers may then run its probes.
   */
  readonly patternsCompiled: boolean;
}

/**
 * Loads and compiles the config file while this thread keeps serving; rejects with ConfigError when it is
 * refused. `compilePatterns` false: probe workers run every probe, and this thread compiles no pattern.
 */
export function loadConfigOffThread(file: string, compilePatterns = true): Promise<LoadedOffThread> {
  return new Promise((resolve, reject) => {
    const modules = moduleRecord();
    const patterns: PatternCache = new Map();
    const slowToCompile: string[] = [];
    const { port1: ask, port2: asks } = new MessageChannel();
    let compiling = Promise.resolve();
    let settled = false;
    const worker = new Worker(workerSource(), { eval: true, workerData: { role: ROLE, file, asks } satisfies LoaderData, transferList: [asks] });
    const finish = (outcome: () => Promise<LoadedOffThread>): void => {
      if (settled) return;
      settled = true;
      outcome().then(resolve, reject);
      ask.close();
      void worker.terminate();
    };
    worker.on('message', (message: LoaderMessage) => {
      switch (message.kind) {
        case 'modules':
          slowToCompile.push(...message.slow);
          compiling = compiling.then(async () => {
            await compileInSlices(file, message.modules, modules, compilePatterns && slowToCompile.length === 0 ? patterns : 'defer');
            if (!settled) ask.postMessage('next');
          });
          compiling.catch((error: unknown) => finish(() => Promise.reject(error as Error)));
          return;
        case 'loaded':
          return finish(async () => {
            await compiling;
            const loaded = { modules, notes: message.notes, slowToCompile, patternsCompiled: compilePatterns && slowToCompile.length === 0 };
            const written = message.allowedTargets;
            if (written === undefined) return loaded;
            // The worker compiled the same section without a problem, as for modules above.
            const problems: Problem[] = [];
            const allowedTargets = compileAllowList(written, ['allowed_targets'], problems);
            if (problems.length > 0) throw new ConfigError(file, problems);
            return { ...loaded, allowedTargets, writtenAllowedTargets: written };
          });
        case 'refused':
          return finish(() => Promise.reject(new ConfigError(message.file, message.problems)));
        case 'failed':
          return finish(() => Promise.reject(new Error(`loading ${file} failed: ${message.message}`)));
      }
    });
    worker.on('error', (error) => finish(() => Promise.reject(error)));
    worker.on('exit', (code) => finish(() => Promise.reject(new Error(`the thread loading ${file} stopped (exit code ${code}) before it finished`))));
  });
}
