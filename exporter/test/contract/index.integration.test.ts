/**
 * The contract entry point, as another package loads it: in a fresh node process, importing it loads no
 * prober's runtime part and none of the exporter's runtime dependencies, which the package does not even
 * declare (they are bundled into its files). The same holds of the contract's bundle, which the package ships:
 * what it runs on load is only what its entry point imports, the probers waiting behind probeTarget's require.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { FROM_SOURCE } from '../../loopback/from-source';

const EXPORTER = join(__dirname, '../..');
const CONTRACT = join(EXPORTER, 'src/contract/index.ts');

/** Every file the contract's import brought in, relative to the exporter folder (node_modules as `package/...`). */
function filesLoadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const loaded = JSON.parse(execFileSync(process.execPath, [...FROM_SOURCE, '-e', script], { cwd: EXPORTER, encoding: 'utf8' })) as string[];
  return loaded.map((file) => (file.includes('/node_modules/') ? file.slice(file.lastIndexOf('/node_modules/') + '/node_modules/'.length) : relative(EXPORTER, file)));
}

describe('the contract entry point', () => {
  let loaded: string[];

  beforeAll(() => {
    loaded = filesLoadedBy(CONTRACT);
  });

  it("loads the module schema and every prober's definition (the check that this test sees what a require loads)", () => {
    expect(loaded).toEqual(expect.arrayContaining(['src/contract/index.ts', 'src/config/schema.ts', 'src/probers/http/definition.ts', 'src/probers/grpc/definition.ts']));
    expect(loaded.some((file) => file.startsWith('zod/'))).toBe(true);
  });

  it('loads no runtime dependency of the exporter', () => {
    const packages = loaded.filter((file) => /^(prom-client|@grpc\/|dns-packet|yaml)\//.test(file));
    expect(packages).toEqual([]);
  });

  it('loads the probers on the first probeTarget call, not before', () => {
    const script = `const contract = require(${JSON.stringify(CONTRACT)}); const before = Object.keys(require.cache).some((file) => file.endsWith('probers/index.ts'));
      contract.probeTarget('m', { prober: 'tcp', timeout: '1s' }, '127.0.0.1:1').then((result) => process.stdout.write(JSON.stringify({ before, after: Object.keys(require.cache).some((file) => file.endsWith('probers/index.ts')), failure: result.failure })));`;
    const seen = JSON.parse(execFileSync(process.execPath, [...FROM_SOURCE, '-e', script], { cwd: EXPORTER, encoding: 'utf8' })) as unknown;
    expect(seen).toEqual({ before: false, after: true, failure: { reason: 'connection refused' } });
  });

  it('loads no probe function, metric, dialer or server', () => {
    const runtime = loaded.filter((file) => /^src\/(probers\/[a-z]+\/(probe|metrics)\.ts|probers\/index\.ts|probers\/shared\/(dial|tls|address)\.ts|metrics\.ts|server\/|main\.ts)/.test(file));
    expect(runtime).toEqual([]);
  });
});

describe('the contract bundle (dist/contract.js)', () => {
  /** The bundle's inputs by what brings them in: imports run when the bundle loads, requires when first called. */
  let eager: string[];
  let deferred: string[];

  beforeAll(() => {
    const out = mkdtempSync(join(tmpdir(), 'probekit-contract-'));
    try {
      execFileSync(process.execPath, [join(EXPORTER, 'build.mjs'), '--contract', '--outdir', out, '--metafile', join(out, 'meta.json')], { cwd: EXPORTER, stdio: 'pipe' });
      const { inputs } = JSON.parse(readFileSync(join(out, 'meta.json'), 'utf8')) as { inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }> };
      // esbuild runs a module that is only required (never imported) when the require runs, not when the bundle loads.
      // (Paths are relative to the build's working directory, the exporter's folder.)
      const reached = new Set<string>();
      const queue = ['src/contract/index.ts'];
      for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
        if (reached.has(file)) continue;
        reached.add(file);
        queue.push(...inputs[file]!.imports.filter((edge) => edge.kind === 'import-statement' && !edge.external).map((edge) => edge.path));
      }
      eager = [...reached];
      deferred = Object.keys(inputs).filter((file) => !reached.has(file));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it("runs on load the contract, the config schemas and the probers' definitions, and of its packages zod alone", () => {
    expect(eager).toEqual(expect.arrayContaining(['src/contract/index.ts', 'src/config/schema.ts', 'src/probers/http/definition.ts']));
    expect([...new Set(eager.map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]).filter((name) => name !== undefined))]).toEqual(['zod']);
    expect(eager.filter((file) => /^src\/(probers\/[a-z]+\/(probe|metrics)\.ts|probers\/index\.ts|server\/|metrics\.ts|main\.ts)/.test(file))).toEqual([]);
  });

  it('carries the probers for probeTarget, run at its first call', () => {
    expect(deferred).toEqual(expect.arrayContaining(['src/server/probe-run.ts', 'src/probers/index.ts', 'src/probers/http/probe.ts', 'src/probers/icmp/probe.ts']));
  });
});
