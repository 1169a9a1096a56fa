/**
 * The library as a cdk8s user installs it: both packages packed as they would be published, installed into a fresh
 * project with the lowest cdk8s, constructs and cdk8s-plus-28 our peer ranges allow (offline, from npm's cache, on a
 * PATH with node and npm only), the README's construct example synthesized there with plain node, and the
 * project's TypeScript type-checked by tsc with node16 and with the classic node resolution.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import { freePort } from '../../exporter/loopback/reference-exporter';
import { describeWithNpmCache, npmEnv } from '../support/npm-cache';
import { packPackages, type Packed } from '../support/pack';
import { CONSUMER_DEV_DEPENDENCIES, consumerRegistrySpecs, LOWEST_PEERS, readPackageJson } from './consumer-dependencies';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'cdk8s-parts.ts');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The classic resolution (`node`, also called node10) ignores package exports: many users still have it. */
const RESOLUTIONS = [
  ['node16', 'node16'],
  ['node', 'commonjs'],
] as const;
/** What `import 'probekit'` must not load: the assistant's, the exporter's and the Pulumi program's dependencies. */
const HEAVY = ['@elastic/elasticsearch', '@modelcontextprotocol/sdk', '@pulumi/', '@grpc/grpc-js', 'prom-client'];

let work: string;
let packs: { probekit: Packed; exporter: Packed };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'probekit-package-'));
  packs = await packPackages(work);
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed packages', () => {
  it('probekit holds the compiled library, its type declarations, the README and package.json', () => {
    const unexpected = packs.probekit.files.filter((file) => !/^lib\/.*\.(js|d\.ts)$/.test(file) && !['README.md', 'package.json'].includes(file));
    expect(unexpected).toEqual([]);
    expect(packs.probekit.files).toEqual(expect.arrayContaining(['lib/index.js', 'lib/index.d.ts', 'lib/cli/index.js', 'lib/cli/index.d.ts', 'lib/cli/main.js']));
    // No tests, no benchmark, no sources, no default app of this repository (cdk8s.yaml runs it from source), and
    // no declarations of the commands, which nobody imports (only those of probekit/cli, their framework).
    expect(packs.probekit.files.filter((file) => /test|bench|\.ts$(?<!\.d\.ts)|^lib\/cdk8s\/app\.|^lib\/cli\/(?!index\.|command\.).*\.d\.ts$/.test(file))).toEqual([]);
  });

  it('the exporter holds its contract, the bundle, the addon and its sources, the license, and no tests, loopback servers, benchmark or packaging (a machine installs from the release bundles)', () => {
    expect(packs.exporter.files).toEqual(
      expect.arrayContaining([
        'lib/src/contract/index.js',
        'lib/src/contract/index.d.ts',
        'dist/probekit-exporter.js',
        'native/binding.gyp',
        'native/icmp_socket.c',
        'native/build/Release/icmp_socket.node',
        'LICENSE',
      ]),
    );
    expect(packs.exporter.files.filter((file) => /test|loopback|bench|packaging|^src\/|\.ts$(?<!\.d\.ts)|Dockerfile|build\.mjs/.test(file))).toEqual([]);
  });

  it('neither declares an install script, and only the Pulumi program depends on @pulumi', () => {
    for (const folder of ['.', 'exporter'] as const) {
      const pkg = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { scripts?: Record<string, string>; dependencies?: Record<string, string>; gypfile?: boolean };
      expect(Object.keys(pkg.scripts ?? {}).filter((name) => ['preinstall', 'install', 'postinstall'].includes(name))).toEqual([]);
      expect(pkg.gypfile).toBeUndefined();
      expect(Object.keys(pkg.dependencies ?? {}).filter((name) => name.startsWith('@pulumi/'))).toEqual([]);
    }
    // npm builds a package with node-gyp on install when binding.gyp sits at its root: the exporter's is in native/.
    expect(packs.exporter.files).not.toContain('binding.gyp');
  });

  it("the README's parts-alone example is examples/cdk8s-parts.ts, word for word", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const after = readme.slice(readme.indexOf('Or the parts alone, in a chart of yours'));
    const block = /```ts\n([\s\S]*?)```/.exec(after);
    expect(block?.[1]).toBe(readFileSync(EXAMPLE, 'utf8'));
  });

  it('the consumer test installs the lowest versions the peer ranges allow, not the ones we develop with', () => {
    const root = readPackageJson('.');
    for (const [name, version] of Object.entries(LOWEST_PEERS)) {
      expect({ name, range: root.peerDependencies?.[name] }).toEqual({ name, range: `^${version}` });
    }
    expect(LOWEST_PEERS.cdk8s).not.toBe(root.devDependencies?.cdk8s);
  });
});

