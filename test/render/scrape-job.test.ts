import { parseSpec } from '../../src/model';
import { LOCAL_EXPORTER_ADDRESS, renderExporterScrapeJob, renderScrapeJobs } from '../../src/render';
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

  it('uses the service name and namespace of the spec, or localhost on a single machine', () => {
    expect(renderScrapeJobs(spec)[0].relabel_configs[2].replacement).toBe('probe-exporter.observability.svc:9115');
    expect(renderScrapeJobs(spec, LOCAL_EXPORTER_ADDRESS)[0].relabel_configs[2].replacement).toBe('localhost:9115');
  });

  it("carries extra labels on the targets, and the job's module", () => {
    expect(renderScrapeJobs(spec)[0].static_configs).toEqual([{ targets: ['https://example.com', 'http://example.org:8080/health'], labels: { team: 'web', module: 'http_2xx' } }]);
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
