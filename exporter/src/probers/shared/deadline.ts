/**
 * Small helpers that make any promise or socket obey a probe's deadline, so that no prober waits past it
 * and nothing stays registered on the deadline's signal once the probe is over. The deadline's signal
 * also fires when the probe is interrupted before its time: the scrape that asked for it went away, or an
 * error escaped the probe (see ../../server/escaped-errors.ts).
 */
import type { ProbeDeadline } from '../types';

/** The error every phase reports when the deadline fires, so logs say "deadline" instead of a socket error. */
export class DeadlineExceeded extends Error {
  constructor(phase: string) {
    super(`deadline exceeded during ${phase}`);
    this.name = 'DeadlineExceeded';
  }
}

/** Why a probe stopped before its deadline; every phase waiting when it happens rejects with it. */
export class ProbeInterrupted extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ProbeInterrupted';
  }
}

function abortError(signal: AbortSignal, phase: string): Error {
  return signal.reason instanceof ProbeInterrupted ? signal.reason : new DeadlineExceeded(phase);
}

/** Resolves or rejects as `work` does, or rejects with DeadlineExceeded (or ProbeInterrupted) when the signal fires first. */
export function beforeDeadline<T>(deadline: ProbeDeadline, phase: string, work: Promise<T>): Promise<T> {
  const { signal } = deadline;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortError(signal, phase));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal, phase));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Node's timers take at most 2^31-1 ms (about 24.8 days); a longer delay fires after 1 ms. A scrape
 * timeout header may ask for more (a module without timeout takes it as it comes), so longer deadlines
 * wait in steps of this size.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface RunningDeadline extends ProbeDeadline {
  /** The probe is over: clears the timer and stops listening for its scrape going away. */
  cancel(): void;
  /** Stops the probe now: every phase waiting rejects with `reason`. */
  interrupt(reason: ProbeInterrupted): void;
}

/**
 * An AbortSignal-driven deadline firing `milliseconds` from now, or earlier when `abandoned` fires (the
 * scrape that asked for the probe went away) or `interrupt` is called.
 */
export function deadlineIn(milliseconds: number, abandoned?: AbortSignal): RunningDeadline {
  const controller = new AbortController();
  const at = Date.now() + milliseconds;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = at - Date.now();
    timer = left > LONGEST_TIMER_MS ? setTimeout(arm, LONGEST_TIMER_MS) : setTimeout(() => controller.abort(new DeadlineExceeded('probe')), left);
    timer.unref();
  };
  arm();
  const interrupt = (reason: ProbeInterrupted): void => {
    clearTimeout(timer);
    controller.abort(reason);
  };
  const onAbandoned = (): void => interrupt(new ProbeInterrupted('the scrape went away before the probe ended'));
  if (abandoned?.aborted) onAbandoned();
  else abandoned?.addEventListener('abort', onAbandoned, { once: true });
  return {
    signal: controller.signal,
    at,
    cancel: () => {
      clearTimeout(timer);
      abandoned?.removeEventListener('abort', onAbandoned);
    },
    interrupt,
  };
}
