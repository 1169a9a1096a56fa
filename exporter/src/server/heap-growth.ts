/**
 * How far V8 lets its old generation grow past what the last full collection kept, before it collects again.
 * Left to choose, V8 picks the factor from how fast it collects against how fast the program allocates, up to
 * four times the live heap. A busy exporter allocates fast and collects a small live heap fast, so it got the
 * largest factor: at 256 probes in flight the old generation held up to 60 MiB, mostly probes' short-lived objects
 * promoted out of the young generation, around a live heap of about 20. A fixed factor of 1.6 brought the peak
 * RSS there from 177 to 186 MiB down to 132, with no difference in CPU per probe that two exporters side by side
 * could resolve (docs/benchmarks.md); 1.3 saved no more and cost about 6 %.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 60;

const FLAG = '--heap-growing-percent';

/**
 * Whether `nodeArguments` (node's own, before the script) choose a growth already: V8 takes the flag with
 * dashes or underscores.
 */
export function chosenByNodeArguments(nodeArguments: readonly string[]): boolean {
  return nodeArguments.some((argument) => {
    const name = argument.split('=', 1)[0].replaceAll('_', '-');
    return name === FLAG;
  });
}

/**
 * Sets the growth for the whole process (worker threads included: V8's flags are per process) unless node
 * was started with one of its own choosing, such as `node --heap-growing-percent=0` for V8's own sizing.
 * True when it set it. Takes effect from the next full collection, so it can be called at any time.
 */
export function boundHeapGrowth(nodeArguments: readonly string[] = process.execArgv): boolean {
  if (chosenByNodeArguments(nodeArguments)) return false;
  setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
  return true;
}
