/**
 * The last line of defence of the probe path: an error that escapes a probe (thrown in a callback, an
 * 'error' event with no listener, a rejected promise nobody awaited) fails that probe and leaves the
 * exporter running, instead of ending the process with every other probe in flight.
 *
 * It is not how probes handle errors: every emitter a probe creates has its error listener from the start
 * (the probe's Resources), and every phase waits on its emitters' errors, so a target cannot raise an error
 * that gets here. Anything that does is a bug of ours, and this keeps its cost to one probe: the probe is
 * interrupted (its resources destroyed, probe_success 0) and the error logged with the probe's module and
 * target, so it can be found and fixed. It cannot be the main mechanism: after an escaped error the code
 * that threw did not finish its work, so only what the probe alone owns may be trusted to be cleaned up,
 * and an error outside any probe (in the server itself) still ends the process, as Node would.
 *
 * A probe runs in an async context (AsyncLocalStorage) that every callback and promise it starts
 * inherits, which is how an error arriving at the process's handlers is traced back to its probe.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '../log';

/** What the handlers need of the probe an error escaped from. */
export interface ProbeScope {
  readonly module: string;
  readonly target: string;
  /** Fails the probe now; called at most once per escaped error. */
  escaped(error: unknown): void;
}

const running = new AsyncLocalStorage<ProbeScope>();

/** Runs `work` as the probe `scope`: an error that escapes it, now or from a callback it started, goes to `scope.escaped`. */
export function runContained<T>(scope: ProbeScope, work: () => Promise<T>): Promise<T> {
  return running.run(scope, work);
}

let installed: Logger | undefined;

/**
 * Installs the process-wide handlers, once. An error from a probe fails that probe; any other error ends
 * the process as Node does without handlers (logged, exit code 1), unless another handler (a test
 * runner's) is there to deal with it.
 */
export function containEscapedErrors(log: Logger): void {
  if (installed) return;
  installed = log;
  const handle = (kind: 'uncaughtException' | 'unhandledRejection') => (error: unknown) => {
    const scope = running.getStore();
    if (scope) {
      log.error('An error escaped a probe; the probe fails and the exporter keeps running', { kind, module: scope.module, target: scope.target, err: describe(error) });
      scope.escaped(error);
      return;
    }
    if (process.listenerCount(kind) > 1) return;
    log.error('Unexpected error outside any probe; exiting', { kind, err: describe(error) });
    process.exit(1);
  };
  process.on('uncaughtException', handle('uncaughtException'));
  process.on('unhandledRejection', handle('unhandledRejection'));
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  return String(error);
}
