/**
 * The default app as users run it: `npm run synth` (probekit synth from the sources), `cdk8s synth` (cdk8s.yaml's
 * app, a thin call of probekit synth) and the app itself, with the documented example and with spec files, from the
 * caller's directory. What probekit synth writes is tested with the command (test/cli/synth.integration.test.ts).
 *
 * @ci-seconds 25
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import { runCli } from '../support/cli';
import { tempDirPerTest } from '../support/temp-dir';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const tempDir = tempDirPerTest('probekit-synth-');

/** The folder the app writes to: made before it runs, as `cdk8s synth --stdout` makes it. */
const outdir = (): string => join(tempDir(), 'out');

/** Runs the app as cdk8s does, with CDK8S_OUTDIR (an existing folder unless given), and returns its exit code and stderr. */
async function runApp(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  mkdirSync(outdir(), { recursive: true });
  try {
    const { stderr } = await run(process.execPath, [...FROM_SOURCE, 'src/cdk8s/app.ts'], { cwd: root, env: { ...process.env, CDK8S_OUTDIR: outdir(), INIT_CWD: root, ...env } });
    return { code: 0, stderr };
  } catch (error) {
    const failure = error as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
}

it('npm run synth -- -o DIR writes the manifests, the agent values, the dashboard and the rules of the documented example', async () => {
  await run('npm', ['run', '--silent', 'synth', '--', '-o', tempDir()], { cwd: root, env: { ...process.env, PROBEKIT_SPEC: '' } });
  expect(readdirSync(tempDir()).sort()).toEqual(['probekit.agent-values.yaml', 'probekit.dashboard.json', 'probekit.k8s.yaml', 'probekit.rules.yaml']);
  const kinds = parseAllDocuments(readFileSync(join(tempDir(), 'probekit.k8s.yaml'), 'utf8')).map((doc) => doc.toJS().kind);
  expect(kinds).toEqual(['ConfigMap', 'Deployment', 'Service', 'ConfigMap']);
  expect(readFileSync(join(tempDir(), 'probekit.agent-values.yaml'), 'utf8')).toContain('replacement: blackbox-exporter.monitoring.svc:9115');
}, 120_000);

it('cdk8s synth -o DIR writes what probekit synth writes', async () => {
  const viaCdk8s = join(tempDir(), 'cdk8s');
  await run(join(root, 'node_modules', '.bin', 'cdk8s'), ['synth', '--no-check-upgrade', '-o', viaCdk8s], { cwd: root, env: { ...process.env, PROBEKIT_SPEC: '' } });
  const viaCommand = join(tempDir(), 'command');
  expect((await runCli(['synth', '-o', viaCommand])).code).toBe(0);
  const files = (dir: string) => readdirSync(dir).map((name) => [name, statSync(join(dir, name)).mode, readFileSync(join(dir, name), 'utf8')]);
  expect(files(viaCdk8s)).toEqual(files(viaCommand));
}, 120_000);

it('synthesizes the spec file named by PROBEKIT_SPEC', async () => {
  const spec = join(tempDir(), 'spec.yaml');
  writeFileSync(spec, 'namespace: probes\nmodules:\n  tcp:\n    prober: tcp\njobs:\n  - name: ssh\n    module: tcp\n    targets: ["[::1]:22"]\n');
  const result = await runApp({ PROBEKIT_SPEC: spec });
  expect(result).toEqual({ code: 0, stderr: '' });
  expect(readFileSync(join(outdir(), 'probekit.agent-values.yaml'), 'utf8')).toContain('replacement: blackbox-exporter.probes.svc:9115');
});

it.each([
  ['an unknown module', 'jobs:\n  - module: nope\n    targets: [https://example.com]\n', 2, 'jobs[0].module: module "nope" is not defined; define it under modules'],
  [
    'an unset token env var',
    'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\nsearchEngine:\n  url: https://s.example.com\n  apiToken: { fromEnv: PROBEKIT_TEST_UNSET_TOKEN }\n',
    8,
    'searchEngine.apiToken.fromEnv: environment variable PROBEKIT_TEST_UNSET_TOKEN is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
  ],
  [
    'scrapeTimeout > scrapeInterval',
    'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\n    scrapeInterval: 10s\n    scrapeTimeout: 15s\n',
    7,
    'jobs[0].scrapeTimeout: 15s is longer than scrapeInterval 10s, which Prometheus refuses; lower scrapeTimeout or raise scrapeInterval',
  ],
  [
    'a unix job, which only the host form can probe',
    'modules:\n  socket: { prober: unix }\njobs:\n  - module: socket\n    targets: [/run/app.sock]\n',
    4,
    `jobs[0].module: "socket" probes a unix socket, which the exporter's pod does not have (it would look in its own container); probe the workload's port with a tcp or http module, or install the host form on the machine that has the socket`,
  ],
])('%s fails synth with one line naming the field at its line, and writes nothing', async (_case, text, line, problem) => {
  const spec = join(tempDir(), 'bad.yaml');
  writeFileSync(spec, text);
  const result = await runApp({ PROBEKIT_SPEC: spec });
  expect(result).toEqual({ code: 1, stderr: `error: ${spec}:${line}: ${problem}\n` });
  expect(readdirSync(tempDir()).sort()).toEqual(['bad.yaml', 'out']);
  expect(readdirSync(outdir())).toEqual([]);
});

it('reads a relative PROBEKIT_SPEC from the directory npm was started in (INIT_CWD)', async () => {
  writeFileSync(join(tempDir(), 'mine.yaml'), 'namespace: mine\nmodules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\n');
  expect(await runApp({ PROBEKIT_SPEC: 'mine.yaml', INIT_CWD: tempDir() })).toEqual({ code: 0, stderr: '' });
  expect(readFileSync(join(outdir(), 'probekit.agent-values.yaml'), 'utf8')).toContain('replacement: blackbox-exporter.mine.svc:9115');
});

it('a spec file that cannot be read names PROBEKIT_SPEC and the directory it was read from', async () => {
  expect(await runApp({ PROBEKIT_SPEC: 'nope.yaml', INIT_CWD: tempDir() })).toEqual({
    code: 2,
    stderr: `error: PROBEKIT_SPEC=nope.yaml: cannot read ${join(tempDir(), 'nope.yaml')}: no such file; check the path (a relative path is read from ${tempDir()})\n`,
  });
});

it('a failed cdk8s synth prints our problems, and only the one line the cdk8s CLI adds', async () => {
  writeFileSync(join(tempDir(), 'bad.yaml'), 'namespce: x\nmodules:\n  api: { preset: http_2xx_with_header }\njobs:\n  - module: nope\n    targets: [https://example.com]\n');
  const dist = join(tempDir(), 'dist');
  const failure = await run(join(root, 'node_modules', '.bin', 'cdk8s'), ['synth', '--no-check-upgrade', '-o', dist], {
    cwd: root,
    env: { ...process.env, PROBEKIT_SPEC: 'bad.yaml', INIT_CWD: tempDir() },
  }).then(
    () => undefined,
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  expect(failure?.code).toBe(1);
  expect(failure?.stdout).toBe('Synthesizing application\n');
  // The cdk8s CLI reports any app that exits non-zero with a stack trace of its own. The app therefore exits 0
  // without writing the output folder, which the CLI reports in the one line at the end, with exit code 1.
  expect(failure?.stderr).toBe(
    [
      'error: bad.yaml:1: namespce: unknown field; did you mean "namespace"?',
      'error: bad.yaml:3: modules.api.accessToken: required: the token sent as "Authentication: Bearer <token>", as { fromEnv: VAR } or { existingSecret: { name, key } }',
      'error: bad.yaml:5: jobs[0].module: module "nope" is not defined; use one of: api, or define it under modules',
      `ERROR: synthesis failed, app expected to create "${dist}"`,
      '',
    ].join('\n'),
  );
  expect(readdirSync(tempDir())).toEqual(['bad.yaml']);
}, 120_000);
