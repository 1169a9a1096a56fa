/**
 * The endpoints' monitoring end to end, with real parts: a spec whose targets are loopback servers (healthy, failing,
 * slow, TLS with certificates that expire in 5 and in 14 days) is synthesized; our exporter serves the synthesized
 * config; Debian's Prometheus runs the synthesized jobs and rule file, changed only in the exporter's address and,
 * for speed, the exporter job's interval (the spec itself sets 2s probe intervals and second-long `for`s, as a user
 * may). Through Prometheus's HTTP API: the right probe_success per target with `instance` = the target, and the
 * expected alerts firing and no others. The same again three ways:
 * - a Prometheus in agent mode scraping the same jobs and remote-writing to a second Prometheus, which evaluates the
 *   rules, as a platform's agent ships metrics;
 * - a Prometheus running the scrape config the Prometheus Operator generates for the synthesized Probe objects, with
 *   the PrometheusRule's groups as its rule file: `instance` is the target there too;
 * - every query of every dashboard panel, with its variables put in as Grafana would, returns data (Grafana itself
 *   cannot run here), and the dashboard's and the alerts' debug links open the exporter's debug output.
 * The exporter's config is then broken and reloaded, and the reload alert fires from its own metric.
 */
import { once } from 'node:events';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseSpec, type SpecInput, type Spec } from '../../src/model';
import {
  ALERTS,
  renderAlertRules,
  renderAlertRulesYaml,
  renderDashboard,
  renderExporterConfigYaml,
  renderExporterScrapeJob,
  renderProbes,
  renderScrapeJobs,
  type ScrapeConfig,
} from '../../src/render';
import { startExporter, type RunningExporter } from '../../exporter/loopback/reference-exporter';
import { makeTlsFixtures, OPENSSL, type TlsFixtures } from '../../exporter/loopback/tls-fixtures';
import { describeWithBinaries } from '../support/integration';
import { eventually, PROMETHEUS, startPrometheus, type PrometheusAlert, type RunningPrometheus } from '../support/prometheus';
import { operatorProbeScrapeConfig } from '../support/prometheus-operator';
import { interpolate, interpolateLink, labelValuesQuery, panelQueries, lookInto } from '../support/grafana';

const SLOW_MS = 700;

function answer(request: IncomingMessage, response: ServerResponse): void {
  if (request.url === '/fail') response.writeHead(500).end('failing on purpose\n');
  else if (request.url === '/slow') setTimeout(() => response.writeHead(200).end('slow\n'), SLOW_MS);
  else response.writeHead(200).end('ok\n');
}

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

