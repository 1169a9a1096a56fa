import { parse } from 'yaml';
import { parseSpec } from '../../src/model';
import { CLUSTER_EXISTING_SECRETS_DIR, CLUSTER_SECRETS_DIR, LOCAL_EXPORTER_ADDRESS, renderAgentValues, renderExporterConfig, renderExporterConfigYaml, renderScrapeJobs } from '../../src/render';
import { configSchema } from '@probekit/exporter';
import { fullEnv, fullSpec, SECRET_VALUES, SEED_HTTP_SETTINGS } from '../fixtures/specs';

const spec = parseSpec(fullSpec, { env: fullEnv });

describe('scrape jobs (seed 2.1 and 2.2)', () => {
  const [job] = renderScrapeJobs(parseSpec({ modules: { http_2xx: { preset: 'http_2xx' } }, jobs: [{ module: 'http_2xx', targets: ['https://example.com'] }] }));

  it('has the documented fields and values', () => {
    expect(job).toEqual({
      job_name: 'blackbox-exporter',
      scrape_interval: '30s',
      scrape_timeout: '30s',
      metrics_path: '/probe',
      params: { module: ['http_2xx'] },
      static_configs: [{ targets: ['https://example.com'] }],
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

  it('carries extra labels on the targets', () => {
    expect(renderScrapeJobs(spec)[0].static_configs).toEqual([{ targets: ['https://example.com', 'http://example.org:8080/health'], labels: { team: 'web' } }]);
  });
});

describe('agent values (seed 2.4)', () => {
  it('puts the jobs under <chartKey>.extraScrapeConfigs and enables the exporter section', () => {
    const values = renderAgentValues(spec);
    expect(Object.keys(values)).toEqual(['k8s-monitoring', 'prometheus-blackbox-exporter']);
    expect(values['k8s-monitoring'].extraScrapeConfigs).toEqual(renderScrapeJobs(spec));
    expect(values['prometheus-blackbox-exporter']).toEqual({ enabled: true });
  });

  it('leaves the exporter section out when told to', () => {
    const values = renderAgentValues(parseSpec({ ...fullSpec, agent: { enableExporter: false } }, { env: fullEnv }));
    expect(Object.keys(values)).toEqual(['agent']);
  });
});

describe('exporter config (seed 2.3)', () => {
  it('is a config the exporter schema accepts', () => {
    expect(configSchema.safeParse(parse(renderExporterConfigYaml(spec))).success).toBe(true);
  });

  it('renders the documented module as the seed writes it', () => {
    expect(parse(renderExporterConfigYaml(spec)).modules.http_2xx).toEqual({
      prober: 'http',
      timeout: '5s',
      http: { ...SEED_HTTP_SETTINGS, method: 'GET' },
    });
  });

  it('moves secret headers to files and keeps plain ones', () => {
    const { config, secretFiles } = renderExporterConfig(spec);
    expect(config.modules.http_2xx_with_header.http).toMatchObject({
      headers: { 'Accept-Language': 'fr-CH' },
      http_headers: { Authentication: { files: [`${CLUSTER_SECRETS_DIR}/http_2xx_with_header.authentication`] } },
    });
    expect(config.modules.partner_api.http).toMatchObject({
      headers: { 'X-Client': 'probekit' },
      http_headers: { 'X-Api-Key': { files: [`${CLUSTER_EXISTING_SECRETS_DIR}/partner-credentials/api-key`] } },
    });
    expect(secretFiles.map((file) => [file.module, file.header, file.fileName])).toEqual([
      ['http_2xx_with_header', 'Authentication', 'http_2xx_with_header.authentication'],
      ['partner_api', 'X-Api-Key', 'partner_api.x-api-key'],
    ]);
  });

  it('holds no secret value', () => {
    const text = renderExporterConfigYaml(spec);
    for (const value of Object.values(SECRET_VALUES)) expect(text).not.toContain(value);
    expect(text).not.toContain('fromEnv');
  });
});
