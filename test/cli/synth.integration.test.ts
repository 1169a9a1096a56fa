/**
 * `probekit synth` in a directory of its own, outside the repository, as a user of the installed package runs it:
 * paths are the caller's, the files are those of the cdk8s app (ProbekitApp with one ProbekitChart) byte for byte
 * and mode for mode, a refused spec writes nothing, and the folder's earlier files are replaced, no others.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { ProbekitApp, ProbekitChart } from '../../src/cdk8s';
import { SYNTH_OUTPUT } from '../../src/cli/synth';
import { documentedExample, parseSpec, type SpecInput } from '../../src/model';
import { fullEnv, fullSpec } from '../fixtures/specs';
import { runCli } from '../support/cli';
import { tempDirPerTest } from '../support/temp-dir';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const tempDir = tempDirPerTest('probekit-synth-cli-');
const SPEC_INPUT: SpecInput = { namespace: 'probes', modules: { m: { preset: 'http_2xx' } }, jobs: [{ name: 'web', module: 'm', targets: ['https://example.com'] }] };
const SPEC = stringify(SPEC_INPUT);

/** Each file of a folder with its mode and content. */
function files(dir: string): Record<string, { mode: string; content: string }> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, { mode: (statSync(join(dir, name)).mode & 0o777).toString(8), content: readFileSync(join(dir, name), 'utf8') }]),
  );
}

/** What the cdk8s app writes for `spec`: one ProbekitChart named probekit in a ProbekitApp. */
function appOutput(spec: SpecInput, env: Record<string, string>): Record<string, { mode: string; content: string }> {
  const outdir = join(tempDir(), 'app-output');
  const app = new ProbekitApp({ outdir });
  new ProbekitChart(app, 'probekit', { spec: parseSpec(spec, { env }), env });
  app.synth();
  return files(outdir);
}

describe('the files', () => {
  it("reads --spec and writes --out relative to the caller's directory, lists them, and writes what the cdk8s app writes", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(fullSpec));
    const result = await runCli(['synth', '--spec', 'spec.json', '--out', 'manifests'], fullEnv, undefined, dir);
    const expected = appOutput(fullSpec, fullEnv);
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: Object.keys(expected)
        .map((name) => `${join('manifests', name)}\n`)
        .join(''),
    });
    expect(files(join(dir, 'manifests'))).toEqual(expected);
    // The spec's header Secret holds a token: its manifest is its owner's alone.
    expect(expected['probekit.k8s.yaml']!.mode).toBe('600');
    expect(expected['probekit.agent-values.yaml']!.mode).toBe('644');
  });

  it('every file of a spec that turns everything on is one synth may replace later', () => {
    const names = Object.keys(appOutput(fullSpec, fullEnv));
    expect(names).toEqual(['probekit.agent-values.yaml', 'probekit.dashboard.json', 'probekit.k8s.yaml', 'probekit.rules.yaml']);
    expect(names.filter((name) => !SYNTH_OUTPUT.test(name))).toEqual([]);
  });

  it('without --spec reads PROBEKIT_SPEC, and without either the documented example, saying so', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    expect(await runCli(['synth'], { PROBEKIT_SPEC: 'spec.yaml' }, undefined, dir)).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(join(dir, 'dist', 'probekit.agent-values.yaml'), 'utf8')).toContain('replacement: blackbox-exporter.probes.svc:9115');
    const example = await runCli(['synth', '-o', 'example'], {}, undefined, dir);
    expect(example).toMatchObject({ code: 0, stderr: 'note: no --spec (nor PROBEKIT_SPEC): synthesizing the documented example\n' });
    expect(files(join(dir, 'example'))).toEqual(appOutput(documentedExample, {}));
  });

  it('--spec wins over PROBEKIT_SPEC', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    expect(await runCli(['synth', '--spec', 'spec.yaml'], { PROBEKIT_SPEC: 'elsewhere.yaml' }, undefined, dir)).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(join(dir, 'dist', 'probekit.agent-values.yaml'), 'utf8')).toContain('blackbox-exporter.probes.svc:9115');
  });

  it("replaces an earlier synth's files, those the spec no longer asks for too", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    await runCli(['synth', '--spec', 'spec.yaml'], {}, undefined, dir);
    writeFileSync(join(dir, 'spec.yaml'), `${SPEC}dashboard: { enabled: false }\nalerts: { enabled: false }\n`);
    expect(await runCli(['synth', '--spec', 'spec.yaml'], {}, undefined, dir)).toEqual({ code: 0, stderr: '', stdout: 'dist/probekit.agent-values.yaml\ndist/probekit.k8s.yaml\n' });
    expect(readdirSync(join(dir, 'dist')).sort()).toEqual(['probekit.agent-values.yaml', 'probekit.k8s.yaml']);
    expect(readdirSync(dir).sort()).toEqual(['dist', 'spec.yaml']);
  });
});

