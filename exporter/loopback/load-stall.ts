/**
 * Loads a config file with loadConfigOffThread while measuring how long the event loop is held
 * (event-loop-hold.ts), and prints one line of JSON: the modules loaded and the longest hold, in this thread's
 * own CPU time and in wall time. Run by the load-worker test as a process of its own (`node FROM_SOURCE load-stall.ts
 * FILE`): the heap the garbage collector walks during the load is then the loader's, as in the exporter, and not
 * jest's worker's (jest.config.js says what a collection of that cost).
 */
import { loadConfigOffThread } from '../src/config/load-worker';
import { measureEventLoopHold, type EventLoopHold } from './event-loop-hold';

async function main(file: string): Promise<void> {
  const hold = measureEventLoopHold();
  let modules: number;
  let longest: EventLoopHold;
  try {
    modules = Object.keys((await loadConfigOffThread(file)).modules).length;
  } finally {
    longest = hold.stop();
  }
  process.stdout.write(`${JSON.stringify({ modules, ...longest })}\n`);
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: load-stall.ts CONFIG_FILE');
void main(file);
