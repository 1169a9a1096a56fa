/**
 * The one signature every prober has. The probe handler owns what all probers share (module lookup,
 * the deadline, probe_success, probe_duration_seconds, debug output); a prober only probes.
 */
import type { CompiledModule } from '../config/module';
import type { ProbeFailure } from '../contract/failure-reasons';
import type { ProberName } from './registry';
import type { TargetGuard } from './shared/target-guard';
import type { ProbeRegistry } from '../metrics';

/** The time a probe may take, as an abort signal plus the instant it fires. */
export interface ProbeDeadline {
  /** Aborted when the deadline passes; every socket, timer and request of the probe listens to it. */
  readonly signal: AbortSignal;
  /** Epoch milliseconds at which `signal` aborts. */
  readonly at: number;
}

/** A logger for one probe: its lines go to the exporter's log and to the probe's debug output. */
export interface ProbeLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Per-request options that are not part of the module (the `hostname` query parameter, for one). */
export interface ProbeOptions {
  readonly hostname?: string;
  /** The allow-lists that apply to this probe (exporter-wide and the module's); none when neither is set. */
  readonly guard?: TargetGuard;
}

/** How a probe ended: success, or a failure with its reason (../contract/failure-reasons.ts). */
export type ProbeOutcome = { readonly success: true } | ({ readonly success: false } & ProbeFailure);

/**
 * Probes `target` with a compiled module of prober N, records its metrics in `registry` (fresh for this
 * probe), and resolves to its outcome. It never rejects: a failure is an outcome with its reason, plus a log line.
 */
export type Prober<N extends ProberName> = (
  deadline: ProbeDeadline,
  target: string,
  module: CompiledModule<N>,
  registry: ProbeRegistry,
  logger: ProbeLogger,
  options: ProbeOptions,
) => Promise<ProbeOutcome>;
