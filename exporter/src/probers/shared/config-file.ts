/**
 * Files a module names (ca_file, credentials, secret headers, body_file) are read at every probe, as
 * upstream, so a rotated Secret takes effect without a reload. Reading means one stat while the file is
 * unchanged: the content is kept until the file's identity, size or times change (a Kubernetes Secret
 * update swaps a symlink, which changes the inode). A file is read as the config file is (a regular file,
 * bounded: ../../config/regular-file.ts), so a FIFO or a device named here fails the probe at once.
 *
 * Probes that ask for a file while a stat of it is under way share that stat rather than each queueing its
 * own on Node's thread pool: each stat is a round trip through the pool (a hand-off and a wake-up), which at
 * 256 TLS probes in flight with a ca_file cost more of the main thread than the handshake's own JavaScript.
 * A probe that joins a stat issued before it started sees the file as it was microseconds earlier, which is
 * what it would have seen had it started then; every probe still sees a change made before the stat it uses.
 */
import { stat } from 'node:fs/promises';
import { readProblem, readRegularFile } from '../../config/regular-file';

interface Kept {
  readonly signature: string;
  readonly content: Buffer;
  /** The content as UTF-8 text, decoded at its first use: one string for as long as the file is unchanged. */
  text?: string;
}

/** Enough for every file of a large config; the oldest entry goes first. */
const FILES_KEPT = 1024;
const kept = new Map<string, Kept>();
/** The stat under way for each path, shared by the probes that ask meanwhile. */
const statting = new Map<string, Promise<string>>();

/** The file's identity, size and times as one text: a change of any means the file changed. */
function signatureOf(path: string): Promise<string> {
  let pending = statting.get(path);
  if (pending === undefined) {
    pending = stat(path).then((now) => `${now.dev}:${now.ino}:${now.size}:${now.mtimeMs}:${now.ctimeMs}`);
    const settled = (): void => void statting.delete(path);
    pending.then(settled, settled);
    statting.set(path, pending);
  }
  return pending;
}

async function readFresh(path: string): Promise<Kept> {
  const signature = await signatureOf(path);
  const cached = kept.get(path);
  if (cached?.signature === signature) return cached;
  const fresh: Kept = { signature, content: await readRegularFile(path) };
  kept.delete(path);
  if (kept.size >= FILES_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(path, fresh);
  return fresh;
}

/** A file the module names could not be read: the module is not usable as it stands. */
export class ConfiguredFileError extends Error {}

/** The file at `path`, current as of this probe; a failure names `field` and the path. */
export async function readConfiguredFile(field: string, path: string): Promise<Buffer> {
  return (await readKept(field, path)).content;
}

/**
 * The file at `path` as UTF-8 text, current as of this probe: the same string while the file is unchanged, so
 * that what is keyed by it (a TLS secure context) is found without decoding and hashing the file again.
 */
export async function readConfiguredText(field: string, path: string): Promise<string> {
  const file = await readKept(field, path);
  file.text ??= file.content.toString('utf8');
  return file.text;
}

async function readKept(field: string, path: string): Promise<Kept> {
  try {
    return await readFresh(path);
  } catch (error) {
    throw new ConfiguredFileError(`${field}: cannot read ${path}: ${readProblem(error)}`);
  }
}
