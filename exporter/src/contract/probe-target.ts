/**
 * Probing a target from another package (`probekit test`): a module as the config file writes it, compiled
 * and run through the exporter's own probers and probe path, in the caller's process. The probers and
 * their runtime dependencies load on the first call, not with the contract: a package that only renders
 * configs never loads them.
 */
import { compileModule } from '../config/module';
import type { ProbeFailure } from './failure-reasons';
import { ProblemsError } from './problems';

export interface TargetProbeOptions {
  /**
   * The scrape timeout the probe runs under, in seconds: the probe takes the module's timeout when that is
   * shorter, else this less the exporter's default offset, as a scrape would. @default 120, upstream's
   */
  readonly scrapeTimeoutSeconds?: number;
  /** Fires to stop the probe early (Ctrl-C): it ends at once, failed, with every socket closed. */
  readonly signal?: AbortSignal;
  /** Where the module's relative file paths (ca_file, body_file) are read from. @default the current directory */
  readonly directory?: string;
}

/** One sample of the probe's metrics, as /probe would have returned it. */
export interface ProbeSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One line of a probe's log, as data. */
export interface ProbeLogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  /** What the line is about: the target, the address, the error... */
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface TargetProbeResult {
  readonly success: boolean;
  /** Why it failed; absent when it succeeded. */
  readonly failure?: ProbeFailure;
  readonly durationSeconds: number;
  readonly samples: readonly ProbeSample[];
  /** The probe's log lines as data: what the debug output shows. */
  readonly log: readonly ProbeLogEntry[];
}

/** The runtime, loaded once on first use. */
let runtime: { probeRun: typeof import('../server/probe-run'); timeout: typeof import('../server/probe-timeout'); log: typeof import('../log') } | undefined;

function loadRuntime(): NonNullable<typeof runtime> {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, so that importing the contract loads no prober */
  runtime ??= {
    probeRun: require('../server/probe-run') as typeof import('../server/probe-run'),
    timeout: require('../server/probe-timeout') as typeof import('../server/probe-timeout'),
    log: require('../log') as typeof import('../log'),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return runtime;
}

/**
 * Probes `target` with module `moduleName` (`module` as the config file writes it). Resolves to the outcome;
 * rejects only with a ProblemsError when the module is not valid (paths from `modules.<name>`).
 */
export async function probeTarget(moduleName: string, module: unknown, target: string, options: TargetProbeOptions = {}): Promise<TargetProbeResult> {
  const compiled = compileModule(moduleName, module, options.directory ?? process.cwd());
  if ('problems' in compiled) throw new ProblemsError(compiled.problems);
  const { probeRun, timeout, log } = loadRuntime();
  const timeoutSeconds = timeout.probeTimeoutSeconds(compiled.module.timeoutMs, options.scrapeTimeoutSeconds?.toString(), timeout.DEFAULT_TIMEOUT_OFFSET_SECONDS);
  // The probe's lines stay in its own log; nothing goes to the caller's output.
  const probeLog = log.ProbeLog.forTarget(new log.Logger('error', () => undefined), moduleName, target);
  const run = await probeRun.runProbe(moduleName, compiled.module, target, probeLog.shownTarget, probeLog, { timeoutSeconds, abandoned: options.signal });
  const metrics = run.registry.getMetricsAsJSON();
  const samples = metrics.flatMap((metric) => metric.values.map((sample) => ({ name: metric.name, labels: sample.labels as Record<string, string>, value: sample.value })));
  return { success: run.success, ...(run.failure ? { failure: run.failure } : {}), durationSeconds: run.durationSeconds, samples, log: probeLog.entries };
}
