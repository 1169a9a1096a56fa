/**
 * Files a module names (ca_file, credentials, secret headers, body_file) are read at every probe, as
 * upstream, so a rotated Secret takes effect without a reload. Reading means one stat while the file is
 * unchanged: the content is kept until the file's identity, size or times change (a Kubernetes Secret
 * update swaps a symlink, which changes the inode). A file is read as the config file is (a regular file,
 * bounded: ../../config/regular-file.ts), so a FIFO or a device named here fails the probe at once.
 */
import { stat } from 'node:fs/promises';
import { readProblem, readRegularFile } from '../../config/regular-file';

interface Kept {
  readonly signature: string;
  readonly content: Buffer;
}

/** Enough for every file of a large config; the oldest entry goes first. */
const FILES_KEPT = 1024;
const kept = new Map<string, Kept>();

async function readFresh(path: string): Promise<Buffer> {
  const now = await stat(path);
  const signature = `${now.dev}:${now.ino}:${now.size}:${now.mtimeMs}:${now.ctimeMs}`;
  const cached = kept.get(path);
  if (cached?.signature === signature) return cached.content;
  const content = await readRegularFile(path);
  kept.delete(path);
  if (kept.size >= FILES_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(path, { signature, content });
  return content;
}

/** A file the module names could not be read: the module is not usable as it stands. */
export class ConfiguredFileError extends Error {}

/** The file at `path`, current as of this probe; a failure names `field` and the path. */
export async function readConfiguredFile(field: string, path: string): Promise<Buffer> {
  try {
    return await readFresh(path);
  } catch (error) {
    throw new ConfiguredFileError(`${field}: cannot read ${path}: ${readProblem(error)}`);
  }
}
