/** The rendered scrape jobs, as Prometheus's own checker sees them, in every form and chart format that carries them. */
import { parse } from 'yaml';
import { parseSpec } from '../../src/model';
import { localExporterAddress, renderScrapeJobs } from '../../src/render';
import { genericChartValues } from '../../src/render/agent-charts/generic';
import { prometheusChartValues } from '../../src/render/agent-charts/prometheus';
import { victoriaMetricsAgentChartValues } from '../../src/render/agent-charts/victoria-metrics-agent';
import { GUARDED, scrapeConfigs, spec } from '../fixtures/agent-charts';
import { renderedByTpl } from '../support/helm';
import { describeWithBinaries } from '../support/integration';
import { PROMTOOL, promtoolCheck } from '../support/promtool';

describeWithBinaries([PROMTOOL])('promtool check config', () => {
  it('accepts every rendered job, cluster and single-machine forms', async () => {
    for (const jobs of [renderScrapeJobs(spec), renderScrapeJobs(spec, localExporterAddress(spec.host.listenAddress)), renderScrapeJobs(spec, localExporterAddress('[::]:9200'))]) {
      const result = await promtoolCheck(jobs);
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    }
  });

  it('accepts the jobs as each Prometheus-format chart carries them, with the exporter behind https, a client certificate and a password', async () => {
    const file = 'probekit.agent-values.yaml';
    const agent = { chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false } as const;
    const generic = genericChartValues(agent, scrapeConfigs(GUARDED), GUARDED, 'observability', file).values.agent;
    const prometheus = prometheusChartValues(scrapeConfigs(GUARDED), GUARDED, 'observability', file).values.extraScrapeConfigs;
    const victoriaMetrics = victoriaMetricsAgentChartValues(scrapeConfigs(GUARDED), GUARDED, 'observability', file).values.extraScrapeConfigs;
    for (const jobs of ['extraScrapeConfigs' in generic ? generic.extraScrapeConfigs : [], parse(renderedByTpl(prometheus)) as unknown[], victoriaMetrics]) {
      expect(jobs).toHaveLength(spec.jobs.length + 1);
      const result = await promtoolCheck(jobs);
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    }
  });

  // Debian builds its Prometheus 2.42 without Kubernetes service discovery: its promtool refuses any
  // kubernetes_sd_configs ("field kubernetes_sd_configs not found"), so only the per-target jobs beside the
  // discovery jobs go through it; the discovery jobs' relabelling is checked by test/render/discovery.test.ts.
  it('accepts the per-target jobs rendered beside discovery jobs (Ingresses and Services, an http and a tcp module)', async () => {
    const discovering = parseSpec({
      modules: { http_2xx: { preset: 'http_2xx' }, tcp: { prober: 'tcp' } },
      jobs: [
        {
          name: 'web',
          module: 'http_2xx',
          labels: { team: 'web' },
          alerts: { downFor: '10m' },
          targets: ['https://example.com', { target: 'https://pay.example.com', module: { http: { valid_status_codes: [401] } }, scrapeInterval: '5m' }],
          discover: {
            ingresses: { selector: { matchLabels: { 'probekit.io/probe': 'true' } }, namespaces: ['shop', 'pay'] },
            services: { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] }, port: 'http' },
          },
        },
        { name: 'databases', module: 'tcp', discover: { services: { selector: { matchLabels: { app: 'postgres' } }, port: 5432 } } },
      ],
    });
    const jobs = renderScrapeJobs(discovering);
    expect(jobs.map((job) => job.job_name)).toEqual(['web', 'web@5m', 'web@ingresses', 'web@services', 'databases@services']);
    const result = await promtoolCheck(jobs.filter((job) => !('kubernetes_sd_configs' in job)));
    expect(result.output).toContain('SUCCESS');
    expect(result.ok).toBe(true);
  });

  it('would refuse a job whose timeout exceeds its interval, or a file the agent does not have (the check is real)', async () => {
    const [job] = renderScrapeJobs(spec);
    const result = await promtoolCheck([{ ...job, scrape_timeout: '5m' }]);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/scrape timeout greater than scrape interval/);
    const [guarded] = scrapeConfigs(GUARDED);
    const missing = await promtoolCheck([{ ...guarded, tls_config: { ...guarded.tls_config, cert_file: '/nowhere/tls.crt' } }]);
    expect(missing.ok).toBe(false);
    expect(missing.output).toMatch(/nowhere\/tls\.crt/);
  });
});
