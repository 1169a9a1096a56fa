/**
 * How long this thread's event loop was held, measured by a 20 ms timer: the longest gap between two of its runs,
 * in this thread's own CPU time (what code on this thread held the loop for, to within a clock tick, whatever else
 * the machine runs) and in wall time (which also counts other processes' turns and the machine's load). Tests
 * bound the CPU figure; the wall figure is for the benchmark and for saying what happened.
 */
import { threadCpuMilliseconds } from '../bench/measure';

export interface EventLoopHold {
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** Starts measuring; `stop` ends it and returns the longest hold seen. */
export function measureEventLoopHold(): { stop(): EventLoopHold } {
  let last = { wall: performance.now(), cpu: threadCpuMilliseconds() };
  const longest = { cpuMs: 0, wallMs: 0 };
  const tick = (): void => {
    const now = { wall: performance.now(), cpu: threadCpuMilliseconds() };
    longest.wallMs = Math.max(longest.wallMs, now.wall - last.wall);
    longest.cpuMs = Math.max(longest.cpuMs, now.cpu - last.cpu);
    last = now;
  };
  const timer = setInterval(tick, 20);
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      return { ...longest };
    },
  };
}