describeWithBinaries([PROMETHEUS, OPENSSL])('the endpoints monitored end to end: probes, alerts, the agent path, Probe objects, the dashboard', () => {
  let dir: string;
  const servers: Server[] = [];
  const fixtures: TlsFixtures[] = [];
  let exporter: RunningExporter;
  let configFile: string;
  let spec: Spec;
  let server: RunningPrometheus;
  let agent: RunningPrometheus;
  let receiver: RunningPrometheus;
  let operator: RunningPrometheus;
  const targets = { healthy: '', failing: '', slow: '', tls: '', tlsFailing: '', tlsLater: '' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-endpoints-'));
    const plain = createHttpServer(answer);
    const soon = makeTlsFixtures({ serverDays: 5 });
    const later = makeTlsFixtures({ serverDays: 14 });
    fixtures.push(soon, later);
    const tlsSoon = createHttpsServer({ key: soon.serverKey, cert: soon.serverCert }, answer);
    // The second server's CA is another one; the module trusts both through one file.
    const tlsLater = createHttpsServer({ key: later.serverKey, cert: later.serverCert }, answer);
    servers.push(plain, tlsSoon, tlsLater);
    const [plainPort, soonPort, laterPort] = await Promise.all([listen(plain), listen(tlsSoon), listen(tlsLater)]);
    Object.assign(targets, {
      healthy: `http://127.0.0.1:${plainPort}/`,
      failing: `http://127.0.0.1:${plainPort}/fail`,
      slow: `http://127.0.0.1:${plainPort}/slow`,
      tls: `https://127.0.0.1:${soonPort}/`,
      tlsFailing: `https://127.0.0.1:${soonPort}/fail`,
      tlsLater: `https://127.0.0.1:${laterPort}/`,
    });
    const caFile = join(dir, 'cas.pem');
    writeFileSync(caFile, soon.ca + later.ca);

    const input = (externalUrl?: string): SpecInput => ({
      exporter: externalUrl === undefined ? {} : { externalUrl },
      modules: {
        web: { prober: 'http', timeout: '1500ms', http: { preferred_ip_protocol: 'ip4' } },
        tls: { prober: 'http', timeout: '1500ms', http: { preferred_ip_protocol: 'ip4', tls_config: { ca_file: caFile } } },
      },
      jobs: [
        {
          name: 'web',
          module: 'web',
          targets: [targets.healthy, targets.failing, targets.slow],
          scrapeInterval: '2s',
          scrapeTimeout: '2s',
          labels: { team: 'web' },
          alerts: { downFor: '4s', slowerThan: '300ms', slowFor: '4s' },
          slo: 99.9,
        },
        { name: 'tls', module: 'tls', targets: [targets.tls, targets.tlsFailing, targets.tlsLater], scrapeInterval: '2s', scrapeTimeout: '2s', alerts: { downFor: '4s' } },
      ],
      operator: { labels: { release: 'e2e' } },
    });

    // The exporter first, from the spec's config, so that its address is known; then the spec with the exporter as a
    // browser reaches it, which only the debug links read.
    const configYaml = renderExporterConfigYaml(parseSpec(input()));
    configFile = join(dir, 'blackbox.yml');
    writeFileSync(configFile, configYaml);
    exporter = await startExporter('ours', configYaml, { flags: [`--config.file=${configFile}`] });
    spec = parseSpec(input(exporter.baseUrl));
    const exporterAddress = exporter.baseUrl.replace('http://', '');

    const scrapeConfigs: ScrapeConfig[] = [...renderScrapeJobs(spec, exporterAddress), { ...renderExporterScrapeJob(exporterAddress), scrape_interval: '1s', scrape_timeout: '1s' }];
    const global = { scrape_interval: '2s', evaluation_interval: '1s' };
    const rulesFile = { 'rules.yaml': renderAlertRulesYaml(spec) };
    const probes = spec.jobs.flatMap((job) => renderProbes(job, spec.modules[job.module]!, exporterAddress, { namespace: spec.namespace, labels: {} }));
    [server, receiver, operator] = await Promise.all([
      startPrometheus({ global, rule_files: ['rules.yaml'], scrape_configs: scrapeConfigs }, { files: rulesFile }),
      startPrometheus({ global, rule_files: ['rules.yaml'] }, { files: rulesFile, flags: ['--web.enable-remote-write-receiver'] }),
      startPrometheus({ global, rule_files: ['rules.yaml'], scrape_configs: probes.map(operatorProbeScrapeConfig) }, { files: { 'rules.yaml': stringify({ groups: renderAlertRules(spec).groups }) } }),
    ]);
    agent = await startPrometheus(
      { global: { scrape_interval: '2s' }, scrape_configs: scrapeConfigs, remote_write: [{ url: receiver.remoteWriteUrl, queue_config: { batch_send_deadline: '1s' } }] },
      // The agent flushes what it holds on shutdown for up to a minute by default; the test needs no such wait.
      { flags: ['--enable-feature=agent', '--storage.remote.flush-deadline=1s'] },
    );
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    await Promise.all([server, receiver, operator].map((prometheus) => prometheus?.stop()));
    await exporter?.stop();
    servers.forEach((each) => each.close());
    fixtures.forEach((each) => each.cleanup());
    rmSync(dir, { recursive: true, force: true });
  });

  /** probe_success by target, once every target has been probed. */
  async function outcomes(prometheus: RunningPrometheus, selector = ''): Promise<Record<string, string>> {
    let result: Record<string, string> = {};
    await eventually(30, async () => {
      const samples = await prometheus.query(`probe_success${selector}`);
      result = Object.fromEntries(samples.map((sample) => [`${sample.metric.job} ${sample.metric.instance}`, sample.value[1]]));
      return samples.length === 6;
    });
    return result;
  }

  const expectedOutcomes = () => ({
    [`web ${targets.healthy}`]: '1',
    [`web ${targets.failing}`]: '0',
    [`web ${targets.slow}`]: '1',
    [`tls ${targets.tls}`]: '1',
    [`tls ${targets.tlsFailing}`]: '0',
    [`tls ${targets.tlsLater}`]: '1',
  });

  /** Firing alerts as `alertname target` lines, once `expected` all fire (or 40 seconds have passed). */
  async function firing(prometheus: RunningPrometheus, expected: readonly string[]): Promise<{ lines: string[]; alerts: PrometheusAlert[] }> {
    let alerts: PrometheusAlert[] = [];
    const lines = () => alerts.filter((alert) => alert.state === 'firing').map((alert) => `${alert.labels.alertname} ${alert.labels.instance}`);
    await eventually(40, async () => {
      alerts = await prometheus.alerts();
      return expected.every((line) => lines().includes(line));
    });
    return { lines: lines().sort(), alerts };
  }

  const expectedAlerts = () =>
    [
      `${ALERTS.endpointDown} ${targets.failing}`,
      `${ALERTS.endpointDown} ${targets.tlsFailing}`,
      `${ALERTS.httpStatus} ${targets.failing}`,
      `${ALERTS.httpStatus} ${targets.tlsFailing}`,
      `${ALERTS.slow} ${targets.slow}`,
      `${ALERTS.certificateExpiringCritical} ${targets.tls}`,
      `${ALERTS.certificateExpiringCritical} ${targets.tlsFailing}`,
      `${ALERTS.certificateExpiringSoon} ${targets.tlsLater}`,
      `${ALERTS.errorBudgetBurnFast} ${targets.failing}`,
      `${ALERTS.errorBudgetBurnSlow} ${targets.failing}`,
      `${ALERTS.uptimeBelowObjective} ${targets.failing}`,
    ].sort();

  it('Prometheus, with the synthesized jobs: the right probe_success per target, instance = the target', async () => {
    expect(await outcomes(server)).toEqual(expectedOutcomes());
    const [healthy] = await server.query(`probe_success{instance="${targets.healthy}"}`);
    expect(healthy.metric).toMatchObject({ job: 'web', team: 'web', module: 'web' });
  }, 40_000);

  it('the expected alerts fire, and no others, each with job, instance and a debug link that opens the debug output', async () => {
    const { lines, alerts } = await firing(server, expectedAlerts());
    expect(lines).toEqual(expectedAlerts());
    for (const alert of alerts.filter((candidate) => candidate.state === 'firing')) {
      expect(alert.labels).toEqual(expect.objectContaining({ job: expect.any(String), instance: expect.any(String) }));
      expect(alert.annotations.summary).toContain(alert.labels.instance);
    }
    const down = alerts.find((alert) => alert.labels.alertname === ALERTS.endpointDown && alert.labels.instance === targets.failing)!;
    expect(down.annotations.debug_url).toBe(`${exporter.baseUrl}/probe?debug=true&module=web&target=${encodeURIComponent(targets.failing)}`);
    const debug = await fetch(down.annotations.debug_url);
    expect(debug.status).toBe(200);
    const log = await debug.text();
    expect(log).toContain(targets.failing);
    expect(log).toMatch(/probe_success 0/);
  }, 60_000);

  it('agent mode: the agent scrapes and remote-writes, the receiving Prometheus has the same results and fires the same alerts', async () => {
    expect(await outcomes(receiver)).toEqual(expectedOutcomes());
    expect((await firing(receiver, expectedAlerts())).lines).toEqual(expectedAlerts());
  }, 60_000);

  it("Probe objects: with the scrape config the Operator generates for them, instance = the target and job = the spec's job", async () => {
    expect(await outcomes(operator)).toEqual(expectedOutcomes());
    const [failing] = await operator.query(`probe_success{instance="${targets.failing}"}`);
    expect(failing.metric).toMatchObject({ job: 'web', namespace: spec.namespace, module: 'web', team: 'web' });
    const expected = [`${ALERTS.endpointDown} ${targets.failing}`, `${ALERTS.endpointDown} ${targets.tlsFailing}`];
    expect((await firing(operator, expected)).lines).toEqual(expect.arrayContaining(expected));
  }, 60_000);

  it('every query of every dashboard panel returns data, with the variables as Grafana puts them in', async () => {
    await firing(server, expectedAlerts());
    const dashboard = lookInto(renderDashboard(spec));
    const now = Date.now() / 1000;
    const context = { selections: {}, rangeSeconds: 300, intervalSeconds: 15 };
    const empty: string[] = [];
    const queries = panelQueries(dashboard);
    expect(queries.length).toBeGreaterThanOrEqual(20);
    for (const query of queries) {
      const promql = interpolate(query.expr, dashboard, context);
      const result = query.instant ? await server.query(promql, now) : await server.queryRange(promql, now - context.rangeSeconds, now, context.intervalSeconds);
      if (result.length === 0) empty.push(`${query.panel} ${query.refId}: ${promql}`);
    }
    expect(empty).toEqual([]);

    for (const variable of dashboard.templating.list.filter((candidate) => candidate.type === 'query')) {
      const { match, label } = labelValuesQuery(interpolate(variable.query, dashboard, context));
      expect(await server.labelValues(label, match)).not.toEqual([]);
    }
  }, 60_000);

  it("choosing one target (a URL full of regex metacharacters) narrows every panel's query to exactly it", async () => {
    const dashboard = lookInto(renderDashboard(spec));
    const context = { selections: { instance: [targets.tlsFailing] }, rangeSeconds: 300, intervalSeconds: 15 };
    for (const query of panelQueries(dashboard).filter((candidate) => candidate.instant && !/^(sum|count|avg)\(/.test(candidate.expr))) {
      const samples = await server.query(interpolate(query.expr, dashboard, context));
      expect(new Set(samples.map((sample) => sample.metric.instance))).toEqual(new Set(samples.length === 0 ? [] : [targets.tlsFailing]));
    }
    const [success] = await server.query(interpolate(panelQueries(dashboard)[0].expr, dashboard, context));
    expect(success.value[1]).toBe('0');
  }, 30_000);

  it("the dashboard's debug links, filled in as Grafana fills them, open the exporter's debug output for the target", async () => {
    const dashboard = lookInto(renderDashboard(spec));
    const urls = dashboard.panels.flatMap((panel) => [
      ...(panel.fieldConfig?.defaults?.links ?? []).map((link: { url: string }) => link.url),
      ...(panel.fieldConfig?.overrides ?? []).flatMap((override: { properties: Array<{ id: string; value: Array<{ url: string }> }> }) =>
        override.properties.filter((property) => property.id === 'links').flatMap((property) => property.value.map((link) => link.url)),
      ),
    ]);
    expect(new Set(urls).size).toBe(2);
    for (const url of new Set(urls)) {
      const response = await fetch(interpolateLink(url, { instance: targets.tls, module: 'tls' }));
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain(targets.tls);
      expect(text).toMatch(/probe_success 1/);
    }
  });

  it("a config that fails to reload: the exporter keeps probing with the old one, and the reload alert fires from the exporter's own metric", async () => {
    writeFileSync(configFile, 'modules:\n  web:\n    prober: htttp\n');
    const reload = await fetch(`${exporter.baseUrl}/-/reload`, { method: 'POST' });
    expect(reload.status).toBe(500);
    const exporterInstance = exporter.baseUrl.replace('http://', '');
    const { lines, alerts } = await firing(server, [`${ALERTS.configReloadFailed} ${exporterInstance}`]);
    expect(lines).toContain(`${ALERTS.configReloadFailed} ${exporterInstance}`);
    const alert = alerts.find((candidate) => candidate.labels.alertname === ALERTS.configReloadFailed)!;
    expect(alert.labels).toMatchObject({ job: 'probekit-exporter', instance: exporterInstance });
    expect(alert.annotations.debug_url).toBe(`${exporter.baseUrl}/`);
    expect((await fetch(alert.annotations.debug_url)).status).toBe(200);
    expect((await exporter.probe({ module: 'web', target: targets.healthy })).text).toMatch(/probe_success 1/);
  }, 60_000);
});
