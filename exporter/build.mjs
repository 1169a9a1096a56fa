// Bundles the exporter (exporter/src/main.ts and only the packages it imports) into one file that runs
// with plain `node`, no node_modules needed: the file the bin, the system service and the image run.
// Usage: node exporter/build.mjs [--outfile FILE] [--metafile FILE]
import { build } from 'esbuild';
import { chmodSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : process.argv[index + 1];
};
const outfile = argument('--outfile', join(here, 'dist', 'probekit-exporter.js'));
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

const result = await build({
  entryPoints: [join(here, 'src', 'main.ts')],
  outfile,
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
  // Named only on the config loader's path for running from TypeScript sources, never taken in the bundle.
  external: ['tsx/cjs'],
  plugins: [sameBuildForLazyRequires()],
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
if (metafile) writeFileSync(metafile, JSON.stringify(result.metafile));
const packages = new Set(
  Object.keys(result.metafile.inputs)
    .map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1])
    .filter(Boolean),
);
console.log(`${outfile}: ${(result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].bytes / 1024).toFixed(0)} KiB, packages: ${[...packages].sort().join(', ')}`);
