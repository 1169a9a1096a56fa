/**
 * Loads a config file with loadConfigOffThread while a 20 ms timer runs, and prints one line of JSON: the
 * modules loaded and the longest gap between two runs of the timer, in this thread's own CPU time (what the
 * loading code held the event loop for, to within a clock tick) and in wall time (which also counts the turns
 * of other processes). Run by the load-worker test as a process of its own (`node FROM_SOURCE load-stall.ts
 * FILE`): the heap the garbage collector walks during the load is then the loader's, as in the exporter, and not
 * jest's worker's (jest.config.js says what a collection of that cost).
 */
import { loadConfigOffThread } from '../src/config/load-worker';
import { threadCpuMilliseconds } from '../bench/measure';

async function main(file: string): Promise<void> {
  let last = { wall: performance.now(), cpu: threadCpuMilliseconds() };
  const longest = { cpuMs: 0, wallMs: 0 };
  const tick = (): void => {
    const now = { wall: performance.now(), cpu: threadCpuMilliseconds() };
    longest.wallMs = Math.max(longest.wallMs, now.wall - last.wall);
    longest.cpuMs = Math.max(longest.cpuMs, now.cpu - last.cpu);
    last = now;
  };
  const timer = setInterval(tick, 20);
  let modules: number;
  try {
    modules = Object.keys((await loadConfigOffThread(file)).modules).length;
  } finally {
    clearInterval(timer);
  }
  tick();
  process.stdout.write(`${JSON.stringify({ modules, ...longest })}\n`);
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: load-stall.ts CONFIG_FILE');
void main(file);
