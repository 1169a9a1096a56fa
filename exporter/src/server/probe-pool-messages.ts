/**
 * What the main thread and its probe workers say to each other (./probe-pool.ts, ./probe-worker.ts): plain
 * data only, and small per probe: the module travels by name, never as an object.
 */
import type { AllowedTargetsSection } from '../config/allowed-targets';
import type { ProbeFailure } from '../contract/failure-reasons';
import type { WrittenModules } from '../config/load';
import type { LogFormat, LogLevel, Fields } from '../log';
import type { Refusal, SelfListener } from '../probers/shared/target-guard';

export const PROBE_WORKER_ROLE = 'probekit-probe-worker';

export interface ProbeWorkerData {
  readonly role: typeof PROBE_WORKER_ROLE;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly logProber: LogLevel;
}

/** One probe as the main thread asks for it. */
export interface ProbeRequest {
  readonly module: string;
  readonly target: string;
  /** The target as logs may show it (credentials masked). */
  readonly shownTarget: string;
  readonly timeoutSeconds: number;
  readonly hostname?: string;
  readonly openMetrics: boolean;
  readonly self?: SelfListener;
}

export type ToWorker =
  /** A config, as its modules were written (after its parts): the worker compiles it and says whether it could. */
  | {
      readonly kind: 'configure';
      readonly generation: number;
      readonly file: string;
      readonly modules: WrittenModules;
      /** Modules the loader found slow to compile: from the first of them on, the worker compiles no pattern. */
      readonly slow: readonly string[];
      readonly allowedTargets?: AllowedTargetsSection;
    }
  /** Modules of the configure message of `generation` that follows: a large config comes in parts. */
  | { readonly kind: 'configure-part'; readonly generation: number; readonly modules: WrittenModules }
  /** Configs older than `below` will not be named again. */
  | { readonly kind: 'retire'; readonly below: number }
  | (ProbeRequest & { readonly kind: 'probe'; readonly id: number; readonly generation: number })
  /** Whoever asked for probe `id` went away: it stops. */
  | { readonly kind: 'abort'; readonly id: number };

export interface LogEntry {
  readonly at: number;
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: Fields;
}

export type ToMain =
  | { readonly kind: 'ready' }
  | { readonly kind: 'configured'; readonly generation: number }
  | { readonly kind: 'refused'; readonly generation: number; readonly message: string }
  | {
      readonly kind: 'result';
      readonly id: number;
      readonly success: boolean;
      readonly failure?: ProbeFailure;
      readonly refusal?: Refusal;
      readonly metricsText: string;
      readonly contentType: string;
      readonly entries: readonly LogEntry[];
      /** Set when the worker could not run the probe (no such module or generation, an internal failure). */
      readonly missing?: boolean;
      readonly failed?: string;
    };
