/**
 * Three locations end to end, with real parts: one exporter per location (ours, the built bundle), three Prometheus
 * servers in agent mode scraping them through each location's rendered jobs and remote-writing to a central
 * Prometheus that loads probekit's rules, and Debian's Alertmanager loaded with probekit's file, posting to a webhook
 * receiver here. Location ap's network is broken on purpose: its exporter sends every HTTP probe through a proxy at a
 * port nothing listens on, so each of its probes fails (probe_success 0). What a three-location deployment pages on:
 * a target down from every location is delivered once, to the pager; a target failing from ap alone reaches the
 * warnings' receiver, never the pager; a job inside its maintenance window fires in Prometheus and is delivered to
 * no one. Every interval comes from the spec (1 s scrapes and evaluations, downFor 3s, group_wait 1s).
 *
 * @ci-seconds 60
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { parseSpec, type SpecInput } from '../../src/model';
import { ALERTS, renderAlertmanagerConfigYaml, renderAlertRulesYaml, renderExporterConfig, renderScrapeJobs } from '../../src/render';
import { describeWithBinaries } from '../support/integration';
import { ALERTMANAGER, startAlertmanager, startWebhookReceiver, type RunningAlertmanager, type WebhookReceiver } from '../support/alertmanager';
import { eventually, PROMETHEUS, startPrometheus, type PrometheusAlert, type RunningPrometheus } from '../support/prometheus';
import { freePort, startExporter, type RunningExporter } from '../../exporter/loopback/reference-exporter';

const LOCATIONS = ['eu', 'us', 'ap'] as const;
const BROKEN = 'ap';
const BUNDLE = join(__dirname, '..', '..', 'exporter', 'dist', 'probekit-exporter.js');
const EVERY_DAY = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

describeWithBinaries([PROMETHEUS, ALERTMANAGER])('three locations: quorum pages, per-location warnings, maintenance windows', () => {
  let target: Server;
  let base: string;
  let webhook: WebhookReceiver;
  let alertmanager: RunningAlertmanager;
  let central: RunningPrometheus;
  const exporters: RunningExporter[] = [];
  const agents: RunningPrometheus[] = [];

  beforeAll(async () => {
    target = createServer((request, response) => response.writeHead(request.url === '/up' ? 200 : 503).end());
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    base = `http://127.0.0.1:${(target.address() as { port: number }).port}`;
    webhook = await startWebhookReceiver();

    const input = (location?: string): SpecInput => ({
      ...(location === undefined ? {} : { location }),
      locations: [...LOCATIONS],
      modules: { http_2xx: { prober: 'http', timeout: '900ms' } },
      jobs: [
        { name: 'web', module: 'http_2xx', targets: [`${base}/up`, `${base}/down`], scrapeInterval: '1s', scrapeTimeout: '1s' },
        { name: 'batch', module: 'http_2xx', targets: [`${base}/maintenance`], scrapeInterval: '1s', scrapeTimeout: '1s' },
      ],
      alerts: {
        thresholds: { downFor: '3s' },
        evaluationInterval: '1s',
        groupWait: '1s',
        groupInterval: '1s',
        repeatInterval: '1h',
        receivers: [
          { name: 'pager', webhookUrl: webhook.url('/pager') },
          { name: 'default', webhookUrl: webhook.url('/warnings') },
        ],
      },
      // Always on: every day, the whole day.
      maintenance: [{ name: 'batch-always', jobs: ['batch'], weekly: { days: [...EVERY_DAY], from: '00:00', to: '24:00' } }],
    });
    const centralSpec = parseSpec(input());

    alertmanager = await startAlertmanager(renderAlertmanagerConfigYaml(centralSpec));
    central = await startPrometheus(
      {
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: ['rules.yaml'],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [alertmanager.address] }] }] },
      },
      { flags: ['--web.enable-remote-write-receiver'], files: { 'rules.yaml': renderAlertRulesYaml(centralSpec) } },
    );

    const deadPort = await freePort();
    for (const location of LOCATIONS) {
      const spec = parseSpec(input(location));
      const { config: rendered } = renderExporterConfig(spec);
      const module = rendered.modules.http_2xx;
      const config = location === BROKEN ? { ...rendered, modules: { ...rendered.modules, http_2xx: { ...module, http: { ...module.http, proxy_url: `http://127.0.0.1:${deadPort}` } } } } : rendered;
      const exporter = await startExporter('ours', stringify(config), { command: [process.execPath, BUNDLE] });
      exporters.push(exporter);
      const address = new URL(exporter.baseUrl).host;
      agents.push(
        await startPrometheus(
          { global: { scrape_interval: '1s' }, scrape_configs: renderScrapeJobs(spec, address), remote_write: [{ url: central.remoteWriteUrl, queue_config: { batch_send_deadline: '1s' } }] },
          { flags: ['--enable-feature=agent'] },
        ),
      );
    }
  }, 90_000);

  afterAll(async () => {
    await Promise.all([...agents, ...exporters].map((part) => part.stop()));
    await central?.stop();
    await alertmanager?.stop();
    await webhook?.stop();
    target?.close();
  });

  const firing = (alerts: readonly PrometheusAlert[], name: string, labels: Record<string, string>): PrometheusAlert[] =>
    alerts.filter((alert) => alert.state === 'firing' && alert.labels.alertname === name && Object.entries(labels).every(([key, value]) => alert.labels[key] === value));
  const delivered = (path: string, name: string, instance: string) =>
    webhook.received.filter((entry) => entry.path === path && entry.message.alerts.some((alert) => alert.status === 'firing' && alert.labels.alertname === name && alert.labels.instance === instance));

  it('pages once for the target down everywhere, warns of the one only ap fails, and delivers nothing of the job in its window', async () => {
    const [up, down, maintenance] = [`${base}/up`, `${base}/down`, `${base}/maintenance`];
    // Every location's series reach the central Prometheus, with their location label.
    const located = await eventually(60, async () => (await central.labelValues('location', 'probe_success')).length === LOCATIONS.length);
    expect(located).toBe(true);

    const settled = await eventually(90, async () => {
      const alerts = await central.alerts();
      return (
        firing(alerts, ALERTS.endpointDown, { instance: maintenance }).length === 1 &&
        delivered('/pager', ALERTS.endpointDown, down).length > 0 &&
        delivered('/warnings', ALERTS.downFromLocation, up).length > 0
      );
    });
    const alerts = await central.alerts();
    // On failure, what had fired and what had been delivered, to tell a slow machine from a wrong route.
    expect({ settled, firing: alerts.filter((alert) => alert.state === 'firing').map((alert) => alert.labels), delivered: webhook.received }).toMatchObject({ settled: true });
    // A few of Alertmanager's group intervals more, in which a second page or a muted one would be sent.
    await new Promise((done) => setTimeout(done, 5000));
    const final = await central.alerts();

    // In Prometheus: one EndpointDown for each target down from every location, none for the target only ap fails.
    expect(firing(final, ALERTS.endpointDown, { instance: down })).toHaveLength(1);
    expect(firing(final, ALERTS.endpointDown, { instance: down })[0].labels).toEqual(expect.not.objectContaining({ location: expect.anything() }));
    expect(firing(final, ALERTS.endpointDown, { instance: up })).toEqual([]);
    expect(firing(final, ALERTS.downFromLocation, { instance: up }).map((alert) => alert.labels.location)).toEqual([BROKEN]);
    expect(firing(final, ALERTS.endpointDown, { instance: maintenance })).toHaveLength(1);
    expect(firing(final, ALERTS.locationSilent, {})).toEqual([]);

    // Delivered: the page once, to the pager; ap's failure as a warning only; the window's job to no one.
    expect(delivered('/pager', ALERTS.endpointDown, down)).toHaveLength(1);
    expect(webhook.received.filter((entry) => entry.path === '/pager').flatMap((entry) => entry.message.alerts.map((alert) => alert.labels.instance))).toEqual([down]);
    expect(delivered('/warnings', ALERTS.downFromLocation, up).flatMap((entry) => entry.message.alerts.map((alert) => alert.labels.location))).toContain(BROKEN);
    expect(webhook.received.filter((entry) => entry.message.alerts.some((alert) => alert.labels.job === 'batch'))).toEqual([]);

    const report = process.env.PROBEKIT_ALERTING_REPORT;
    if (report) {
      const summary = {
        firingInPrometheus: final.filter((alert) => alert.state === 'firing').map((alert) => ({ ...alert.labels })),
        delivered: webhook.received.map((entry) => ({ path: entry.path, status: entry.message.status, alerts: entry.message.alerts.map((alert) => ({ status: alert.status, ...alert.labels })) })),
      };
      writeFileSync(report, JSON.stringify(summary, null, 2));
    }
  }, 200_000);
});
