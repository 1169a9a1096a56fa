import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { parseSpec } from '../../src/model';
import { exporterUnit, hostPaths, removeHostJobs, renderExporterScrapeJob, renderHostFiles, renderScrapeJobs, syncScrapeJobs, localExporterAddress } from '../../src/render';
import { describeWithBinaries } from '../support/integration';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

const specInput = {
  modules: {
    http_2xx: { preset: 'http_2xx' },
    with_token: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'HOST_TOKEN' } },
  },
  jobs: [
    { name: 'blackbox-exporter', module: 'http_2xx', targets: ['https://example.com'] },
    { name: 'private-api', module: 'with_token', targets: ['https://api.example.com'] },
  ],
};
const spec = parseSpec(specInput);
const env = { HOST_TOKEN: 'host-secret-91c2' };

describe('single-machine files', () => {
  const files = renderHostFiles(spec, { vendor: 'acme', env });
  const byPath = Object.fromEntries(files.map((file) => [file.path, file]));

  it("puts each file where the agent's vendor layout has it", () => {
    expect(files.map((file) => file.path)).toEqual([
      '/etc/acme/exporters/blackbox/config.yaml',
      '/etc/acme/exporters/blackbox/secrets/with_token.authentication',
      '/etc/acme/agent-config.yaml',
      '/etc/acme/exporters/blackbox/agent-jobs.yaml',
      '/etc/systemd/system/probekit-exporter.service',
      '/etc/acme/dashboards/probekit-endpoints.json',
      '/etc/acme/rules/probekit.rules.yaml',
    ]);
  });

  it("records which jobs of the agent file are probekit's, in a file of its own", () => {
    expect(parse(byPath['/etc/acme/exporters/blackbox/agent-jobs.yaml'].content!)).toEqual({ jobs: ['blackbox-exporter', 'private-api', 'probekit-exporter'] });
  });

  it('the unit runs the installed bundle on the config file, listening on 127.0.0.1:9115 alone, with the Node flags the exporter is measured with', () => {
    const unit = byPath['/etc/systemd/system/probekit-exporter.service'].content;
    expect(unit).toContain('\nExecStart=/usr/bin/node /opt/probekit/exporter/probekit-exporter.js --config.file=/etc/acme/exporters/blackbox/config.yaml --web.listen-address=127.0.0.1:9115\n');
    expect(unit).toContain('\nEnvironment="NODE_OPTIONS=--max-semi-space-size=16"\n');
    expect(unit).toContain('\n# Health: curl -fsS http://127.0.0.1:9115/-/healthy\n');
  });

  it("the agent file has the jobs under scrape_configs, scraping 127.0.0.1:9115, and the exporter's own job", () => {
    const agent = parse(byPath['/etc/acme/agent-config.yaml'].content!);
    expect(agent.scrape_configs).toEqual([...renderScrapeJobs(spec, '127.0.0.1:9115'), renderExporterScrapeJob('127.0.0.1:9115')]);
    expect(agent.scrape_configs[0].relabel_configs[2]).toEqual({ target_label: '__address__', replacement: '127.0.0.1:9115' });
  });

  it.each([
    ['0.0.0.0:9200', '127.0.0.1:9200'],
    [':9115', '127.0.0.1:9115'],
    ['[::1]:9300', '[::1]:9300'],
    ['192.0.2.10:9115', '192.0.2.10:9115'],
  ])('host.listenAddress %s: the unit listens there, and the jobs and the health line follow it to %s', (listenAddress, reached) => {
    const files = renderHostFiles(parseSpec({ ...specInput, host: { listenAddress } }), { env });
    const unit = files.find((file) => file.path.endsWith('.service'))!.content!;
    expect(unit).toContain(` --web.listen-address=${listenAddress}\n`);
    expect(unit).toContain(`\n# Health: curl -fsS http://${reached}/-/healthy\n`);
    const agent = parse(files.find((file) => file.path.endsWith('agent-config.yaml'))!.content!);
    expect(
      agent.scrape_configs.map((job: { job_name: string; relabel_configs?: unknown[]; static_configs: Array<{ targets: string[] }> }) => job.relabel_configs?.[2] ?? job.static_configs[0]!.targets[0]),
    ).toEqual([{ target_label: '__address__', replacement: reached }, { target_label: '__address__', replacement: reached }, reached]);
    expect(localExporterAddress(listenAddress)).toBe(reached);
  });

  it.each(['localhost', '9115', ':0', '127.0.0.1:65536', '[::1:9115', 'http://127.0.0.1:9115'])('host.listenAddress %s is refused with the forms it takes', (listenAddress) => {
    expect(() => parseSpec({ ...specInput, host: { listenAddress } })).toThrow(
      'host.listenAddress: must be host:port or :port with a port from 1 to 65535, for example 127.0.0.1:9115 (this machine only) or 0.0.0.0:9115 (every interface)',
    );
  });

  it('the secret header value is in its own owner-only file, not in the config', () => {
    expect(byPath['/etc/acme/exporters/blackbox/secrets/with_token.authentication']).toEqual({
      path: '/etc/acme/exporters/blackbox/secrets/with_token.authentication',
      content: 'Bearer host-secret-91c2',
      mode: 0o600,
    });
    expect(byPath['/etc/acme/exporters/blackbox/config.yaml'].content).not.toContain('host-secret-91c2');
    expect(parse(byPath['/etc/acme/exporters/blackbox/config.yaml'].content!).modules.with_token.http.http_headers).toEqual({
      Authentication: { files: ['/etc/acme/exporters/blackbox/secrets/with_token.authentication'] },
    });
  });

  it('refuses existingSecret, which a machine does not have, and unset variables, all in one go', () => {
    const twoProblems = parseSpec({
      modules: {
        m: { preset: 'http_2xx_with_header', accessToken: { existingSecret: { name: 's', key: 'k' } } },
        n: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'UNSET_HOST_TOKEN' } },
      },
      jobs: [{ module: 'm', targets: ['https://example.com'] }],
    });
    expect(() => renderHostFiles(twoProblems)).toThrow(
      [
        'modules.m.http.headers.Authentication: existingSecret names a Kubernetes Secret, which a single machine does not have; use { fromEnv: VAR } for the host form',
        'modules.n.http.headers.Authentication.fromEnv: environment variable UNSET_HOST_TOKEN is not set; export it before rendering the host files',
      ].join('\n'),
    );
  });

  it("refuses a unix socket the exporter's unit hides (PrivateTmp, ProtectHome), and probes one under /run", () => {
    const unixSpec = (targets: string[]) => parseSpec({ modules: { socket: { prober: 'unix', timeout: '5s' } }, jobs: [{ name: 'sockets', module: 'socket', targets }] });
    expect(() => renderHostFiles(unixSpec(['/run/app.sock', '/tmp/app.sock', '/home/me/../me/app.sock', '/run/user/1000/bus', '/var/tmp/x.sock']))).toThrow(
      [
        `jobs[0].targets[1]: "/tmp/app.sock" is under /tmp, which the exporter's service cannot see (PrivateTmp=yes gives it a /tmp of its own); have the service put its socket elsewhere, under /run for example`,
        `jobs[0].targets[2]: "/home/me/../me/app.sock" is under /home, which the exporter's service cannot see (ProtectHome=yes hides it); have the service put its socket elsewhere, under /run for example`,
        `jobs[0].targets[3]: "/run/user/1000/bus" is under /run/user, which the exporter's service cannot see (ProtectHome=yes hides it); have the service put its socket elsewhere, under /run for example`,
        `jobs[0].targets[4]: "/var/tmp/x.sock" is under /var/tmp, which the exporter's service cannot see (PrivateTmp=yes gives it a /var/tmp of its own); have the service put its socket elsewhere, under /run for example`,
      ].join('\n'),
    );
    const files = renderHostFiles(unixSpec(['/run/app.sock', '/tmpfoo/app.sock']), { vendor: 'acme' });
    expect(files.find((file) => file.path.endsWith('agent-config.yaml'))?.content).toContain('/run/app.sock');
  });

  it('leaves out the searchEngine section, whose token variable it then never needs', () => {
    const withSearchEngine = parseSpec({ ...specInput, searchEngine: { url: 'https://search.example.com', apiToken: { fromEnv: 'UNSET_SEARCH_TOKEN' } } });
    expect(renderHostFiles(withSearchEngine, { vendor: 'acme', env })).toEqual(files);
  });
});

