/**
 * `npm pack` of the root package and the exporter package as they would be published, without touching this
 * working tree: each package folder is copied (build outputs and node_modules left out), built into the copy from
 * the current sources, and packed there. Packing in place would run the packages' prepare/build scripts, and
 * rebuilding the ICMP addon in place would pull it from under other tests that load it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { npmEnv } from './npm-cache';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The addon the exporter's build makes (node-gyp, which needs python3, make and a C compiler). */
const ADDON = join('native', 'build', 'Release', 'icmp_socket.node');

export interface Packed {
  /** The .tgz that `npm pack` wrote. */
  readonly tarball: string;
  /** Paths inside the package, as npm lists them. */
  readonly files: readonly string[];
  readonly fileCount: number;
  readonly unpackedSize: number;
}

/** Copies `from` to `to`, leaving out the named top-level entries of `from`, and every node_modules folder. */
function copyWithout(from: string, to: string, leftOut: readonly string[]): void {
  cpSync(from, to, {
    recursive: true,
    filter: (path) => {
      const parts = relative(from, path).split(sep);
      return !leftOut.includes(parts[0]) && !parts.includes('node_modules');
    },
  });
}

async function npmPack(folder: string, destination: string): Promise<Packed> {
  // --ignore-scripts: the copy is built already, and has no node_modules to run a build with.
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: folder, env: npmEnv() });
  const [result] = JSON.parse(stdout) as { filename: string; files: { path: string }[]; entryCount: number; unpackedSize: number }[];
  return { tarball: join(destination, result.filename), files: result.files.map((file) => file.path).sort(), fileCount: result.entryCount, unpackedSize: result.unpackedSize };
}

/**
 * Packs both packages into `work` and returns what they hold. The exporter's addon is the one this tree's build
 * made (`npm ci` / `npm run build`); the contract, the bundle and the library are built from the current sources.
 */
export async function packPackages(work: string): Promise<{ probekit: Packed; exporter: Packed }> {
  const addon = join(ROOT, 'exporter', ADDON);
  if (!existsSync(addon)) throw new Error(`${addon} is missing: run npm run build (it builds the exporter's ICMP addon)`);
  const buildOutputs = ['node_modules', 'lib', 'dist', '.git', 'coverage', 'cdk8s.out', '.pulumi'];

  const exporter = join(work, 'stage', 'exporter');
  copyWithout(join(ROOT, 'exporter'), exporter, buildOutputs);
  mkdirSync(join(exporter, 'native', 'build', 'Release'), { recursive: true });
  copyFileSync(addon, join(exporter, ADDON));
  const probekit = join(work, 'stage', 'probekit');
  copyWithout(ROOT, probekit, [...buildOutputs, 'exporter', 'stacks']);

  // Emit only: type checking is `npm run typecheck`'s job, and the consumer test checks the declarations where they
  // are installed. (The root build resolves the exporter's declarations from this tree's exporter/lib.)
  await Promise.all([
    run(process.execPath, [TSC, '-p', join(ROOT, 'exporter', 'tsconfig.build.json'), '--noCheck', '--outDir', join(exporter, 'lib')], { cwd: ROOT }),
    run(process.execPath, [join(ROOT, 'exporter', 'build.mjs'), '--outfile', join(exporter, 'dist', 'probekit-exporter.js')], { cwd: ROOT }),
    run(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck', '--outDir', join(probekit, 'lib')], { cwd: ROOT }),
  ]);
  const destination = join(work, 'packs');
  mkdirSync(destination, { recursive: true });
  return { probekit: await npmPack(probekit, destination), exporter: await npmPack(exporter, destination) };
}
