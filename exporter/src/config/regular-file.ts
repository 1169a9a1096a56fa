/**
 * The one way the exporter reads a file its configuration names: the config file, the web config file and
 * the files these name (ca_file, cert_file, key_file, bearer_token_file, password_file, client_secret_file,
 * body_file). Only a regular file is read (a symlink is followed to what it points at), and at most
 * MAX_FILE_BYTES of it. Opening never waits: a FIFO without a writer is opened without blocking and then
 * refused, where a plain read would hold a thread of Node's pool until a writer came, and with it the
 * process's exit. A character device such as /dev/zero, whose reads never end, is refused before any read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The largest file read: 64 MiB. A config of 44,000 modules is 5.9 MB, a CA bundle a few hundred KB; the
 * cap only keeps a file that grows without end (a log, a device) from filling the memory.
 */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Its own words, without an errno code: callers print `code ?? message`, so these print as written. */
export class FileRefused extends Error {}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Why `stats` may not be read, or undefined. */
function refusal(stats: Stats, limit: number): FileRefused | undefined {
  if (!stats.isFile()) return new FileRefused(`it is ${kindOf(stats)}, not a regular file; name a regular file (a symlink to one is fine)`);
  if (stats.size > limit) return tooLarge(limit);
  return undefined;
}

function tooLarge(limit: number): FileRefused {
  return new FileRefused(`it is larger than ${limit / (1024 * 1024)} MiB, the most the exporter reads; name a smaller file`);
}

/** O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; on a regular file it changes nothing. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * The reads of one open file, for both drivers below: yields each buffer to fill, takes how many bytes the
 * read gave, and returns the content. The first read asks one byte more than the file had, so that a file
 * that grew since is read on, and refused past the limit.
 */
function* reads(stats: Stats, limit: number): Generator<Buffer, Buffer, number> {
  const refused = refusal(stats, limit);
  if (refused) throw refused;
  const chunks: Buffer[] = [];
  let total = 0;
  for (let size = Math.min(stats.size, limit) + 1; ; size = Math.min(64 * 1024, limit + 1 - total)) {
    const chunk = Buffer.allocUnsafe(size);
    const bytesRead = yield chunk;
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > limit) throw tooLarge(limit);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

/** Reads the regular file at `path`, at most `limit` bytes; rejects with FileRefused or the system's error. */
export async function readRegularFile(path: string, limit = MAX_FILE_BYTES): Promise<Buffer> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const steps = reads(await handle.stat(), limit);
    for (let step = steps.next(); ;) {
      if (step.done) return step.value;
      step = steps.next((await handle.read(step.value, 0, step.value.length, null)).bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** readRegularFile for the few callers that read synchronously (the web config's TLS files). */
export function readRegularFileSync(path: string, limit = MAX_FILE_BYTES): Buffer {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const steps = reads(fstatSync(fd), limit);
    for (let step = steps.next(); ;) {
      if (step.done) return step.value;
      step = steps.next(readSync(fd, step.value, 0, step.value.length, null));
    }
  } finally {
    closeSync(fd);
  }
}

/** What to print of a failed read: the system's code (ENOENT, EACCES) or the refusal's words. */
export function readProblem(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
