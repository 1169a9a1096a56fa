import { parseSpec } from '../../src/model';
import { localExporterAddress, renderExporterScrapeJob, renderScrapeJobs, targetGroups } from '../../src/render';
import { fullEnv, fullSpec } from '../fixtures/specs';

const spec = parseSpec(fullSpec, { env: fullEnv });

describe('scrape jobs: the documented job and its three relabel rules', () => {
  const [job] = renderScrapeJobs(parseSpec({ modules: { http_2xx: { preset: 'http_2xx' } }, jobs: [{ module: 'http_2xx', targets: ['https://example.com'] }] }));

  it('has the documented fields and values', () => {
    expect(job).toEqual({
      job_name: 'blackbox-exporter',
      scrape_interval: '30s',
      scrape_timeout: '30s',
      metrics_path: '/probe',
      params: { module: ['http_2xx'] },
      static_configs: [{ targets: ['https://example.com'], labels: { module: 'http_2xx' } }],
      relabel_configs: expect.any(Array),
    });
  });

  it('has exactly the three relabel rules, in order, scraping the exporter Service on 9115', () => {
    expect(job.relabel_configs).toEqual([
      { source_labels: ['__address__'], target_label: '__param_target' },
      { source_labels: ['__param_target'], target_label: 'instance' },
      { target_label: '__address__', replacement: 'blackbox-exporter.monitoring.svc:9115' },
    ]);
  });

  it('uses the service name and namespace of the spec, or the listen address on a single machine', () => {
    expect(renderScrapeJobs(spec)[0].relabel_configs[2].replacement).toBe('probe-exporter.observability.svc:9115');
    expect(renderScrapeJobs(spec, localExporterAddress(spec.host.listenAddress))[0].relabel_configs[2].replacement).toBe('127.0.0.1:9115');
  });

  it.each([
    ['127.0.0.1:9115', '127.0.0.1:9115'],
    ['192.0.2.10:9200', '192.0.2.10:9200'],
    ['[::1]:9115', '[::1]:9115'],
    ['localhost:9115', 'localhost:9115'],
    [':9115', '127.0.0.1:9115'],
    ['0.0.0.0:9300', '127.0.0.1:9300'],
    ['[::]:9115', '[::1]:9115'],
  ])('an agent beside an exporter listening on %s reaches it at %s', (listen, reached) => {
    expect(localExporterAddress(listen)).toBe(reached);
  });

  it("carries extra labels on the targets, and the job's module", () => {
    expect(renderScrapeJobs(spec)[0].static_configs).toEqual([{ targets: ['https://example.com', 'http://example.org:8080/health'], labels: { team: 'web', module: 'http_2xx' } }]);
  });
});

describe('target groups', () => {
  it("are the job's targets with its labels and module, as every scrape job writes them", () => {
    expect(targetGroups(spec.jobs[0])).toEqual([{ targets: ['https://example.com', 'http://example.org:8080/health'], labels: { team: 'web', module: 'http_2xx' } }]);
    expect(renderScrapeJobs(spec)[0].static_configs).toEqual(targetGroups(spec.jobs[0]));
  });
});

describe('targets with labels, module fields and intervals of their own', () => {
  const perTarget = parseSpec({
    modules: { http_2xx: { preset: 'http_2xx' } },
    jobs: [
      {
        name: 'web',
        module: 'http_2xx',
        labels: { team: 'web' },
        // Two intervals of the slowest target.
        alerts: { downFor: '10m' },
        targets: [
          'https://a.example.com',
          { target: 'https://b.example.com', labels: { team: 'payments' } },
          { target: 'https://c.example.com', module: { http: { valid_status_codes: [401] } } },
          { target: 'https://d.example.com', module: { http: { valid_status_codes: [401] } } },
          { target: 'https://e.example.com', scrapeInterval: '5m' },
        ],
      },
    ],
  });
  const [main, slow] = renderScrapeJobs(perTarget);
  const api = perTarget.jobs[0].targets[2].module;

  it("groups targets by module and labels; several modules go as each group's __param_module, without params, which would outrank it", () => {
    expect(api).toMatch(/^http_2xx\.valid_status_codes\.[0-9a-f]{6}$/);
    expect(main.params).toBeUndefined();
    expect(main.static_configs).toEqual([
      { targets: ['https://a.example.com'], labels: { team: 'web', module: 'http_2xx', __param_module: 'http_2xx' } },
      { targets: ['https://b.example.com'], labels: { team: 'payments', module: 'http_2xx', __param_module: 'http_2xx' } },
      { targets: ['https://c.example.com', 'https://d.example.com'], labels: { team: 'web', module: api, __param_module: api } },
    ]);
  });

  it('puts a target of another interval in a job of its own that keeps the job label, and every job has the three rules alone', () => {
    expect(slow).toEqual({
      job_name: 'web@5m',
      scrape_interval: '5m',
      scrape_timeout: '30s',
      metrics_path: '/probe',
      params: { module: ['http_2xx'] },
      static_configs: [{ targets: ['https://e.example.com'], labels: { team: 'web', job: 'web', module: 'http_2xx' } }],
      relabel_configs: main.relabel_configs,
    });
    expect(main.relabel_configs).toEqual(renderScrapeJobs(spec)[0].relabel_configs.map((rule, index) => (index === 2 ? { ...rule, replacement: 'blackbox-exporter.monitoring.svc:9115' } : rule)));
    expect(main.relabel_configs).toHaveLength(3);
  });
});

describe("the exporter's own job", () => {
  it('scrapes /metrics at the given address, without the probe rules', () => {
    expect(renderExporterScrapeJob('localhost:9115')).toEqual({
      job_name: 'probekit-exporter',
      scrape_interval: '30s',
      scrape_timeout: '30s',
      metrics_path: '/metrics',
      static_configs: [{ targets: ['localhost:9115'] }],
    });
  });
});
