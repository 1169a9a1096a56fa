// The release bundles of the single-machine form, one per architecture: probekit-exporter-<version>-linux-<arch>.tar.gz
// holding the exporter bundle, the ICMP addon compiled for that architecture, the probekit command (it renders the
// host files from the spec, with the same renderers as the cluster form), the unit for the default vendor, the
// installer, a README, the license and SHA256SUMS of those files; beside the tarballs, SHA256SUMS of the tarballs.
// Only Node is needed on the machine.
//
// The addon is compiled with node-gyp against Node's headers from the distribution (npm's nodedir, else the
// include/node folder beside this Node), for an architecture other than this machine's with Debian's cross compilers
// (gcc-aarch64-linux-gnu and g++-aarch64-linux-gnu for arm64): nothing is downloaded.
//
// Usage: npm run package [-- --out DIR] [--arch amd64|arm64]...   (default: both, into exporter/release)
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const exporterDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repository = resolve(exporterDir, '..');

/** Each architecture: Node's name for it, and the GNU triple of its compilers. */
const ARCHITECTURES = {
  amd64: { node: 'x64', triple: 'x86_64-linux-gnu' },
  arm64: { node: 'arm64', triple: 'aarch64-linux-gnu' },
};

function fail(message) {
  process.stderr.write(`npm run package: ${message}\n`);
  process.exit(2);
}

function parseArguments(argv) {
  const options = { out: join(exporterDir, 'release'), architectures: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    const value = argv[index + 1];
    if (flag !== '--out' && flag !== '--arch') fail(`unknown argument ${flag}; usage: npm run package [-- --out DIR] [--arch amd64|arm64]...`);
    if (value === undefined || value.startsWith('--')) fail(`${flag} needs a value`);
    if (flag === '--out') options.out = resolve(value);
    else if (value in ARCHITECTURES) options.architectures.push(value);
    else fail(`--arch ${value}: use amd64 or arm64`);
    index += 1;
  }
  if (options.architectures.length === 0) options.architectures = Object.keys(ARCHITECTURES);
  return options;
}

/** Node's C headers, from the distribution: never a download. */
function nodeHeaders() {
  const candidates = [process.env.npm_config_nodedir, dirname(dirname(process.execPath))].filter(Boolean);
  const found = candidates.find((folder) => existsSync(join(folder, 'include', 'node', 'node_api.h')));
  if (!found) fail(`Node's headers (include/node/node_api.h) are not in ${candidates.join(' or ')}; install the distribution's Node with its headers, or set npm's nodedir`);
  return found;
}

