/**
 * `probekit host render`: the single-machine files from a spec file, with the caller's relative paths, and the
 * tree it writes staged by install.sh as a machine would receive it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

describe('probekit host render, as a program', () => {
  it('renders the tree from the sources, with a spec in YAML', async () => {
    const dir = tempDir();
    const specFile = join(dir, 'spec.yaml');
    writeFileSync(specFile, SPEC);
    const out = join(dir, 'host');
    await run(process.execPath, [...FROM_SOURCE, 'src/cli/main.ts', 'host', 'render', '--spec', specFile, '--out', out], { cwd: root });
    const paths = hostPaths('probekit');
    expect(parse(readFileSync(join(out, paths.agentConfig), 'utf8')).scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['blackbox-exporter', 'probekit-exporter']);
    expect(statSync(join(out, paths.exporterConfig)).isFile()).toBe(true);
    expect(statSync(join(out, paths.unit)).isFile()).toBe(true);
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
      stdout: [paths.exporterConfig, paths.agentConfig, paths.agentJobs, paths.unit, monitoring.dashboard, monitoring.rules].map((path) => `${join('tree', path)}\n`).join(''),
    });
    expect(parse(readFileSync(join(dir, 'tree', paths.agentConfig), 'utf8')).scrape_configs).toHaveLength(2);
  });

  it("--location makes the machine one of the spec's locations: its jobs and the exporter's own carry the label; one not among them is refused", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), `${SPEC}locations: [eu, us, ap]\n`);
    expect(await runCli(['host', 'render', '--spec', 'spec.yaml', '--out', 'tree', '--location', 'us'], {}, undefined, dir)).toMatchObject({ code: 0 });
    const jobs = parse(readFileSync(join(dir, 'tree', hostPaths('probekit').agentConfig), 'utf8')).scrape_configs as Array<{ static_configs: Array<{ labels?: Record<string, string> }> }>;
    expect(jobs.map((job) => job.static_configs[0]!.labels?.location)).toEqual(['us', 'us']);
    const refused = await runCli(['host', 'render', '--spec', 'spec.yaml', '--out', 'tree', '--location', 'sa'], {}, undefined, dir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('location: "sa" is not one of locations (eu, us, ap); add it to locations, or name one of them');
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
      stderr: ['error: bad.yaml:2: modules.m.body: required: the JSON document the probe posts, as text (in YAML, quote it: body: \'{"check":"synthetic"}\')', ''].join('\n'),
    });
  });

  it("what only the host form refuses is named after the spec file too: a socket the exporter's unit hides", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'unix.yaml'), 'modules:\n  socket: { prober: unix }\njobs:\n  - module: socket\n    targets: [/tmp/app.sock]\n');
    expect(await runCli(['host', 'render', '--spec', 'unix.yaml', '--out', 'tree'], {}, undefined, dir)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: unix.yaml:5: jobs[0].targets[0]: "/tmp/app.sock" is under /tmp, which the exporter's service cannot see (PrivateTmp=yes gives it a /tmp of its own); have the service put its socket elsewhere, under /run for example\n`,
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

  it('edits the agent file and the record found under --from, and writes the result under --out', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    const paths = hostPaths('acme');
    mkdirSync(join(dir, 'machine', 'etc', 'acme'), { recursive: true });
    writeFileSync(join(dir, 'machine', paths.agentConfig), '# by hand\nscrape_configs:\n  - job_name: node\n');
    expect(await runCli(['host', 'render', '--spec', 'spec.yaml', '--vendor', 'acme', '--from', 'machine', '--out', 'staged'], {}, undefined, dir)).toMatchObject({ code: 0 });
    const staged = readFileSync(join(dir, 'staged', paths.agentConfig), 'utf8');
    expect(staged.startsWith('# by hand\nscrape_configs:\n  - job_name: node\n')).toBe(true);
    expect(parse(staged).scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['node', 'blackbox-exporter', 'probekit-exporter']);
    expect(readFileSync(join(dir, 'machine', paths.agentConfig), 'utf8')).toBe('# by hand\nscrape_configs:\n  - job_name: node\n');
  });

  it('remove-jobs takes its jobs out of the agent file and removes the record; a file left empty is removed', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), SPEC);
    const paths = hostPaths('probekit');
    await runCli(['host', 'render', '--spec', 'spec.yaml', '--out', 'tree'], {}, undefined, dir);
    expect(await runCli(['host', 'remove-jobs', '--out', 'tree'], {}, undefined, dir)).toEqual({
      code: 0,
      stderr: '',
      stdout: [paths.agentConfig, paths.agentJobs].map((path) => `removed ${join('tree', path)}\n`).join(''),
    });
    expect(existsSync(join(dir, 'tree', paths.agentConfig))).toBe(false);
    expect(existsSync(join(dir, 'tree', paths.exporterConfig))).toBe(true);
  });

  it("a spec with searchEngine renders without the engine's token, and says the host form leaves the section out", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), `${SPEC}searchEngine:\n  url: https://search.example.com\n  apiToken: { fromEnv: SEARCH_TOKEN_NOT_SET }\n`);
    const result = await runCli(['host', 'render', '--spec', 'spec.yaml'], {}, undefined, dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'note: searchEngine is not rendered on a host: the host form installs the exporter; run the assistant\'s skills server where the assistant runs, with the URL and token in its environment (see "probekit assistant serve --help")\n',
    );
  });

  it('says which exporter settings of the cluster form a host leaves out, so nobody thinks the host form is behind TLS or a password', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'spec.yaml'),
      `${SPEC}exporter:\n  tls: { secretName: exporter-tls }\n  basicAuth: { username: prometheus, passwordHash: "${'$2y$10$' + 'a'.repeat(53)}", secretName: exporter-auth }\n`,
    );
    const result = await runCli(['host', 'render', '--spec', 'spec.yaml'], {}, undefined, dir);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'note: exporter.tls, exporter.basicAuth are cluster settings and not rendered on a host: the exporter there listens where host.listenAddress says (127.0.0.1:9115 unless set), without TLS or a password of its own (see docs/security.md)\n',
    );
  });
});
