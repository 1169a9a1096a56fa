import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { parseSpec } from '../../src/model';
import { addScrapeJobs, renderExporterScrapeJob, renderHostFiles, renderScrapeJobs, LOCAL_EXPORTER_ADDRESS } from '../../src/render';
import { describeWithBinaries } from '../support/integration';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

const spec = parseSpec({
  modules: {
    http_2xx: { preset: 'http_2xx' },
    with_token: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'HOST_TOKEN' } },
  },
  jobs: [
    { name: 'blackbox-exporter', module: 'http_2xx', targets: ['https://example.com'] },
    { name: 'private-api', module: 'with_token', targets: ['https://api.example.com'] },
  ],
});
const env = { HOST_TOKEN: 'host-secret-91c2' };

describe('single-machine files', () => {
  const files = renderHostFiles(spec, { vendor: 'acme', env });
  const byPath = Object.fromEntries(files.map((file) => [file.path, file]));

  it("puts each file where the agent's vendor layout has it", () => {
    expect(files.map((file) => file.path)).toEqual([
      '/etc/acme/exporters/blackbox/config.yaml',
      '/etc/acme/exporters/blackbox/secrets/with_token.authentication',
      '/etc/acme/agent-config.yaml',
      '/etc/systemd/system/probekit-exporter.service',
      '/etc/acme/dashboards/probekit-endpoints.json',
      '/etc/acme/rules/probekit.rules.yaml',
    ]);
  });

  it('the unit runs the installed bundle on the config file, listening on 9115', () => {
    expect(byPath['/etc/systemd/system/probekit-exporter.service'].content).toContain(
      '\nExecStart=/usr/bin/node /opt/probekit/exporter/probekit-exporter.js --config.file=/etc/acme/exporters/blackbox/config.yaml --web.listen-address=:9115\n',
    );
  });

  it("the agent file has the jobs under scrape_configs, scraping localhost:9115, and the exporter's own job", () => {
    const agent = parse(byPath['/etc/acme/agent-config.yaml'].content);
    expect(agent.scrape_configs).toEqual([...renderScrapeJobs(spec, LOCAL_EXPORTER_ADDRESS), renderExporterScrapeJob(LOCAL_EXPORTER_ADDRESS)]);
    expect(agent.scrape_configs[0].relabel_configs[2]).toEqual({ target_label: '__address__', replacement: 'localhost:9115' });
  });

  it('the secret header value is in its own owner-only file, not in the config', () => {
    expect(byPath['/etc/acme/exporters/blackbox/secrets/with_token.authentication']).toEqual({
      path: '/etc/acme/exporters/blackbox/secrets/with_token.authentication',
      content: 'Bearer host-secret-91c2',
      mode: 0o600,
    });
    expect(byPath['/etc/acme/exporters/blackbox/config.yaml'].content).not.toContain('host-secret-91c2');
    expect(parse(byPath['/etc/acme/exporters/blackbox/config.yaml'].content).modules.with_token.http.http_headers).toEqual({
      Authentication: { files: ['/etc/acme/exporters/blackbox/secrets/with_token.authentication'] },
    });
  });

  it('refuses existingSecret, which a machine does not have, and unset variables', () => {
    const k8sOnly = parseSpec({
      modules: { m: { preset: 'http_2xx_with_header', accessToken: { existingSecret: { name: 's', key: 'k' } } } },
      jobs: [{ module: 'm', targets: ['https://example.com'] }],
    });
    expect(() => renderHostFiles(k8sOnly)).toThrow(
      'modules.m.http.headers.Authentication: existingSecret names a Kubernetes Secret, which a single machine does not have; use { fromEnv: VAR } for the host form',
    );
    expect(() => renderHostFiles(spec)).toThrow('modules.with_token.http.headers.Authentication.fromEnv: environment variable HOST_TOKEN is not set; export it before rendering the host files');
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

  it('keeps comments and other jobs, replaces the job of the same name in place, appends new ones', () => {
    const jobs = renderScrapeJobs(spec, LOCAL_EXPORTER_ADDRESS);
    const edited = addScrapeJobs(existing, jobs);
    expect(edited).toContain('# Agent configuration, maintained by ops');
    expect(edited).toContain('scrape_interval: 60s # slower than the default');
    expect(edited).toContain('# node metrics');
    const parsed = parse(edited);
    expect(parsed.scrape_configs.map((job: { job_name: string }) => job.job_name)).toEqual(['node', 'blackbox-exporter', 'private-api']);
    expect(parsed.scrape_configs[1]).toEqual(jobs[0]);
  });

  it('is idempotent', () => {
    const jobs = renderScrapeJobs(spec, LOCAL_EXPORTER_ADDRESS);
    const once = addScrapeJobs(existing, jobs);
    expect(addScrapeJobs(once, jobs)).toBe(once);
  });

  it('starts a file from nothing', () => {
    expect(parse(addScrapeJobs('', [{ job_name: 'a' }]))).toEqual({ scrape_configs: [{ job_name: 'a' }] });
  });

  it('refuses a file it cannot edit safely', () => {
    expect(() => addScrapeJobs('scrape_configs: 3\n', [])).toThrow('agent config: scrape_configs: is not a list; make it a list of jobs');
    expect(() => addScrapeJobs('- a\n', [])).toThrow('agent config: the file is not a YAML mapping; scrape_configs must be a top-level key');
  });
});

describeWithBinaries(['/usr/bin/systemd-analyze', '/usr/bin/shellcheck'])('packaging checks', () => {
  it('systemd-analyze verify accepts the unit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-unit-'));
    try {
      const unit = renderHostFiles(parseSpec({ modules: { m: { preset: 'http_2xx' } }, jobs: [{ module: 'm', targets: ['https://example.com'] }] })).find((file) => file.path.endsWith('.service'))!;
      const path = join(dir, 'probekit-exporter.service');
      writeFileSync(path, unit.content);
      const complaints = async () => {
        const { stderr } = await run('systemd-analyze', ['verify', path]).catch((error) => error);
        return stderr.split('\n').filter((line: string) => line.includes('probekit-exporter.service'));
      };
      expect(await complaints()).toEqual([]);
      writeFileSync(path, unit.content.replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes'));
      expect(await complaints()).toEqual([expect.stringContaining("Unknown key 'NoNewPrivilege'")]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shellcheck accepts install.sh and .ci/run', async () => {
    await expect(run('shellcheck', [join(root, 'exporter/packaging/install.sh'), join(root, '.ci/run')])).resolves.toBeDefined();
  });
});