describe('editing an existing agent file', () => {
  const existing = [
    '# Agent configuration, maintained by ops',
    'global:',
    '  scrape_interval: 60s # slower than the default',
    'scrape_configs:',
    '  # node metrics',
    '  - job_name: node',
    '    static_configs:',
    '      - targets: [localhost:9100]',
    '  - job_name: blackbox-exporter',
    '    metrics_path: /old',
    '',
  ].join('\n');

  const jobs = renderScrapeJobs(spec, localExporterAddress(spec.host.listenAddress));

  it('keeps comments and other jobs, replaces the job of the same name in place, appends new ones', () => {
    const edited = syncScrapeJobs(existing, jobs)!;
    expect(edited).toContain('# Agent configuration, maintained by ops');
    expect(edited).toContain('scrape_interval: 60s # slower than the default');
    expect(edited).toContain('# node metrics');
    // Lines it does not edit are written as they were.
    expect(edited.startsWith(existing.slice(0, existing.indexOf('  - job_name: blackbox-exporter')))).toBe(true);
    const parsed = parse(edited);
    expect(parsed.scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['node', 'blackbox-exporter', 'private-api']);
    expect(parsed.scrape_configs[1]).toEqual(jobs[0]);
  });

  it('is idempotent', () => {
    const once = syncScrapeJobs(existing, jobs, { previousJobs: ['blackbox-exporter'] })!;
    expect(syncScrapeJobs(once, jobs, { previousJobs: ['blackbox-exporter', 'private-api'] })).toBe(once);
  });

  it('removes a job it wrote before that the spec no longer has; a job it never wrote stays', () => {
    const withBoth = syncScrapeJobs(existing, jobs)!;
    const edited = syncScrapeJobs(withBoth, [jobs[0]], { previousJobs: ['blackbox-exporter', 'private-api'] })!;
    expect(parse(edited).scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['node', 'blackbox-exporter']);
    expect(parse(syncScrapeJobs(edited, [], { previousJobs: ['blackbox-exporter'] })!).scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['node']);
  });

  it('taking all of its jobs out of a file it started leaves nothing, and out of a file it edited leaves the file as it was', () => {
    const started = syncScrapeJobs('', jobs)!;
    expect(syncScrapeJobs(started, [], { previousJobs: ['blackbox-exporter', 'private-api'] })).toBeUndefined();
    const handWritten = existing.replace(/ {2}- job_name: blackbox-exporter\n {4}metrics_path: \/old\n/, '');
    const edited = syncScrapeJobs(handWritten, jobs)!;
    expect(syncScrapeJobs(edited, [], { previousJobs: ['blackbox-exporter', 'private-api'] })).toBe(handWritten);
    const withoutJobs = 'global:\n  scrape_interval: 60s\n';
    expect(syncScrapeJobs(syncScrapeJobs(withoutJobs, jobs)!, [], { previousJobs: ['blackbox-exporter', 'private-api'] })).toBe(withoutJobs);
  });

  it("writes a list at its key's column where the file does", () => {
    const flush = 'scrape_configs:\n# node metrics\n- job_name: node\n  static_configs:\n  - targets: [localhost:9100]\n';
    const edited = syncScrapeJobs(flush, [{ job_name: 'blackbox-exporter' }])!;
    expect(edited).toBe(`${flush}- job_name: blackbox-exporter\n`);
  });

  it('starts a file from nothing', () => {
    expect(parse(syncScrapeJobs('', [{ job_name: 'a' }])!)).toEqual({ scrape_configs: [{ job_name: 'a' }] });
  });

  it('refuses a file it cannot edit safely, naming it', () => {
    const source = { source: '/etc/acme/agent-config.yaml' };
    expect(() => syncScrapeJobs('scrape_configs: 3\n', [], source)).toThrow('/etc/acme/agent-config.yaml: scrape_configs: is not a list; make it a list of jobs');
    expect(() => syncScrapeJobs('- a\n', [])).toThrow('agent config: the file is not a YAML mapping; scrape_configs must be a top-level key');
    expect(() => syncScrapeJobs('scrape_configs: [\n', [], source)).toThrow(/^\/etc\/acme\/agent-config.yaml: .*; fix the file's YAML first$/);
    expect(() => syncScrapeJobs('metrics: 3\n', [])).toThrow('agent config: metrics: is not a mapping; the agent keeps its jobs under metrics.configs[].scrape_configs');
    expect(() => syncScrapeJobs('metrics: {}\nscrape_configs: []\n', [])).toThrow('agent config: scrape_configs: and metrics both hold jobs; keep one of them');
  });
});

describe('an agent whose jobs sit under metrics.configs[].scrape_configs', () => {
  const agent = [
    'server:',
    '  log_level: info',
    'metrics:',
    '  wal_directory: /var/lib/agent/wal',
    '  configs:',
    "    - name: default # the host's own metrics",
    '      scrape_configs:',
    '        - job_name: node',
    '          static_configs:',
    '            - targets: [localhost:9100]',
    '    - name: apps',
    '      scrape_configs: []',
    '',
  ].join('\n');
  const jobs = renderScrapeJobs(spec, localExporterAddress(spec.host.listenAddress));
  const instances = (text: string) =>
    (parse(text).metrics.configs as Array<{ name: string; scrape_configs?: Array<{ job_name: string }> }>).map((instance) => [
      instance.name,
      (instance.scrape_configs ?? []).map((job) => job.job_name),
    ]);

  it('adds the jobs to the first instance, keeping everything else', () => {
    const edited = syncScrapeJobs(agent, jobs)!;
    expect(instances(edited)).toEqual([
      ['default', ['node', 'blackbox-exporter', 'private-api']],
      ['apps', []],
    ]);
    expect(edited).toContain("- name: default # the host's own metrics");
    expect(parse(edited).scrape_configs).toBeUndefined();
  });

  it('replaces and removes its jobs in the instance that holds them', () => {
    const moved = agent.replace('      scrape_configs: []', '      scrape_configs:\n        - job_name: private-api\n          metrics_path: /old');
    const edited = syncScrapeJobs(moved, [jobs[1]], { previousJobs: ['blackbox-exporter', 'private-api'] })!;
    expect(instances(edited)).toEqual([
      ['default', ['node']],
      ['apps', ['private-api']],
    ]);
    expect(syncScrapeJobs(edited, [], { previousJobs: ['private-api'] })).toBe(agent.replace('      scrape_configs: []\n', ''));
  });

  it('makes an instance of its own in an agent that has none, and takes it away with its jobs', () => {
    const none = 'metrics:\n  configs: []\n';
    const edited = syncScrapeJobs(none, jobs)!;
    expect(instances(edited)).toEqual([['probekit', ['blackbox-exporter', 'private-api']]]);
    expect(syncScrapeJobs(edited, [], { previousJobs: ['blackbox-exporter', 'private-api'] })).toBe(none);
  });
});

describe("the record of probekit's jobs, and uninstalling", () => {
  const paths = hostPaths('acme');
  const record = renderHostFiles(spec, { vendor: 'acme', env }).find((file) => file.path === paths.agentJobs)!.content;

  it('a later render removes from the agent file the jobs the record names and the spec no longer has', () => {
    const smaller = parseSpec({ ...specInput, jobs: [specInput.jobs[0]] });
    const first = renderHostFiles(spec, { vendor: 'acme', env }).find((file) => file.path === paths.agentConfig)!.content;
    const files = renderHostFiles(smaller, { vendor: 'acme', env, existingAgentConfig: first, existingAgentJobs: record });
    expect(parse(files.find((file) => file.path === paths.agentConfig)!.content!).scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['blackbox-exporter', 'probekit-exporter']);
  });

  it('uninstalling takes its jobs out and the record away', () => {
    const agent = renderHostFiles(spec, { vendor: 'acme', env, existingAgentConfig: 'global: {}\n' }).find((file) => file.path === paths.agentConfig)!.content;
    expect(removeHostJobs({ vendor: 'acme', existingAgentConfig: agent, existingAgentJobs: record })).toEqual([
      { path: paths.agentConfig, content: 'global: {}\n', mode: 0o644 },
      { path: paths.agentJobs, content: undefined, mode: 0o644 },
    ]);
  });

  it('refuses a record it cannot read, saying how to go on', () => {
    expect(() => renderHostFiles(spec, { env, existingAgentJobs: 'jobs: 3\n', agentJobsSource: 'host/etc/probekit/exporters/blackbox/agent-jobs.yaml' })).toThrow(
      'host/etc/probekit/exporters/blackbox/agent-jobs.yaml: jobs: is not a list of job names; remove the file (probekit then removes none of the jobs it wrote before) and install again',
    );
  });
});

describe('the unit', () => {
  const paths = hostPaths('acme');

  it('grants CAP_NET_RAW only when a module uses the icmp prober', () => {
    const withIcmp = parseSpec({ modules: { ping: { prober: 'icmp' } }, jobs: [{ module: 'ping', targets: ['127.0.0.1'] }] });
    const unitOf = (input: ReturnType<typeof parseSpec>) => renderHostFiles(input, { env }).find((file) => file.path.endsWith('.service'))!.content!;
    expect(unitOf(withIcmp)).toContain('\nAmbientCapabilities=CAP_NET_RAW\nCapabilityBoundingSet=CAP_NET_RAW\n');
    expect(unitOf(spec)).not.toContain('AmbientCapabilities');
    expect(unitOf(spec)).toContain('\nCapabilityBoundingSet=\n');
  });

  it('allows enough open files for thousands of targets, restarts on failure and reloads with SIGHUP', () => {
    const unit = exporterUnit(paths);
    expect(unit).toContain('\nLimitNOFILE=65536\n');
    expect(unit).toContain('\nRestart=on-failure\n');
    expect(unit).toContain('\nExecReload=/bin/kill -HUP $MAINPID\n');
    expect(unit).toContain('\nUser=probekit-exporter\n');
    expect(unit).toContain('\nProtectSystem=strict\n');
  });
});

describeWithBinaries(['/usr/bin/systemd-analyze', '/usr/bin/shellcheck'])('packaging checks', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-unit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const unitFile = (icmp: boolean) => {
    const path = join(dir, icmp ? 'with-icmp' : 'without-icmp', 'probekit-exporter.service');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, exporterUnit(hostPaths('acme'), { icmp }));
    return path;
  };

  it.each([true, false])('systemd-analyze verify accepts the unit (icmp: %s)', async (icmp) => {
    const path = unitFile(icmp);
    const complaints = async () => {
      const { stderr } = await run('systemd-analyze', ['verify', path]).catch((error) => error);
      return stderr.split('\n').filter((line: string) => line.includes('probekit-exporter.service'));
    };
    expect(await complaints()).toEqual([]);
    writeFileSync(path, readFileSync(path, 'utf8').replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes'));
    expect(await complaints()).toEqual([expect.stringContaining("Unknown key 'NoNewPrivilege'")]);
  });

  it.each([
    [true, 1.8],
    [false, 1.6],
  ])("systemd-analyze security rates the unit's exposure (icmp: %s) at %s, offline", async (icmp, exposure) => {
    const { stdout } = await run('systemd-analyze', ['security', '--offline=true', '--no-pager', unitFile(icmp)]).catch((error) => error);
    expect(/Overall exposure level for probekit-exporter\.service: ([\d.]+) OK/.exec(stdout)?.[1]).toBe(String(exposure));
  });

  it('shellcheck accepts install.sh and .ci/run', async () => {
    await expect(run('shellcheck', [join(root, 'exporter/packaging/install.sh'), join(root, '.ci/run')])).resolves.toBeDefined();
  });
});
