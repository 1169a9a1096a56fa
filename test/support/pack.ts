/**
 * The packages packed as they are published, by the project's own pack step (packaging/pack.mjs: each package built
 * from the current sources into a folder of its own and packed there, the working tree untouched).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmEnv } from './npm-cache';

const run = promisify(execFile);
const PACK = join(__dirname, '..', '..', 'packaging', 'pack.mjs');

export interface Packed {
  readonly name: string;
  /** The .tgz that `npm pack` wrote. */
  readonly tarball: string;
  /** Bytes of the .tgz. */
  readonly size: number;
  readonly unpackedSize: number;
  /** Paths inside the package, as npm lists them. */
  readonly files: readonly string[];
  readonly fileCount: number;
}

/** Packs every package into `folder`, by package name. */
export async function packPackages(folder: string): Promise<Readonly<Record<string, Packed>>> {
  const { stdout } = await run(process.execPath, [PACK, '--out', folder, '--json'], { env: npmEnv(), maxBuffer: 1 << 24 });
  return Object.fromEntries((JSON.parse(stdout) as Packed[]).map((packed) => [packed.name, packed]));
}
