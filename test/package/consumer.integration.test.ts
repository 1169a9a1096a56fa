/**
 * The library as a cdk8s user installs it. The packages are packed as they are published (packaging/pack.mjs) and
 * installed offline (from npm's cache, on a PATH with node and npm only) into an app laid out as `cdk8s init
 * typescript-app` lays it: the template's files with its package.json scripts and devDependencies and its
 * tsconfig.json as they are, cdk8s-plus-28 (our peer) where the template has cdk8s-plus-33, and its main.ts using
 * probekit, beside the README's parts-alone example and a use of the exporter's contract. The app is compiled with its own
 * `npm run compile` (tsc --build, its own TypeScript), and with module nodenext; it runs; `npx probekit` works in it;
 * and what installing probekit adds to the bare app is measured. Without the assistant, its commands say how to install
 * it; then the assistant's package installed beside probekit, as the skills server's image installs the three, runs
 * them.
 *
 * Not done as `cdk8s init` does: `cdk8s import` (it downloads Kubernetes' schema; the app uses no imported type) and
 * the snapshot test it runs with -u.
 *
 * @ci-seconds 120
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import { freePort } from '../../exporter/loopback/reference-exporter';
import { BUILT_IN_SKILLS } from '@probekit/assistant';
import { describeWithNpmCache, npmEnv } from '../support/npm-cache';
import { packPackages, type Packed } from '../support/pack';
import { consumerRegistrySpecs, LOWEST_PEERS, readPackageJson, TEMPLATE, TEMPLATE_DEV_DEPENDENCIES } from './consumer-dependencies';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'cdk8s-parts.ts');
const SPEC_EXAMPLE = join(ROOT, 'examples', 'probekit.yaml');
/** The app's folder name: `cdk8s init` names the app, and its chart, after it. */
const APP = 'consumer';
/** What installing probekit may add to a cdk8s app (issue #29's target; it added 90.3 MiB and 122 packages before). */
const MAX_ADDED_MIB = 30;
const MAX_ADDED_PACKAGES = 40;
/** What `import 'probekit'` must not load: the assistant's, the exporter's and the Pulumi program's dependencies. */
const HEAVY = ['@elastic/elasticsearch', '@modelcontextprotocol/sdk', '@pulumi/', '@grpc/grpc-js', 'prom-client'];
/** Scripts npm runs where a package is installed (or packed from a folder or a git URL). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare', 'prepack', 'postpack'];

let work: string;
let packs: Readonly<Record<string, Packed>>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'probekit-package-'));
  packs = await packPackages(join(work, 'packs'));
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** package.json as it is inside a tarball. */
async function packedManifest(packed: Packed): Promise<Record<string, unknown>> {
  const { stdout } = await run('tar', ['-xzOf', packed.tarball, 'package/package.json']);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('the packed packages', () => {
  it('probekit holds the compiled library, its type declarations, the README and package.json', () => {
    const probekit = packs.probekit!;
    const unexpected = probekit.files.filter((file) => !/^lib\/.*\.(js|d\.ts)$/.test(file) && !['README.md', 'package.json'].includes(file));
    expect(unexpected).toEqual([]);
    expect(probekit.files).toEqual(expect.arrayContaining(['lib/index.js', 'lib/index.d.ts', 'lib/cli/index.js', 'lib/cli/index.d.ts', 'lib/cli/main.js']));
    // No tests, no benchmark, no sources, no default app of this repository, and no declarations of the commands,
    // which nobody imports (only those of probekit/cli, their framework).
    expect(probekit.files.filter((file) => /test|bench|\.ts$(?<!\.d\.ts)|^lib\/cdk8s\/app\.|^lib\/cli\/(?!index\.|command\.).*\.d\.ts$/.test(file))).toEqual([]);
  });

  it("the exporter holds its two bundles, the contract's declarations, its default config and license: no addon, no sources", () => {
    const files = packs['@probekit/exporter']!.files;
    expect(files.filter((file) => !file.startsWith('lib/'))).toEqual(['LICENSE', 'blackbox.yml', 'dist/contract.js', 'dist/probekit-exporter.js', 'package.json']);
    expect(files.filter((file) => file.startsWith('lib/') && !file.endsWith('.d.ts'))).toEqual([]);
    expect(files).toContain('lib/src/contract/index.d.ts');
  });

  it('no manifest names a script, a development dependency or a native build; the exporter depends on nothing', async () => {
    for (const packed of Object.values(packs)) {
      const manifest = await packedManifest(packed);
      const scripts = Object.keys((manifest.scripts as Record<string, string> | undefined) ?? {});
      expect({ name: packed.name, installScripts: scripts.filter((name) => INSTALL_SCRIPTS.includes(name)), scripts }).toEqual({ name: packed.name, installScripts: [], scripts: [] });
      expect({ name: packed.name, devDependencies: manifest.devDependencies, gypfile: manifest.gypfile }).toEqual({ name: packed.name });
      expect(packed.files.filter((file) => /(^|\/)binding\.gyp$|\.node$/.test(file))).toEqual([]);
      expect(JSON.stringify(manifest.exports ?? {})).not.toContain('@probekit/source');
    }
    expect((await packedManifest(packs['@probekit/exporter']!)).dependencies).toBeUndefined();
  });

  it('the assistant holds its compiled modules, their declarations and package.json, and no tests or sources', () => {
    const files = packs['@probekit/assistant']!.files;
    expect(files.filter((file) => !/^lib\/.*\.(js|d\.ts)$/.test(file) && file !== 'package.json')).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['lib/index.js', 'lib/index.d.ts', 'lib/cli/index.js']));
  });

  it("the README's parts-alone example is examples/cdk8s-parts.ts, word for word", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const after = readme.slice(readme.indexOf('Or the parts alone, in a chart of yours'));
    const block = /```ts\n([\s\S]*?)```/.exec(after);
    expect(block?.[1]).toBe(readFileSync(EXAMPLE, 'utf8'));
  });

  it('the app has the lowest cdk8s our peer ranges allow, and the devDependencies of the template, each within its range', () => {
    const root = readPackageJson('.');
    for (const [name, version] of Object.entries(LOWEST_PEERS)) {
      expect({ name, range: root.peerDependencies?.[name] }).toEqual({ name, range: `^${version}` });
    }
    expect(LOWEST_PEERS.cdk8s).not.toBe(root.devDependencies?.cdk8s);
    const template = JSON.parse(readFileSync(join(TEMPLATE, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(Object.keys(TEMPLATE_DEV_DEPENDENCIES).sort()).toEqual(Object.keys(template.devDependencies).sort());
    for (const [name, version] of Object.entries(TEMPLATE_DEV_DEPENDENCIES)) {
      const range = template.devDependencies[name] === '{{ cdk8s_cli_spec }}' ? `^${root.devDependencies!['cdk8s-cli']}` : template.devDependencies[name];
      expect({ name, version, within: withinRange(version, range) }).toEqual({ name, version, within: true });
    }
  });
});

describeWithNpmCache(consumerRegistrySpecs())('a cdk8s app made as `cdk8s init typescript-app` makes it, with the packed packages installed', () => {
  let app: string;
  /** A PATH with node, npm, npx and sh (which runs npm's scripts) alone: no python3, make or C compiler, so no native build can happen. */
  let bareEnv: Record<string, string>;
  let footprint: { bytes: number; packages: string[]; installScripts: string[]; nativeFiles: string[] };
  let compiled: Array<{ project: string; output: string }>;

  beforeAll(async () => {
    app = join(work, APP);
    layOutTemplateApp(app);
    const bin = join(work, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync(npmCli('npm'), join(bin, 'npm'));
    symlinkSync(npmCli('npx'), join(bin, 'npx'));
    symlinkSync('/bin/sh', join(bin, 'sh'));
    bareEnv = npmEnv({ PATH: bin });
    const npm = (cwd: string, ...args: string[]) => run('npm', [...args, '--offline', '--no-audit', '--no-fund'], { cwd, env: bareEnv, maxBuffer: 1 << 24 });

    // Two apps in two folders, installed from npm's cache at once (the two took half of this file's time one after
    // the other). What the packages add to a bare cdk8s app (the template's dependencies alone), measured as du
    // measures it:
    const measureFootprint = async (): Promise<void> => {
      const bare = join(work, 'bare-app');
      mkdirSync(bare);
      writeFileSync(join(bare, 'package.json'), `${JSON.stringify({ name: 'bare-app', version: '1.0.0', private: true, dependencies: LOWEST_PEERS }, null, 2)}\n`);
      await npm(bare, 'install');
      const before = { bytes: diskUsage(join(bare, 'node_modules')), packages: installedPackages(readLock(bare)) };
      await npm(bare, 'install', packs.probekit!.tarball, packs['@probekit/exporter']!.tarball);
      const lock = readLock(bare);
      const added = installedPackages(lock).filter((path) => !before.packages.includes(path));
      footprint = {
        bytes: diskUsage(join(bare, 'node_modules')) - before.bytes,
        packages: added,
        installScripts: added.filter((path) => lock.packages[path]!.hasInstallScript),
        nativeFiles: filesUnder(join(bare, 'node_modules')).filter((file) => file.endsWith('.node')),
      };
      console.log(
        `installing the packed probekit and @probekit/exporter into a bare cdk8s app adds ${(footprint.bytes / 2 ** 20).toFixed(1)} MiB (${(footprint.bytes / 1e6).toFixed(1)} MB) on disk and ${added.length} packages: ${added.map((path) => path.replace(/^node_modules\//, '')).join(', ')}`,
      );
    };

    // The template's app with the packages, as a user installs them (the exporter named too: it is not on the
    // registry, where npm would look for it), then its compile script, and the same sources under module nodenext.
    const installAndCompile = async (): Promise<void> => {
      await npm(app, 'install', packs.probekit!.tarball, packs['@probekit/exporter']!.tarball);
      compiled = [];
      for (const [project, command] of [
        ['npm run compile', ['npm', ['run', '--silent', 'compile']]],
        ['tsconfig.nodenext.json', ['npx', ['tsc', '--build', 'tsconfig.nodenext.json']]],
        ['tsconfig.contract.json', ['npx', ['tsc', '--build', 'tsconfig.contract.json']]],
      ] as const) {
        const output = await run(command[0], [...command[1]], { cwd: app, env: bareEnv }).then(
          ({ stdout, stderr }) => stdout + stderr,
          (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}` || 'failed without output',
        );
        compiled.push({ project, output });
      }
    };
    await Promise.all([measureFootprint(), installAndCompile()]);
  }, 600_000);

  it(`adds at most ${MAX_ADDED_MIB} MiB and ${MAX_ADDED_PACKAGES} packages to the bare app, with no install script, native addon, assistant or Pulumi`, () => {
    expect(footprint.bytes).toBeLessThanOrEqual(MAX_ADDED_MIB * 2 ** 20);
    expect(footprint.packages.length).toBeLessThanOrEqual(MAX_ADDED_PACKAGES);
    expect(footprint.packages).toEqual(expect.arrayContaining(['node_modules/probekit', 'node_modules/@probekit/exporter']));
    expect(footprint.installScripts).toEqual([]);
    expect(footprint.nativeFiles).toEqual([]);
    expect(footprint.packages.filter((path) => /node_modules\/(@pulumi\/|@probekit\/assistant$)/.test(path))).toEqual([]);
    // One copy of each peer, the app's: two copies of cdk8s break synthesis (Lazy values of the other copy).
    const lock = readLock(app);
    for (const [name, version] of Object.entries(LOWEST_PEERS)) expect({ name, version: lock.packages[`node_modules/${name}`]?.version }).toEqual({ name, version });
    expect(Object.keys(lock.packages).filter((path) => /^node_modules\/(probekit|@probekit\/exporter)\/node_modules\//.test(path))).toEqual([]);
  });

  it("compiles with the template's tsconfig.json (npm run compile: tsc --build, the app's TypeScript 5.9) and with module nodenext", () => {
    expect(compiled.filter(({ project }) => project !== 'tsconfig.contract.json')).toEqual([
      { project: 'npm run compile', output: '' },
      { project: 'tsconfig.nodenext.json', output: '' },
    ]);
    expect(existsSync(join(app, 'main.js'))).toBe(true);
  });

  it("compiles a use of the exporter's contract alone under the template's compiler options, and runs it", async () => {
    expect(compiled.find(({ project }) => project === 'tsconfig.contract.json')).toEqual({ project: 'tsconfig.contract.json', output: '' });
    const { stdout } = await run('node', [join('contract-out', 'contract.js')], { cwd: app, env: bareEnv });
    expect(JSON.parse(stdout)).toEqual({ probers: ['http', 'tcp', 'icmp', 'dns', 'grpc', 'unix'], problems: ['modules.typo.http.metod: unknown field; did you mean "method"?'] });
  });

  it("runs: the compiled main.js synthesizes the chart, and the README's parts-alone example gives what the sources give", async () => {
    await run('node', ['main.js'], { cwd: app, env: { ...bareEnv, CDK8S_OUTDIR: 'app-out' } });
    const kinds = parseAllDocuments(readFileSync(join(app, 'app-out', `${APP}.k8s.yaml`), 'utf8')).map((doc) => (doc.toJS() as { kind: string }).kind);
    expect(kinds).toEqual(['ConfigMap', 'Deployment', 'Service']);

    await run('node', ['parts.js'], { cwd: app, env: { ...bareEnv, CDK8S_OUTDIR: 'parts-out' } });
    const written = readdirSync(join(app, 'parts-out')).sort();
    expect(written).toEqual(['probes.agent-values.yaml', 'probes.k8s.yaml']);
    const manifests = parseAllDocuments(readFileSync(join(app, 'parts-out', 'probes.k8s.yaml'), 'utf8')).map((doc) => doc.toJS());
    expect(parseYaml(manifests[0].data['blackbox.yml']).modules).toEqual(expect.objectContaining({ http_2xx: expect.objectContaining({ prober: 'http' }), ping: { prober: 'icmp' } }));
    const fromSource = join(work, 'parts-from-source');
    await run(process.execPath, [...FROM_SOURCE, EXAMPLE], { cwd: ROOT, env: { ...process.env, CDK8S_OUTDIR: fromSource } });
    for (const file of written) expect({ file, text: readFileSync(join(app, 'parts-out', file), 'utf8') }).toEqual({ file, text: readFileSync(join(fromSource, file), 'utf8') });
  }, 120_000);

  it('npx probekit synth --spec monitoring.yaml --out dist writes what the sources write; its --help lists its flags', async () => {
    writeFileSync(join(app, 'monitoring.yaml'), readFileSync(SPEC_EXAMPLE));
    await run('npx', ['probekit', 'synth', '--spec', 'monitoring.yaml', '--out', 'dist'], { cwd: app, env: bareEnv });
    const fromSource = join(work, 'synth-from-source');
    await run(process.execPath, [...FROM_SOURCE, join(ROOT, 'src', 'cli', 'main.ts'), 'synth', '--spec', SPEC_EXAMPLE, '--out', fromSource], { cwd: ROOT });
    const written = readdirSync(join(app, 'dist')).sort();
    expect(written).toEqual(readdirSync(fromSource).sort());
    expect(written).toContain('probekit.k8s.yaml');
    for (const file of written) expect({ file, text: readFileSync(join(app, 'dist', file), 'utf8') }).toEqual({ file, text: readFileSync(join(fromSource, file), 'utf8') });

    const help = await run('npx', ['probekit', 'synth', '--help'], { cwd: app, env: bareEnv });
    expect(help.stdout).toMatch(/^usage: probekit synth/);
    expect(help.stdout).toContain('--spec');
    expect(help.stdout).toContain('--out');
  }, 120_000);

  it('import "probekit" loads none of the assistant, exporter or Pulumi dependencies; probekit/cli and the bin work', async () => {
    const script = `require('probekit'); console.log(JSON.stringify(Object.keys(require.cache)));`;
    const { stdout } = await run('node', ['-e', script], { cwd: app, env: bareEnv });
    const loaded = JSON.parse(stdout) as string[];
    expect(loaded.some((file) => file.includes('/node_modules/probekit/lib/'))).toBe(true);
    expect(loaded.filter((file) => HEAVY.some((name) => file.includes(`/node_modules/${name}`)))).toEqual([]);
    const cli = await run('node', ['-e', "const { MCP_HTTP_PATH, SEARCH_ENGINE_ENV } = require('probekit/cli'); console.log(JSON.stringify({ path: MCP_HTTP_PATH, env: SEARCH_ENGINE_ENV.url }));"], {
      cwd: app,
      env: bareEnv,
    });
    expect(JSON.parse(cli.stdout)).toEqual({ path: '/mcp', env: 'PROBEKIT_SEARCH_ENGINE_URL' });
    const help = await run(join(app, 'node_modules', '.bin', 'probekit'), ['--help'], { cwd: app, env: bareEnv });
    expect(help.stdout).toMatch(/^usage: probekit <command>/);
  });

  it("probekit test runs the exporter's probers from the installed package; an icmp probe, without the addon, fails saying what to do", async () => {
    const closedPort = await freePort();
    writeFileSync(
      join(app, 'probe-spec.yaml'),
      `modules:\n  web: { prober: http, timeout: 2s }\n  ping: { prober: icmp, timeout: 2s }\njobs:\n  - name: web\n    module: web\n    targets: [http://127.0.0.1:${closedPort}/]\n  - name: ping\n    module: ping\n    targets: [127.0.0.1]\n`,
    );
    const failed = await run(join(app, 'node_modules', '.bin', 'probekit'), ['test', '--spec', 'probe-spec.yaml'], { cwd: app, env: bareEnv }).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).not.toMatch(/^\s+at /m);
    expect(failed?.stdout).toMatch(new RegExp(`^web +http://127\\.0\\.0\\.1:${closedPort}/ +web +FAIL .*connection refused$`, 'm'));
    const dist = join(realpathSync(app), 'node_modules', '@probekit', 'exporter', 'dist');
    const ping = failed?.stdout?.split('\n').find((line) => line.startsWith('ping '));
    expect(ping).toMatch(/ FAIL .* internal error: the ICMP addon cannot be loaded from /);
    expect(ping).toContain(`copy icmp_socket.node into ${dist} from the release bundle for this machine`);
  });

  it('without @probekit/assistant, probekit assistant and search-engine say in one line how to install it', async () => {
    expect(existsSync(join(app, 'node_modules', '@probekit', 'assistant'))).toBe(false);
    const probekit = join(app, 'node_modules', '.bin', 'probekit');
    for (const name of ['assistant', 'search-engine']) {
      const line = `probekit ${name} comes with the @probekit/assistant package, which is not installed here: npm install @probekit/assistant\n`;
      await expect(outcome(probekit, [name, '--help'], app, bareEnv)).resolves.toEqual({ code: 0, stdout: line, stderr: '' });
      await expect(outcome(probekit, [name, 'check'], app, bareEnv)).resolves.toEqual({ code: 1, stdout: '', stderr: `error: ${line}` });
    }
  });

  it('a deep import into either package fails: only the entry points are exported', async () => {
    for (const deep of ['probekit/lib/model/spec', '@probekit/exporter/dist/contract.js']) {
      const failure = await run('node', ['-e', `require(${JSON.stringify(deep)})`], { cwd: app, env: bareEnv }).then(
        () => 'loaded',
        (error: { stderr: string }) => error.stderr,
      );
      expect(failure).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    }
  });
});

/**
 * The assistant installed beside probekit as the skills server's image installs them (the Dockerfile's second stage:
 * the three packs with their production dependencies, no peers, so no cdk8s): probekit runs the assistant's commands.
 */
describeWithNpmCache(consumerRegistrySpecs())('the assistant installed beside probekit, as the skills server image installs them', () => {
  let app: string;
  let env: Record<string, string>;
  let probekit: string;

  beforeAll(async () => {
    app = join(work, 'assistant-app');
    mkdirSync(app);
    env = npmEnv();
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'assistant-app', version: '1.0.0', private: true }, null, 2)}\n`);
    const tarballs = [packs.probekit!, packs['@probekit/exporter']!, packs['@probekit/assistant']!].map((packed) => packed.tarball);
    await run('npm', ['install', '--offline', '--omit=dev', '--omit=peer', '--no-audit', '--no-fund', ...tarballs], { cwd: app, env, maxBuffer: 1 << 24 });
    const installed = installedPackages(readLock(app));
    console.log(`the three packs installed as the skills server image installs them: ${(diskUsage(join(app, 'node_modules')) / 2 ** 20).toFixed(1)} MiB on disk, ${installed.length} packages`);
    probekit = join(app, 'node_modules', '.bin', 'probekit');
  }, 300_000);

  it('installs no cdk8s', () => {
    expect(existsSync(join(app, 'node_modules', '@probekit', 'assistant', 'package.json'))).toBe(true);
    expect(['cdk8s', 'cdk8s-plus-28', 'constructs'].filter((name) => existsSync(join(app, 'node_modules', name)))).toEqual([]);
  });

  it('probekit assistant --help lists its subcommands, and probekit assistant list its skills', async () => {
    const help = await outcome(probekit, ['assistant', '--help'], app, env);
    expect(help).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^usage:\n {2}probekit assistant serve .*\n {2}probekit assistant run .*\n {2}probekit assistant list .*\n\nprobekit assistant <command> --help lists .*\n$/),
      stderr: '',
    });
    const list = await outcome(probekit, ['assistant', 'list'], app, env);
    expect(list).toMatchObject({ code: 0, stderr: '' });
    expect(
      list.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    ).toEqual(BUILT_IN_SKILLS.map((skill) => skill.name));
  });

  it('probekit search-engine create-key reaches the engine through the installed Elasticsearch client, and says when it cannot', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const refused = await outcome(probekit, ['search-engine', 'create-key', '--url', closed, '--username', 'elastic', '--password-env', 'P', '--name', 'k'], app, { ...env, P: 'password' });
    expect(refused).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(new RegExp(`^error: [^\\n]*connection to ${closed} refused[^\\n]*\\n$`)) });
  });
});

/** What a command printed and its exit code, whatever the code. */
async function outcome(file: string, args: readonly string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(file, [...args], { cwd, env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/**
 * The app as `cdk8s init typescript-app` writes it (the template's files, `{{ name }}` filled in as init fills them;
 * not its hook file), then: cdk8s-plus-28 for cdk8s-plus-33, every dependency pinned to the version npm's cache
 * holds, main.ts using probekit, the README's parts-alone example beside it, and a tsconfig for module nodenext.
 */
function layOutTemplateApp(app: string): void {
  const variables: Record<string, string> = {
    $base: APP,
    cdk8s_core_version: LOWEST_PEERS.cdk8s!,
    cdk8s_plus_version: LOWEST_PEERS['cdk8s-plus-28']!,
    constructs_version: LOWEST_PEERS.constructs!,
    cdk8s_cli_spec: '',
  };
  const fill = (text: string): string => text.replace(/\{\{ *([^} ]*) *\}\}/g, (_, name: string) => variables[name] ?? '');
  for (const file of filesUnder(TEMPLATE)) {
    if (file === '.hooks.sscaff.js') continue;
    mkdirSync(dirname(join(app, fill(file))), { recursive: true });
    writeFileSync(join(app, fill(file)), fill(readFileSync(join(TEMPLATE, file), 'utf8')));
  }
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  expect(Object.keys(manifest.dependencies).sort()).toEqual(['cdk8s', 'cdk8s-plus-33', 'constructs']);
  manifest.dependencies = { ...LOWEST_PEERS };
  manifest.devDependencies = { ...TEMPLATE_DEV_DEPENDENCIES };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  const main = readFileSync(join(app, 'main.ts'), 'utf8');
  expect(main).toContain('    // define resources here\n');
  writeFileSync(
    join(app, 'main.ts'),
    `import { BlackboxExporter, presets } from 'probekit';\n${main.replace(
      '    // define resources here\n',
      "    // define resources here\n    const exporter = new BlackboxExporter(this, 'exporter', { modules: { http_2xx: presets.http2xx() } });\n    exporter.addModule('ping', { prober: 'icmp' });\n",
    )}`,
  );
  writeFileSync(join(app, 'parts.ts'), readFileSync(EXAMPLE));
  // The exporter's contract alone, under the template's compiler options, and emitted to a folder of its own.
  writeFileSync(
    join(app, 'contract.ts'),
    [
      "import { formatProblem, moduleProblems, PROBER_NAMES, type HttpProbeInput, type ModuleInput } from '@probekit/exporter';",
      '',
      "const http: HttpProbeInput = { method: 'GET', valid_status_codes: [200], tls_config: { insecure_skip_verify: false } };",
      "const web: ModuleInput = { prober: 'http', timeout: '5s', http };",
      "const problems = moduleProblems('web', web).concat(moduleProblems('typo', { prober: 'http', http: { metod: 'GET' } }));",
      'console.log(JSON.stringify({ probers: PROBER_NAMES, problems: problems.map((problem) => formatProblem(problem)) }));',
      '',
    ].join('\n'),
  );
  writeFileSync(join(app, 'tsconfig.contract.json'), `${JSON.stringify({ extends: './tsconfig.json', compilerOptions: { outDir: 'contract-out' }, include: ['contract.ts'] }, null, 2)}\n`);
  writeFileSync(
    join(app, 'tsconfig.nodenext.json'),
    `${JSON.stringify({ extends: './tsconfig.json', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', outDir: 'nodenext' }, exclude: ['node_modules', 'nodenext'] }, null, 2)}\n`,
  );
}

/** Whether `version` is within `range`, for the ranges the template writes: `^major[.minor.patch]` and `major.minor.x`. */
function withinRange(version: string, range: string): boolean {
  const [major, minor, patch] = version.split('.').map(Number);
  const caret = /^\^(\d+)(?:\.(\d+)\.(\d+))?$/.exec(range);
  if (caret) {
    const floor = [Number(caret[1]), Number(caret[2] ?? 0), Number(caret[3] ?? 0)];
    return major === floor[0] && (minor! > floor[1]! || (minor === floor[1] && patch! >= floor[2]!));
  }
  const x = /^(\d+)\.(\d+)\.x$/.exec(range);
  return x !== null && major === Number(x[1]) && minor === Number(x[2]);
}

interface Lockfile {
  readonly packages: Record<string, { version?: string; hasInstallScript?: boolean; dev?: boolean }>;
}

function readLock(app: string): Lockfile {
  return JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as Lockfile;
}

/** The packages npm put on disk: with --omit=dev the lockfile still lists the development ones, marked `dev`. */
function installedPackages(lock: Lockfile): string[] {
  return Object.keys(lock.packages).filter((path) => path !== '' && !lock.packages[path]!.dev);
}

/** Every file below `folder`, relative to it. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((path) => lstatSync(join(folder, path)).isFile());
}

/** Bytes `folder` takes on disk, as `du` counts them: the blocks of every file, folder and link below it, each once. */
function diskUsage(folder: string): number {
  const seen = new Set<string>();
  let bytes = 0;
  for (const path of ['', ...readdirSync(folder, { recursive: true, encoding: 'utf8' })]) {
    const stat = lstatSync(join(folder, path), { bigint: true });
    const inode = `${stat.dev}:${stat.ino}`;
    if (seen.has(inode)) continue;
    seen.add(inode);
    bytes += Number(stat.blocks) * 512;
  }
  return bytes;
}

/** npm's own scripts (npm and npx are node programs): the bare PATH links to them, beside node. */
function npmCli(command: 'npm' | 'npx'): string {
  const npm = process.env.npm_execpath?.endsWith('npm-cli.js')
    ? process.env.npm_execpath
    : (process.env.PATH ?? '')
        .split(delimiter)
        .map((dir) => join(dir, 'npm'))
        .filter((file) => existsSync(file))
        .map((file) => realpathSync(file))[0];
  if (npm === undefined) throw new Error('npm is not on PATH');
  return join(dirname(npm), `${command}-cli.js`);
}
