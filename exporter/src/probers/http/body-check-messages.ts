/** What the threads that check bodies (./body-checks.ts, ./body-check-worker.ts) say to each other. */

/** workerData.role of a body-check thread: the bundle's entry points start ./body-check-worker.ts for it. */
export const BODY_CHECK_ROLE = 'probekit-body-check';

/** One probe's checks of one kind, on its body; each check as written in the config. */
export type BodyCheckJob = { readonly id: number; readonly body: Uint8Array } & (
  | { readonly kind: 'regexps'; readonly failIfMatches: readonly string[]; readonly failIfNotMatches: readonly string[] }
  | { readonly kind: 'cel'; readonly failIfMatches?: string; readonly failIfNotMatches?: string }
);

/** A log line a check wrote, for the probe's logger. */
export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

export interface BodyCheckResult {
  readonly id: number;
  readonly passed: boolean;
  readonly lines: readonly LoggedLine[];
}