describe('--chart', () => {
  it("writes the values for the chart named, in place of the spec's agent.chart, as the app writes them for a spec naming it", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), stringify({ ...SPEC_INPUT, agent: { chart: 'prometheus' } }));
    expect(await runCli(['synth', '--spec', 'spec.yaml', '--chart', 'victoria-metrics-agent'], {}, undefined, dir)).toMatchObject({ code: 0, stderr: '' });
    const expected = appOutput({ ...SPEC_INPUT, agent: { chart: 'victoria-metrics-agent' } }, {});
    expect(files(join(dir, 'dist'))).toEqual(expected);
    expect(Array.isArray(parse(expected['probekit.agent-values.yaml']!.content).extraScrapeConfigs)).toBe(true);
  });

  it('applies to the documented example too', async () => {
    const dir = tempDir();
    expect((await runCli(['synth', '--chart', 'prometheus'], {}, undefined, dir)).code).toBe(0);
    expect(typeof parse(readFileSync(join(dir, 'dist', 'probekit.agent-values.yaml'), 'utf8')).extraScrapeConfigs).toBe('string');
  });

  it("is checked with the spec's rules: a chart that needs more of the spec says what, at the file's line, and nothing is written", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    const result = await runCli(['synth', '--spec', 'spec.yaml', '--chart', 'alloy'], {}, undefined, dir);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: spec\.yaml:1: agent\.remoteWrite: required with chart alloy: give url /);
    expect(readdirSync(dir)).toEqual(['spec.yaml']);
  });

  it('a chart probekit writes no values for is a mistake in the command line, in the words the spec gets', async () => {
    expect(await runCli(['synth', '--chart', 'promethues'], {}, undefined, tempDir())).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --chart promethues: the text "promethues" is not allowed; use one of generic, prometheus, victoria-metrics-agent, alloy, k8s-monitoring\n',
    });
    expect(() => parseSpec({ ...SPEC_INPUT, agent: { chart: 'promethues' as 'prometheus' } })).toThrow(
      'agent.chart: the text "promethues" is not allowed; use one of generic, prometheus, victoria-metrics-agent, alloy, k8s-monitoring',
    );
  });
});

