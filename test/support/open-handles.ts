/** What a test process holds open, to show that a probe left nothing behind. */
import { readdirSync } from 'node:fs';

/** Sockets and servers this process holds (libuv handles Node lists), to show a probe left none behind. */
export function openHandles(): string[] {
  return process
    .getActiveResourcesInfo()
    .filter((name) => name.endsWith('Wrap'))
    .sort();
}

/** Handles in `after` beyond those in `before` (earlier tests' sockets may still be closing in `before`). */
export function handlesAdded(before: readonly string[], after: readonly string[] = openHandles()): string[] {
  const remaining = [...before];
  return after.filter((name) => {
    const index = remaining.indexOf(name);
    if (index < 0) return true;
    remaining.splice(index, 1);
    return false;
  });
}

/** Descriptors this process has open (sockets of native addons included, which Node does not list). */
export function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}
