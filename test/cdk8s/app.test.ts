/**
 * The default app as users run it: `npm run synth` (the cdk8s CLI) and the app itself, on a fresh
 * output folder, with the documented example and with spec files.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { FROM_SOURCE } from '../support/from-source';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
let outdir: string;

beforeEach(() => {
  outdir = mkdtempSync(join(tmpdir(), 'probekit-synth-'));
});
afterEach(() => rmSync(outdir, { recursive: true, force: true }));

/** Runs the app as cdk8s does, with CDK8S_OUTDIR, and returns its exit code and stderr. */
async function runApp(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [...FROM_SOURCE, 'src/cdk8s/app.ts'], { cwd: root, env: { ...process.env, CDK8S_OUTDIR: outdir, ...env } });
    return { code: 0, stderr };
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
}

it('npm run synth -o DIR writes the manifests and the agent values of the documented example', async () => {
  await run('npm', ['run', '--silent', 'synth', '--', '-o', outdir], { cwd: root, env: { ...process.env, PROBEKIT_SPEC: '' } });
  expect(readdirSync(outdir).sort()).toEqual(['probekit.agent-values.yaml', 'probekit.k8s.yaml']);
  const kinds = parseAllDocuments(readFileSync(join(outdir, 'probekit.k8s.yaml'), 'utf8')).map((doc) => doc.toJS().kind);
  expect(kinds).toEqual(['ConfigMap', 'Deployment', 'Service']);
  expect(readFileSync(join(outdir, 'probekit.agent-values.yaml'), 'utf8')).toContain('replacement: blackbox-exporter.monitoring.svc:9115');
}, 120_000);

it('synthesizes the spec file named by PROBEKIT_SPEC', async () => {
  const spec = join(outdir, 'spec.yaml');
  writeFileSync(spec, 'namespace: probes\nmodules:\n  tcp:\n    prober: tcp\njobs:\n  - name: ssh\n    module: tcp\n    targets: ["[::1]:22"]\n');
  const result = await runApp({ PROBEKIT_SPEC: spec });
  expect(result).toEqual({ code: 0, stderr: '' });
  expect(readFileSync(join(outdir, 'probekit.agent-values.yaml'), 'utf8')).toContain('replacement: blackbox-exporter.probes.svc:9115');
});

it.each([
  ['an unknown module', 'jobs:\n  - module: nope\n    targets: [https://example.com]\n', 'jobs[0].module: module "nope" is not defined; define it under modules'],
  [
    'an unset token env var',
    'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\nsearchEngine:\n  url: https://s.example.com\n  apiToken: { fromEnv: PROBEKIT_TEST_UNSET_TOKEN }\n',
    'searchEngine.apiToken.fromEnv: environment variable PROBEKIT_TEST_UNSET_TOKEN is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
  ],
  [
    'scrapeTimeout > scrapeInterval',
    'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\n    scrapeInterval: 10s\n    scrapeTimeout: 15s\n',
    'jobs[0].scrapeTimeout: 15s is longer than scrapeInterval 10s, which Prometheus refuses; lower scrapeTimeout or raise scrapeInterval',
  ],
])('%s fails synth with one line naming the field, and writes nothing', async (_case, text, problem) => {
  const spec = join(outdir, 'bad.yaml');
  writeFileSync(spec, text);
  const result = await runApp({ PROBEKIT_SPEC: spec });
  expect(result).toEqual({ code: 1, stderr: `${spec}: ${problem}\n` });
  expect(readdirSync(outdir)).toEqual(['bad.yaml']);
});