describe('refusals', () => {
  it('a spec with problems prints every one after its file, exits 1 and writes nothing, in --out or beside it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), 'namespce: x\nmodules:\n  m: { preset: http_2xx }\njobs:\n  - module: nope\n    targets: [https://example.com]\n');
    expect(await runCli(['synth', '--spec', 'bad.yaml', '--out', 'out/dist'], {}, undefined, dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'error: bad.yaml:1: namespce: unknown field; did you mean "namespace"?',
        'error: bad.yaml:5: jobs[0].module: module "nope" is not defined; use one of: m, or define it under modules',
        '',
      ].join('\n'),
    });
    expect(readdirSync(dir)).toEqual(['bad.yaml']);
  });

  it('a spec only the cluster form refuses (a unix job) is named after its file, and leaves the earlier files as they were', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    await runCli(['synth', '--spec', 'spec.yaml'], {}, undefined, dir);
    const before = files(join(dir, 'dist'));
    writeFileSync(join(dir, 'unix.yaml'), 'modules:\n  socket: { prober: unix }\njobs:\n  - module: socket\n    targets: [/run/app.sock]\n');
    const result = await runCli(['synth', '--spec', 'unix.yaml'], {}, undefined, dir);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: unix\.yaml:4: jobs\[0\]\.module: "socket" probes a unix socket, .*\n$/);
    expect(files(join(dir, 'dist'))).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(['dist', 'spec.yaml', 'unix.yaml']);
  });

  it('a folder holding files synth does not write is refused before the spec is read, and left alone', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect(await runCli(['synth', '--spec', 'missing.yaml', '--out', '.'], {}, undefined, dir)).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: --out .: holds notes.txt, which synth does not write; synth replaces the folder's files, so give a new or empty folder, or one only synth writes to\n",
    });
    mkdirSync(join(dir, 'dist', 'nested'), { recursive: true });
    expect((await runCli(['synth', '--spec', 'missing.yaml'], {}, undefined, dir)).stderr).toBe(
      "error: --out dist: holds nested, which synth does not write; synth replaces the folder's files, so give a new or empty folder, or one only synth writes to\n",
    );
    expect(readdirSync(dir).sort()).toEqual(['dist', 'notes.txt']);
  });

  it.each([
    [['synth', '--spec', 'nope.yaml'], (dir: string) => `error: --spec nope.yaml: cannot read ${join(dir, 'nope.yaml')}: no such file; check the path (a relative path is read from ${dir})`],
    [['synth', '--out', 'file.txt'], () => 'error: --out file.txt: is a file; give a folder (it is made when missing)'],
    [['synth', '--spek', 'x'], () => 'error: --spek: unknown flag; did you mean --spec?'],
    [['synth', 'spec.yaml'], () => 'error: unexpected argument "spec.yaml"; see probekit synth --help'],
  ])('%j is a mistake in the command line: exit 2, one line', async (args, line) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file.txt'), '');
    expect(await runCli(args, {}, undefined, dir)).toEqual({ code: 2, stdout: '', stderr: `${line(dir)}\n` });
  });
});

it('--help lists every flag with its default on stdout and exits 0', async () => {
  const result = await runCli(['synth', '--help']);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout).toMatch(/^usage: probekit synth \[--spec FILE\] \[--out DIR\] \[--chart NAME\]\n/);
  expect(result.stdout).toMatch(
    /\n {2}--chart NAME +the agent chart the values are written for: generic, prometheus, victoria-metrics-agent, alloy, k8s-monitoring \(default: the spec's agent\.chart, else generic\)\n/,
  );
  expect(result.stdout).toMatch(/\n {2}--spec FILE +the spec to synthesize \(default: the PROBEKIT_SPEC environment variable, else the documented example\)\n/);
  expect(result.stdout).toMatch(/\n {2}-o, --out DIR +the folder the files are written to; .* \(default: dist\)\n/);
});

it('runs as a program from a directory outside the repository, with nothing but its arguments', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'spec.yaml'), SPEC);
  const main = join(root, 'src', 'cli', 'main.ts');
  const { stdout } = await run(process.execPath, ['--conditions=@probekit/source', '--import', pathToFileURL(require.resolve('tsx')).href, main, 'synth', '--spec', 'spec.yaml', '-o', 'out'], {
    cwd: dir,
    env: { PATH: process.env.PATH },
  });
  expect(stdout).toBe(['out/probekit.agent-values.yaml', 'out/probekit.dashboard.json', 'out/probekit.k8s.yaml', 'out/probekit.rules.yaml', ''].join('\n'));
  expect(files(join(dir, 'out'))).toEqual(appOutput(SPEC_INPUT, {}));
  expect(existsSync(join(root, 'out'))).toBe(false);
}, 60_000);
