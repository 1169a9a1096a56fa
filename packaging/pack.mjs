// The npm tarballs of the packages, as they are published: each built from the current sources into a folder of its
// own and packed there with the package.json an installed package needs. That manifest keeps no scripts (so no
// prepare or install script runs where it is installed; this repository's `prepare`, which builds a checkout on
// `npm ci`, stays in the repository), no devDependencies or workspaces, and no export condition that points at the
// sources. Nothing in the working tree is written: tests that load this tree's builds go on undisturbed.
//
// Usage: node packaging/pack.mjs [--out DIR] [--json]   (default DIR: ./packs; --json prints what each tarball holds)
// Publish the tarballs it writes (`npm publish probekit-<version>.tgz`), never a package folder.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const EXPORTER_BUILD = join(ROOT, 'exporter', 'build.mjs');

/**
 * Each package: its folder, the files copied beside its build outputs, and the commands that build it into a
 * folder. Type checking is `npm run typecheck`'s job, so the builds only emit. Declarations refer to another
 * package's by its name, resolved from this tree's build of it (`npm ci` or `npm run build` writes them).
 */
const PACKAGES = [
  {
    folder: 'exporter',
    copied: ['LICENSE', 'blackbox.yml'],
    builds: (stage) => [
      [process.execPath, [EXPORTER_BUILD, '--outfile', join(stage, 'dist', 'probekit-exporter.js')]],
      [process.execPath, [EXPORTER_BUILD, '--contract', '--outdir', stage]],
    ],
  },
  {
    folder: '.',
    copied: ['README.md', 'LICENSE'],
    builds: (stage) => [[process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck', '--outDir', join(stage, 'lib')]]],
  },
  {
    folder: 'assistant',
    copied: ['README.md', 'LICENSE'],
    builds: (stage) => [[process.execPath, [TSC, '-p', join(ROOT, 'assistant', 'tsconfig.build.json'), '--noCheck', '--outDir', join(stage, 'lib')]]],
  },
];

/** An `exports` map without the condition that resolves this repository's packages to their sources. */
function withoutSourceCondition(exports) {
  if (exports === null || typeof exports !== 'object') return exports;
  return Object.fromEntries(Object.entries(exports).flatMap(([key, value]) => (key === '@probekit/source' ? [] : [[key, withoutSourceCondition(value)]])));
}

/** What a published package.json leaves out: this repository's development. */
const DEVELOPMENT_FIELDS = ['scripts', 'devDependencies', 'workspaces', 'overrides'];

/** The package.json a package is published with. */
function publishedManifest(manifest) {
  const kept = Object.fromEntries(Object.entries(manifest).filter(([field]) => !DEVELOPMENT_FIELDS.includes(field)));
  return kept.exports === undefined ? kept : { ...kept, exports: withoutSourceCondition(kept.exports) };
}

/** Builds one package into `stage` and packs it into `out`; what npm says the tarball holds. */
async function pack(definition, stage, out) {
  const folder = join(ROOT, definition.folder);
  const manifest = publishedManifest(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')));
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of definition.copied) if (existsSync(join(folder, file))) copyFileSync(join(folder, file), join(stage, file));
  await Promise.all(definition.builds(stage).map(([command, args]) => run(command, args, { cwd: ROOT, maxBuffer: 1 << 24 })));
  // --ignore-scripts: the manifest has none; this keeps it so should one come back.
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: stage, maxBuffer: 1 << 24 });
  const [result] = JSON.parse(stdout);
  return {
    name: manifest.name,
    tarball: join(out, result.filename),
    size: result.size,
    unpackedSize: result.unpackedSize,
    fileCount: result.entryCount,
    files: result.files.map((file) => file.path).sort(),
  };
}

const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex === -1 ? join(ROOT, 'packs') : process.argv[outIndex + 1]);
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'probekit-pack-'));
try {
  const packed = await Promise.all(PACKAGES.map((definition, index) => pack(definition, join(work, String(index)), out)));
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(packed, null, 2)}\n`);
  else for (const { tarball, size, unpackedSize } of packed) process.stdout.write(`${tarball}: ${size} bytes, ${unpackedSize} unpacked\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