describeWithNpmCache(consumerRegistrySpecs())('a cdk8s app that installs the packed packages', () => {
  let consumer: string;
  /** A PATH with node and npm alone: no python3, make or C compiler, so no native build can happen. */
  let bareEnv: Record<string, string>;
  /** What tsc printed for each of the consumer's projects. */
  let tscOutputs: { config: string; output: string }[];

  beforeAll(async () => {
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    const bin = join(work, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync(npmCli(), join(bin, 'npm'));
    bareEnv = npmEnv({ PATH: bin });

    writeJson(join(consumer, 'package.json'), {
      name: 'probekit-consumer',
      version: '0.0.0',
      private: true,
      dependencies: {
        probekit: `file:${packs.probekit.tarball}`,
        // Not published yet: without this, npm would look for the exporter in the registry.
        '@probekit/exporter': `file:${packs.exporter.tarball}`,
        ...LOWEST_PEERS,
      },
      devDependencies: CONSUMER_DEV_DEPENDENCIES,
    });
    copyFileSync(EXAMPLE, join(consumer, 'parts.ts'));
    writeFileSync(
      join(consumer, 'cli.ts'),
      "import { MCP_HTTP_PATH, SEARCH_ENGINE_ENV } from 'probekit/cli';\n\nconst path: string = MCP_HTTP_PATH;\nconsole.log(JSON.stringify({ path, env: SEARCH_ENGINE_ENV.url }));\n",
    );
    // Each file with each resolution, with skipLibCheck off, so that our declarations (and cdk8s's) are checked too.
    for (const [resolution, module] of RESOLUTIONS) {
      for (const [file, skipLibCheck] of [
        ['parts', false],
        ['cli', false],
      ] as const) {
        const emit = resolution === 'node16' ? { outDir: 'out' } : { noEmit: true };
        writeJson(join(consumer, `tsconfig.${file}.${resolution}.json`), {
          compilerOptions: { target: 'ES2022', strict: true, esModuleInterop: true, types: ['node'], module, moduleResolution: resolution, skipLibCheck, ...emit },
          files: [`${file}.ts`],
        });
      }
    }

    await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: consumer, env: bareEnv });
    // Compiled here, since the node16 projects also emit the JavaScript that the tests below run.
    const configs = readdirSync(consumer).filter((file) => /^tsconfig\..*\.json$/.test(file));
    tscOutputs = await Promise.all(configs.map(async (config) => ({ config, output: await tsc(consumer, config) })));
  }, 300_000);

  it('installs without any install script, native build or Pulumi package', () => {
    const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8')) as Lockfile;
    const installed = Object.keys(lock.packages).filter((path) => path !== '');
    // What probekit and the exporter bring, without their peers: cdk8s 2.68.12 itself pulls one install script (its
    // optional dependency backport, dropped in cdk8s 2.68.81), which is the user's cdk8s, not ours.
    const ours = dependencyClosure(lock, ['node_modules/probekit', 'node_modules/@probekit/exporter']);
    expect(ours.length).toBeGreaterThan(10);
    expect(ours.filter((path) => lock.packages[path].hasInstallScript)).toEqual([]);
    expect(installed.filter((path) => /node_modules\/@pulumi\//.test(path))).toEqual([]);
    expect(existsSync(join(consumer, 'node_modules', '@pulumi'))).toBe(false);
    // One copy of each, the lowest versions: two copies of cdk8s break synthesis (Lazy values of the other copy).
    for (const [name, version] of Object.entries(LOWEST_PEERS)) {
      expect(installed.filter((path) => path.endsWith(`node_modules/${name}`)).map((path) => `${path} ${lock.packages[path].version}`)).toEqual([`node_modules/${name} ${version}`]);
    }
  });

  it('type-checks the example and a probekit/cli import with tsc, with node16 and with the classic node resolution', () => {
    expect(tscOutputs).toHaveLength(4);
    expect(tscOutputs).toEqual(tscOutputs.map(({ config }) => ({ config, output: '' })));
  });

  it("synthesizes the README's example with plain node, as the sources do with the versions we develop with", async () => {
    await run('node', ['out/parts.js'], { cwd: consumer, env: { ...bareEnv, CDK8S_OUTDIR: 'dist' } });
    const installed = readdirSync(join(consumer, 'dist')).sort();
    expect(installed).toEqual(['probes.agent-values.yaml', 'probes.k8s.yaml']);

    const manifests = parseAllDocuments(readFileSync(join(consumer, 'dist', 'probes.k8s.yaml'), 'utf8')).map((doc) => doc.toJS());
    expect(manifests.map((object) => object.kind)).toEqual(['ConfigMap', 'Deployment', 'Service']);
    expect(parseYaml(manifests[0].data['blackbox.yml']).modules).toEqual(expect.objectContaining({ http_2xx: expect.objectContaining({ prober: 'http' }), ping: { prober: 'icmp' } }));
    expect(manifests[1].spec.template.spec.containers[0].securityContext.capabilities).toEqual({ add: ['NET_RAW'], drop: ['ALL'] });
    const values = parseYaml(readFileSync(join(consumer, 'dist', 'probes.agent-values.yaml'), 'utf8'));
    expect(values.agent.extraScrapeConfigs.map((job: { job_name: string }) => job.job_name)).toEqual(['web', 'probekit-exporter']);
    expect(values.agent.extraScrapeConfigs[0].relabel_configs[2]).toEqual({ target_label: '__address__', replacement: 'blackbox-exporter.monitoring.svc:9115' });

    const fromSource = join(work, 'from-source');
    await run(process.execPath, [...FROM_SOURCE, EXAMPLE], { cwd: ROOT, env: { ...process.env, CDK8S_OUTDIR: fromSource } });
    for (const file of installed) expect(readFileSync(join(consumer, 'dist', file), 'utf8')).toBe(readFileSync(join(fromSource, file), 'utf8'));
  }, 120_000);

  it('import "probekit" loads none of the assistant, exporter or Pulumi dependencies; probekit/cli and the bin work', async () => {
    const script = `require('probekit'); console.log(JSON.stringify(Object.keys(require.cache)));`;
    const { stdout } = await run('node', ['-e', script], { cwd: consumer, env: bareEnv });
    const loaded = JSON.parse(stdout) as string[];
    expect(loaded.some((file) => file.includes('/node_modules/probekit/lib/'))).toBe(true);
    expect(loaded.filter((file) => HEAVY.some((name) => file.includes(`/node_modules/${name}`)))).toEqual([]);

    const cli = await run('node', ['out/cli.js'], { cwd: consumer, env: bareEnv });
    expect(JSON.parse(cli.stdout)).toEqual({ path: '/mcp', env: 'PROBEKIT_SEARCH_ENGINE_URL' });
    const help = await run(join(consumer, 'node_modules', '.bin', 'probekit'), ['--help'], { cwd: consumer, env: bareEnv });
    expect(help.stdout).toMatch(/^usage: probekit <command>/);
  });

  it("probekit test runs the exporter's probers from the installed packages, with the dependencies they declare", async () => {
    const closedPort = await freePort();
    writeFileSync(join(consumer, 'probe-spec.yaml'), `modules:\n  web: { prober: http, timeout: 2s }\njobs:\n  - name: web\n    module: web\n    targets: [http://127.0.0.1:${closedPort}/]\n`);
    const failed = await run(join(consumer, 'node_modules', '.bin', 'probekit'), ['test', '--spec', 'probe-spec.yaml'], { cwd: consumer, env: bareEnv }).then(
      () => undefined,
      (error: { code?: number; stdout?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(new RegExp(`^web +http://127\\.0\\.0\\.1:${closedPort}/ +web +FAIL .*connection refused$`, 'm'));
  });

  it('a deep import into either package fails: only the entry points are exported', async () => {
    for (const deep of ['probekit/lib/model/spec', '@probekit/exporter/lib/src/config/schema']) {
      const failure = await run('node', ['-e', `require(${JSON.stringify(deep)})`], { cwd: consumer, env: bareEnv }).then(
        () => 'loaded',
        (error: { stderr: string }) => error.stderr,
      );
      expect(failure).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    }
  });
});

interface Lockfile {
  readonly packages: Record<string, { version?: string; hasInstallScript?: boolean; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
}

/** The lockfile paths of `roots` and of everything they depend on (peer dependencies aside), found as Node would. */
function dependencyClosure(lock: Lockfile, roots: readonly string[]): string[] {
  const found = new Set<string>();
  const queue = [...roots];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    if (found.has(path)) continue;
    found.add(path);
    const entry = lock.packages[path];
    if (entry === undefined) throw new Error(`${path} is not in the consumer's lockfile`);
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      // The nearest node_modules/<name> from `path` upwards.
      let base = path;
      for (;;) {
        const candidate = `${base}/node_modules/${name}`.replace(/^\//, '');
        if (lock.packages[candidate] !== undefined) {
          queue.push(candidate);
          break;
        }
        if (base === '') break;
        const parent = base.lastIndexOf('/node_modules/');
        base = parent < 0 ? '' : base.slice(0, parent);
      }
    }
  }
  return [...found];
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** tsc's output for one project of the consumer (empty when it type-checks). */
async function tsc(project: string, config: string): Promise<string> {
  return run(process.execPath, [TSC, '-p', config], { cwd: project }).then(
    ({ stdout }) => stdout,
    (error: { stdout: string }) => error.stdout,
  );
}

/** npm's own script (npm is a node program): the bare PATH links to it, beside node. */
function npmCli(): string {
  if (process.env.npm_execpath?.endsWith('npm-cli.js')) return process.env.npm_execpath;
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'npm'))
    .find((file) => existsSync(file));
  if (onPath === undefined) throw new Error('npm is not on PATH');
  return realpathSync(onPath);
}
