/** What a test process holds open, to show that a probe left nothing behind. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/**
 * Handles beyond `before` that are still there after up to two seconds: a leak stays, while another test
 * file's socket that happens to be closing or connecting in this worker at the moment goes away.
 */
export async function handlesLeftAfter(before: readonly string[]): Promise<string[]> {
  for (let tries = 0; tries < 40 && handlesAdded(before).length > 0; tries += 1) await new Promise((done) => setTimeout(done, 50));
  return handlesAdded(before);
}

/** Descriptors this process has open (sockets of native addons included, which Node does not list). */
export function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

/** Waits (up to two seconds) for `measure` to drop to `limit`; returns the last measurement. */
export async function settledAt(limit: number, measure: () => number = openDescriptors): Promise<number> {
  for (let tries = 0; tries < 40 && measure() > limit; tries += 1) await new Promise((done) => setTimeout(done, 50));
  return measure();
}

const LISTENING = '0A';

/**
 * Connected TCP sockets this process holds with either end on `port` (listeners left out). Counting only
 * the test's own server port keeps the measure exact when other files' leftovers close in the same worker.
 */
export function connectionsOnPort(port: number): number {
  const inodes = new Set(
    readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        const link = readlinkSync(`/proc/self/fd/${fd}`);
        return link.startsWith('socket:[') ? [link.slice('socket:['.length, -1)] : [];
      } catch {
        return []; // closed between the listing and the read
      }
    }),
  );
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/self/net/tcp', '/proc/self/net/tcp6']
    .flatMap((table) => readFileSync(table, 'utf8').trim().split('\n').slice(1))
    .map((row) => row.trim().split(/\s+/))
    .filter(([, local, remote, state, , , , , , inode]) => state !== LISTENING && inodes.has(inode) && [local, remote].some((end) => end.endsWith(`:${portHex}`))).length;
}
