/**
 * What the threads that run checks (./checks.ts, ./check-worker.ts) say to each other, and the checks themselves
 * as plain data: the regexps and CEL expressions of one probe as written in the config, and the text a target sent.
 */
import type { MatchData } from '../../config/regexp';

/** workerData.role of a check thread: the bundle's entry points start ./check-worker.ts for it. */
export const CHECK_ROLE = 'probekit-check';

/**
 * The states of a job a check thread runs, in the Int32 it shares with the pool (workerData.state): 0 while it
 * compiles the job's checks, then the thread sets CHECK_MATCHING unless the pool set CHECK_CANCELLED first (the
 * probe's deadline came), in which case it answers without matching.
 */
export const CHECK_MATCHING = 1;
export const CHECK_CANCELLED = 2;

/** One header check of fail_if_header_matches (failWhenMatched) or fail_if_header_not_matches. */
export interface HeaderCheckJob {
  readonly header: string;
  readonly regexp: string;
  readonly allowMissing: boolean;
  readonly failWhenMatched: boolean;
}

/** A dns validator's regexps, as written. */
export interface RecordValidatorJob {
  readonly failIfMatches: readonly string[];
  readonly failIfAllMatch: readonly string[];
  readonly failIfNotMatches: readonly string[];
  readonly failIfNoneMatches: readonly string[];
}

/** One probe's checks of one kind. */
export type CheckJob =
  | { readonly kind: 'body-regexps'; readonly body: Uint8Array; readonly failIfMatches: readonly string[]; readonly failIfNotMatches: readonly string[] }
  | { readonly kind: 'cel'; readonly body: Uint8Array; readonly failIfMatches?: string; readonly failIfNotMatches?: string }
  /** The response's headers, names in lower case, in order. */
  | { readonly kind: 'headers'; readonly headers: ReadonlyArray<readonly [string, string]>; readonly checks: readonly HeaderCheckJob[] }
  /** Each section's records in their text form, with its validator. */
  | { readonly kind: 'records'; readonly sections: ReadonlyArray<{ readonly section: string; readonly records: readonly string[]; readonly validator?: RecordValidatorJob }> }
  /** query_response's `expect` on one line: its match and groups, if any. */
  | { readonly kind: 'expect'; readonly regexp: string; readonly line: string };

/** A log line a check wrote, for the probe's logger. */
export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

export interface CheckResult {
  /** Whether the checks passed; for `expect`, whether the line matched. */
  readonly passed: boolean;
  /** `expect`'s match, when it matched. */
  readonly match?: MatchData;
  readonly lines: readonly LoggedLine[];
}

/** A job as it crosses to a thread, and its answer. */
export type CheckMessage = CheckJob & { readonly id: number };
export type CheckAnswer = CheckResult & { readonly id: number };
