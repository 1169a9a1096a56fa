/**
 * Small helpers that make any promise or socket obey a probe's deadline, so that no prober waits past it
 * and nothing stays registered on the deadline's signal once the probe is over.
 */
import type { ProbeDeadline } from '../types';

/** The error every phase reports when the deadline fires, so logs say "deadline" instead of a socket error. */
export class DeadlineExceeded extends Error {
  constructor(phase: string) {
    super(`deadline exceeded during ${phase}`);
    this.name = 'DeadlineExceeded';
  }
}

/** Resolves or rejects as `work` does, or rejects with DeadlineExceeded when the deadline fires first. */
export function beforeDeadline<T>(deadline: ProbeDeadline, phase: string, work: Promise<T>): Promise<T> {
  const { signal } = deadline;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new DeadlineExceeded(phase));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new DeadlineExceeded(phase));
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

/** An AbortSignal-driven deadline firing `milliseconds` from now; `cancel` clears its timer early. */
export function deadlineIn(milliseconds: number): ProbeDeadline & { cancel(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded('probe')), milliseconds);
  timer.unref();
  return {
    signal: controller.signal,
    at: Date.now() + milliseconds,
    cancel: () => clearTimeout(timer),
  };
}
