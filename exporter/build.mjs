// The exporter package's build outputs, each one file that runs with plain `node` and no node_modules: the exporter
// bundle (exporter/src/main.ts and the packages it imports), which the bin, the system service and the image run; and
// with --contract, the contract bundle (exporter/src/contract/index.ts) that other packages import, with the type
// declarations it needs, so that the npm package depends on nothing.
// Usage: node exporter/build.mjs [--outfile FILE] [--metafile FILE]
//        node exporter/build.mjs --contract [--outdir DIR] [--metafile FILE]   (DIR: dist/contract.js and lib/, default exporter/)
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : process.argv[index + 1];
};
const metafile = argument('--metafile', undefined);

/**
 * Our sources require some packages where they are first used, so that the bundle initializes them only
 * then (esbuild keeps a required module behind an init function). A package that ships both builds would
 * then come in twice, its CommonJS build for the require and its ES module build for the imports
 * elsewhere (@bufbuild/cel and @bufbuild/protobuf: 0.6 MiB more source, which V8 keeps in memory): a
 * require from our sources resolves as an import does.
 */
function sameBuildForLazyRequires() {
  return {
    name: 'same-build-for-lazy-requires',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind !== 'require-call' || args.importer.includes('/node_modules/') || args.pluginData === 'resolving') return undefined;
        return builder.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir, importer: args.importer, pluginData: 'resolving' });
      });
    },
  };
}

/** What both bundles share: CommonJS for Node 20, whitespace out, the licences of what they carry kept. */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Whitespace and comments only: names stay, so stack traces still read. V8 keeps the whole source in
  // memory for as long as the process runs, and two comments in zod with non-ASCII letters made it a two-byte
  // string: 3.4 MiB of heap before, 1.3 MiB after.
  minifyWhitespace: true,
  sourcemap: false,
  metafile: true,
  legalComments: 'inline',
  // Named only on the config loader's path for running from TypeScript sources, never taken in a bundle.
  external: ['tsx/cjs'],
  plugins: [sameBuildForLazyRequires()],
  logLevel: 'warning',
};

/** The packages an esbuild result carries, for the line each build prints. */
function report(outfile, result) {
  const packages = new Set(
    Object.keys(result.metafile.inputs)
      .map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1])
      .filter(Boolean),
  );
  const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].bytes;
  console.log(`${outfile}: ${(bytes / 1024).toFixed(0)} KiB, packages: ${[...packages].sort().join(', ')}`);
  if (metafile) writeFileSync(metafile, JSON.stringify(result.metafile));
}

async function bundleExporter(outfile) {
  const result = await build({ ...common, entryPoints: [join(here, 'src', 'main.ts')], outfile });
  chmodSync(outfile, 0o755);
  report(outfile, result);
}

/**
 * Every declaration file `index` reaches through relative imports, and the bare module names it imports: a
 * declaration that names a package would need that package installed beside ours, which the package does not
 * declare (zod's would also need esModuleInterop in the user's project).
 */
function declarationClosure(root, index) {
  const files = new Set();
  const packages = new Set();
  const queue = [index];
  while (queue.length > 0) {
    const file = queue.pop();
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    for (const [, specifier] of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g)) {
      if (!specifier.startsWith('.')) {
        if (!specifier.startsWith('node:')) packages.add(`${specifier} (${file})`);
        continue;
      }
      const target = join(dirname(file), specifier.replace(/\.js$/, ''));
      queue.push(existsSync(join(root, `${target}.d.ts`)) ? `${target}.d.ts` : join(target, 'index.d.ts'));
    }
  }
  return { files: [...files].sort(), packages: [...packages] };
}

/** The contract bundle to DIR/dist/contract.js, and the declarations its entry point reaches to DIR/lib. */
async function buildContract(outdir) {
  const outfile = join(outdir, 'dist', 'contract.js');
  report(outfile, await build({ ...common, entryPoints: [join(here, 'src', 'contract', 'index.ts')], outfile }));

  // Declarations only, unchecked (type checking is `npm run typecheck`'s), then only those the entry point reaches.
  const emitted = mkdtempSync(join(tmpdir(), 'probekit-contract-types-'));
  try {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json'), '--noCheck', '--outDir', emitted], { stdio: 'inherit' });
    const { files, packages } = declarationClosure(emitted, join('src', 'contract', 'index.d.ts'));
    if (packages.length > 0) throw new Error(`the contract's declarations import ${packages.join(', ')}; declare what they need in src/contract instead`);
    const lib = join(outdir, 'lib');
    rmSync(lib, { recursive: true, force: true });
    for (const file of files) {
      mkdirSync(dirname(join(lib, file)), { recursive: true });
      copyFileSync(join(emitted, file), join(lib, file));
    }
    console.log(`${lib}: ${files.length} declaration files`);
  } finally {
    rmSync(emitted, { recursive: true, force: true });
  }
}

if (process.argv.includes('--contract')) await buildContract(resolve(argument('--outdir', here)));
else await bundleExporter(resolve(argument('--outfile', join(here, 'dist', 'probekit-exporter.js'))));