/** The ICMP addon compiled for `arch`, in a folder of its own so that the build tree's addon stays as it is. */
function compileAddon(arch, work) {
  const folder = join(work, `addon-${arch}`);
  mkdirSync(folder, { recursive: true });
  for (const file of ['binding.gyp', 'icmp_socket.c']) copyFileSync(join(exporterDir, 'native', file), join(folder, file));
  const target = ARCHITECTURES[arch];
  const env = { ...process.env };
  if (target.node !== process.arch) {
    const compilers = { CC: `${target.triple}-gcc`, CXX: `${target.triple}-g++`, LINK: `${target.triple}-g++` };
    for (const compiler of new Set(Object.values(compilers))) {
      try {
        execFileSync(compiler, ['--version'], { stdio: 'ignore' });
      } catch {
        fail(`${compiler} is missing: the ${arch} addon is cross-compiled with it (Debian: apt-get install gcc-${target.triple.replace(/_/g, '-')} g++-${target.triple.replace(/_/g, '-')})`);
      }
    }
    Object.assign(env, compilers);
  }
  // npm names its own node-gyp to the scripts it runs; elsewhere node-gyp is expected on the PATH.
  const nodeGyp = process.env.npm_config_node_gyp;
  const [command, prefix] = nodeGyp ? [process.execPath, [nodeGyp]] : ['node-gyp', []];
  execFileSync(command, [...prefix, 'rebuild', `--directory=${folder}`, `--arch=${target.node}`, `--nodedir=${nodeHeaders()}`, '--loglevel=warn'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  return join(folder, 'build', 'Release', 'icmp_socket.node');
}

/** The probekit command in one file, as build.mjs makes the exporter's: it runs with plain node, no node_modules. */
async function bundleProbekit(outfile) {
  await build({
    entryPoints: [join(repository, 'src', 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    legalComments: 'inline',
    logLevel: 'warning',
    // The exporter's contract from its sources, as the exporter's bundle has it.
    conditions: ['@probekit/source'],
  });
}

/** The unit install.sh writes for the default vendor with an icmp module: rendered, as the installer renders it. */
function unitTemplate(probekit, work) {
  const spec = join(work, 'unit-spec.yaml');
  writeFileSync(spec, 'modules:\n  icmp:\n    prober: icmp\njobs:\n  - module: icmp\n    targets: [127.0.0.1]\n');
  execFileSync(process.execPath, [probekit, 'host', 'render', '--spec', spec, '--out', join(work, 'unit-tree')], { stdio: ['ignore', 'ignore', 'inherit'] });
  return join(work, 'unit-tree', 'etc', 'systemd', 'system', 'probekit-exporter.service');
}

/** A gzipped tar with fixed owners, order and times: the same sources give the same bytes. */
function tarball(parent, folder, file) {
  const tar = execFileSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-C', parent, '-cf', '-', folder], { maxBuffer: 1 << 30 });
  writeFileSync(file, gzipSync(tar, { level: 9 }));
}

/** The sums file's name, in each bundle and beside the tarballs. */
const SUMS = 'SHA256SUMS';

/** `sha256sum`'s format, which `sha256sum --check` reads: the hex digest, two spaces, the name; sorted by name. */
function sumsText(files) {
  return [...files]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, path]) => `${createHash('sha256').update(readFileSync(path)).digest('hex')}  ${name}\n`)
    .join('');
}

const options = parseArguments(process.argv.slice(2));
const tarballs = [];
const { version } = JSON.parse(readFileSync(join(exporterDir, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'probekit-release-'));
try {
  const exporterBundle = join(work, 'probekit-exporter.js');
  const probekit = join(work, 'probekit.js');
  execFileSync(process.execPath, [join(exporterDir, 'build.mjs'), '--outfile', exporterBundle], { stdio: ['ignore', 'ignore', 'inherit'] });
  await bundleProbekit(probekit);
  const unit = unitTemplate(probekit, work);
  mkdirSync(options.out, { recursive: true });
  for (const arch of options.architectures) {
    const name = `probekit-exporter-${version}-linux-${arch}`;
    const folder = join(work, name);
    mkdirSync(folder);
    const files = {
      'probekit-exporter.js': exporterBundle,
      'icmp_socket.node': compileAddon(arch, work),
      'probekit.js': probekit,
      'probekit-exporter.service': unit,
      'install.sh': join(exporterDir, 'packaging', 'install.sh'),
      'README.md': join(exporterDir, 'packaging', 'README.md'),
      LICENSE: join(exporterDir, 'LICENSE'),
    };
    for (const [file, from] of Object.entries(files)) copyFileSync(from, join(folder, file));
    for (const executable of ['install.sh', 'probekit-exporter.js', 'probekit.js']) chmodSync(join(folder, executable), 0o755);
    for (const plain of ['icmp_socket.node', 'probekit-exporter.service', 'README.md', 'LICENSE']) chmodSync(join(folder, plain), 0o644);
    // The bundle's own sums, which install.sh checks its files against before any of them runs.
    writeFileSync(join(folder, SUMS), sumsText(Object.keys(files).map((file) => [file, join(folder, file)])), { mode: 0o644 });
    const file = join(options.out, `${name}.tar.gz`);
    tarball(work, name, file);
    tarballs.push(file);
    process.stdout.write(`${file}\n`);
  }
  // The release's sums, of the tarballs: what a user checks a download against (docs/host.md, "Check the bundle").
  const releaseSums = join(options.out, SUMS);
  writeFileSync(releaseSums, sumsText(tarballs.map((file) => [basename(file), file])));
  process.stdout.write(`${releaseSums}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
