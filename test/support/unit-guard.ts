/**
 * Unit tests start no server, open no socket, run no other program and start no thread: they are the inner
 * loop (`npm run test:unit`, seconds). A test that needs any of those is an integration test, named
 * `*.integration.test.ts` (docs/development.md). This guard keeps the two apart without anyone's memory: in a
 * unit test file, listening, connecting, binding a datagram socket, starting a child process or a worker thread
 * throws at the call and fails the file in its last hook (in case the test caught the error, say to skip).
 *
 * Node's core modules are shared by every test file a jest worker runs, unit or integration, so the guard is
 * installed once per process and switched on or off by each file's setup (test/setup/unit.ts,
 * test/setup/integration.ts), never left as the previous file set it.
 */
import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import { promisify } from 'node:util';
import workerThreads from 'node:worker_threads';

interface GuardState {
  on: boolean;
  /** What the current unit test file tried, in the order tried. */
  tried: string[];
}

const STATE = Symbol.for('probekit.unitGuard');

export const MISFILED =
  'this is an integration test: a unit test (*.test.ts) starts no server, opens no socket, runs no child process or worker thread; ' +
  'name the file *.integration.test.ts (docs/development.md, "Unit and integration tests")';

function refuse(state: GuardState, what: string): void {
  if (!state.on) return;
  state.tried.push(what);
  throw new Error(`${what}: ${MISFILED}`);
}

function wrap<T extends object, K extends keyof T>(state: GuardState, owner: T, key: K, what: string): void {
  const original = owner[key] as unknown as (...args: unknown[]) => unknown;
  const guard = (inner: (...args: unknown[]) => unknown) =>
    function (this: unknown, ...args: unknown[]): unknown {
      refuse(state, what);
      return inner.apply(this, args);
    };
  const guarded = guard(original);
  // exec and execFile carry their own promisified form ({ stdout, stderr }), which promisify() hands out: keep it, guarded.
  const custom = (original as unknown as Record<symbol, ((...args: unknown[]) => unknown) | undefined>)[promisify.custom];
  if (custom !== undefined) Object.defineProperty(guarded, promisify.custom, { value: guard(custom), configurable: true });
  // A property the module made read-only (none today) is left alone rather than failing every file.
  try {
    Object.defineProperty(owner, key, { value: guarded, writable: true, configurable: true, enumerable: true });
  } catch {
    /* kept as is */
  }
}

function install(): GuardState {
  const holder = net as unknown as Record<symbol, GuardState | undefined>;
  const installed = holder[STATE];
  if (installed !== undefined) return installed;
  const state: GuardState = { on: false, tried: [] };
  wrap(state, net.Server.prototype, 'listen', 'net.Server listen');
  wrap(state, net.Socket.prototype, 'connect', 'net.Socket connect');
  wrap(state, dgram.Socket.prototype, 'bind', 'dgram.Socket bind');
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
    wrap(state, childProcess, name, `child_process.${name}`);
  }
  const Original = workerThreads.Worker;
  class GuardedWorker extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      refuse(state, 'worker_threads.Worker');
      super(...args);
    }
  }
  Object.defineProperty(workerThreads, 'Worker', { value: GuardedWorker, writable: true, configurable: true, enumerable: true });
  holder[STATE] = state;
  return state;
}

/** Switches the guard on for a unit test file (and fails the file if it tried anyway) or off for an integration one. */
export function guardUnitTests(on: boolean): void {
  const state = install();
  state.on = on;
  state.tried = [];
  if (!on) return;
  afterAll(() => {
    const tried = [...new Set(state.tried)];
    state.on = false;
    if (tried.length > 0) throw new Error(`${tried.join(', ')}: ${MISFILED}`);
  });
}
