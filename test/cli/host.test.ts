/**
 * `probekit host render`: the single-machine files from a spec file, with the caller's relative paths, and the
 * tree it writes staged by install.sh as a machine would receive it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { hostMonitoringPaths, hostPaths } from '../../src/render';
import { runCli } from '../support/cli';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import { tempDirPerTest } from '../support/temp-dir';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');
const tempDir = tempDirPerTest('probekit-host-');
const SPEC = 'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\n';

describe('probekit host render and install.sh', () => {
  it('renders the tree, and install.sh stages it with the bundle', async () => {
    const dir = tempDir();
    const specFile = join(dir, 'spec.yaml');
    writeFileSync(specFile, 'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\n');
    const out = join(dir, 'host');
    await run(process.execPath, [...FROM_SOURCE, 'src/cli/main.ts', 'host', 'render', '--spec', specFile, '--out', out], { cwd: root });
    const paths = hostPaths('probekit');
    expect(parse(readFileSync(join(out, paths.agentConfig), 'utf8')).scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['blackbox-exporter', 'probekit-exporter']);

    const bundle = join(dir, 'probekit-exporter.js');
    writeFileSync(bundle, '// bundle stand-in: install.sh only copies it\n');
    const staged = join(dir, 'root');
    mkdirSync(staged);
    const { stdout } = await run('bash', [join(root, 'exporter/packaging/install.sh'), '--exporter', 'blackbox', '--files', out, '--bundle', bundle, '--root', staged, '--arch', 'arm64']);
    expect(stdout).toContain('installed the probekit exporter (arm64)');
    expect(readFileSync(join(staged, 'opt/probekit/exporter/probekit-exporter.js'), 'utf8')).toContain('bundle stand-in');
    expect(statSync(join(staged, paths.exporterConfig)).isFile()).toBe(true);
    expect(statSync(join(staged, paths.unit)).isFile()).toBe(true);
  });

  it('install.sh refuses another exporter and an unknown architecture', async () => {
    const dir = tempDir();
    await expect(run('bash', [join(root, 'exporter/packaging/install.sh'), '--exporter', 'node', '--files', dir])).rejects.toMatchObject({
      stderr: expect.stringContaining("--exporter: only blackbox is available (got 'node')"),
    });
    mkdirSync(join(dir, 'etc'));
    const bundle = join(dir, 'b.js');
    writeFileSync(bundle, '');
    await expect(run('bash', [join(root, 'exporter/packaging/install.sh'), '--exporter', 'blackbox', '--files', dir, '--bundle', bundle, '--root', dir, '--arch', 's390x'])).rejects.toMatchObject({
      stderr: expect.stringContaining("--arch: use amd64 or arm64 (got 's390x')"),
    });
  });
});

describe("probekit host render, in the caller's directory", () => {
  it("reads --spec and writes --out relative to the caller's directory, and lists what it wrote", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    const result = await runCli(['host', 'render', '--spec', 'spec.yaml', '--out', 'tree', '--vendor', 'acme'], {}, undefined, dir);
    const paths = hostPaths('acme');
    const monitoring = hostMonitoringPaths('acme', 'probekit-endpoints');
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [paths.exporterConfig, paths.agentConfig, paths.unit, monitoring.dashboard, monitoring.rules].map((path) => `${join('tree', path)}\n`).join(''),
    });
    expect(parse(readFileSync(join(dir, 'tree', paths.agentConfig), 'utf8')).scrape_configs).toHaveLength(2);
  });

  it('a spec file that cannot be read is a mistake in the command line, named by its flag', async () => {
    const dir = tempDir();
    expect(await runCli(['host', 'render', '--spec', 'nope.yaml'], {}, undefined, dir)).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --spec nope.yaml: cannot read ${join(dir, 'nope.yaml')}: no such file; check the path (a relative path is read from ${dir})\n`,
    });
  });

  it('a spec with problems fails with one line per problem, after the file as given', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), 'modules:\n  m: { preset: http_post_2xx }\njobs:\n  - module: m\n    targets: [example.com]\n');
    expect(await runCli(['host', 'render', '--spec', 'bad.yaml'], {}, undefined, dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: ['error: bad.yaml: modules.m.body: required: the JSON document the probe posts, as text (in YAML, quote it: body: \'{"check":"synthetic"}\')', ''].join('\n'),
    });
  });

  it('an agent file it cannot edit is named as given', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    writeFileSync(join(dir, 'agent.yaml'), 'scrape_configs: 3\n');
    expect(await runCli(['host', 'render', '--spec', 'spec.yaml', '--agent-config', 'agent.yaml'], {}, undefined, dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: agent.yaml: scrape_configs: is not a list; make it a list of jobs\n',
    });
  });
});
