/**
 * The Alloy chart's values. No Alloy binary runs here, so the configuration is read by a parser of Alloy's
 * documented syntax and checked against the documented arguments of each component it uses
 * (test/support/alloy-syntax.ts, alloy-components.ts). That it scrapes what the Prometheus job scrapes is shown
 * against Debian's Prometheus: Prometheus runs the job, and its /api/v1/targets (each target's labels and scrape
 * URL) is compared with what the Alloy configuration's relabelling and scrape settings give, worked out by the
 * rules Alloy takes from Prometheus (test/support/alloy-targets.ts).
 */
import { freePort } from '../../../exporter/loopback/reference-exporter';
import { alloyChartValues, alloyString, goDuration, renderAlloyConfig } from '../../../src/render/agent-charts/alloy';
import type { ScrapeConfig } from '../../../src/render';
import { GUARDED, scrapeConfigs } from '../../fixtures/agent-charts';
import { mountedFiles, probekitFilesNamed, validateAgentPod } from '../../support/agent-pod';
import { alloyComponents, alloyConfigProblems, attributeOf, blocksOf } from '../../support/alloy-components';
import { AlloyReference, AlloySyntaxError, parseAlloy } from '../../support/alloy-syntax';
import { alloyScrapedTargets } from '../../support/alloy-targets';
import { contractProblems } from '../../support/chart-contracts';
import { ALLOY_CHART_CONTRACT } from '../../support/chart-contracts/alloy';
import { renderedByTpl } from '../../support/helm';
import { describeWithBinaries } from '../../support/integration';
import { eventually, PROMETHEUS, startPrometheus } from '../../support/prometheus';

const FILE = 'probekit.agent-values.yaml';
const OWN = { name: 'probekit', url: 'https://mimir.example.com/api/v1/push', basicAuth: { username: 'tenant-1', passwordSecret: { name: 'mimir-write', key: 'password' } } };
const THEIRS = { name: 'default' };

/** Problems without their line numbers, which say where but not what. */
function problemsOf(statements: Parameters<typeof alloyConfigProblems>[0], provided?: readonly string[]): string[] {
  return alloyConfigProblems(statements, provided).map((problem) => problem.replace(/ \(line \d+\)/, ''));
}

/** The configuration as Alloy reads it: the values' text after the chart's tpl, parsed. */
function configOf(content: string) {
  return parseAlloy(renderedByTpl(content));
}

/** A job with what escaping must survive: quotes, a backslash, a newline, a tab, non-ASCII, a {{ for tpl. */
function oddJob(): ScrapeConfig {
  const [job] = scrapeConfigs();
  return {
    ...job,
    job_name: 'Web sites (EU) 2',
    scrape_interval: '1d',
    scrape_timeout: '1m30s',
    static_configs: [{ targets: ['https://example.com/search?q="a b"&lang=fr-CH&x=ü&t={{ .Release.Name }}'], labels: { note: 'back\\slash "quoted"\nline\ttab', module: job.params!.module[0] } }],
  };
}

describe('values for grafana/alloy', () => {
  it("keep the chart's contract, as an Alloy release of its own: one Deployment replica, the configuration probekit's alone", () => {
    const { values, notes } = alloyChartValues(scrapeConfigs(), OWN, {}, 'observability', FILE);
    expect(contractProblems(ALLOY_CHART_CONTRACT, values)).toEqual([]);
    expect(values.controller).toMatchObject({ type: 'deployment', replicas: 1 });
    expect(notes).toContain('Install: helm upgrade --install probekit-alloy grafana/alloy -n observability -f probekit.agent-values.yaml');
    expect(alloyConfigProblems(configOf(values.alloy.configMap.content))).toEqual([]);
  });

  it('has per job a discovery.relabel with its targets and three rules, and a prometheus.scrape of its output forwarding to the named remote_write', () => {
    const components = alloyComponents(parseAlloy(renderAlloyConfig(scrapeConfigs(), OWN)));
    const relabel = components.get('discovery.relabel.probekit_websites')!;
    expect(attributeOf(relabel, 'targets')).toEqual([
      { __address__: 'https://example.com', team: 'web', module: 'http_2xx' },
      { __address__: 'http://example.org:8080/health', team: 'web', module: 'http_2xx' },
    ]);
    expect(blocksOf(relabel, 'rule').map((rule) => Object.fromEntries(rule.body.map((statement) => [statement.name, statement.kind === 'attribute' ? statement.value : undefined])))).toEqual([
      { source_labels: ['__address__'], target_label: '__param_target' },
      { source_labels: ['__param_target'], target_label: 'instance' },
      { target_label: '__address__', replacement: 'probe-exporter.observability.svc:9115' },
    ]);
    const scrape = components.get('prometheus.scrape.probekit_websites')!;
    expect(attributeOf(scrape, 'targets')).toEqual(new AlloyReference(['discovery', 'relabel', 'probekit_websites', 'output']));
    expect(attributeOf(scrape, 'forward_to')).toEqual([new AlloyReference(['prometheus', 'remote_write', 'probekit', 'receiver'])]);
    expect([attributeOf(scrape, 'job_name'), attributeOf(scrape, 'metrics_path'), attributeOf(scrape, 'params')]).toEqual(['websites', '/probe', { module: ['http_2xx'] }]);
    const exporter = components.get('prometheus.scrape.probekit_exporter')!;
    expect([attributeOf(exporter, 'job_name'), attributeOf(exporter, 'metrics_path'), attributeOf(exporter, 'targets')]).toEqual([
      'probekit-exporter',
      '/metrics',
      [{ __address__: 'probe-exporter.observability.svc:9115' }],
    ]);
    expect(components.has('discovery.relabel.probekit_exporter')).toBe(false);
    expect([...components.keys()].filter((id) => id.startsWith('prometheus.scrape.'))).toHaveLength(scrapeConfigs().length);
  });

  it('reaches a guarded exporter as the Prometheus job does (https, its CA and name, the client certificate, the password file), and mounts exactly those files', () => {
    const { values } = alloyChartValues(scrapeConfigs(GUARDED), OWN, GUARDED, 'observability', FILE);
    const components = alloyComponents(configOf(values.alloy.configMap.content));
    for (const job of scrapeConfigs(GUARDED)) {
      const scrape = [...components.values()].find((component) => component.name === 'prometheus.scrape' && attributeOf(component, 'job_name') === job.job_name)!;
      expect(attributeOf(scrape, 'scheme')).toBe(job.scheme);
      const [tls] = blocksOf(scrape, 'tls_config');
      expect(Object.fromEntries(tls.body.map((statement) => [statement.name, statement.kind === 'attribute' && statement.value]))).toEqual(job.tls_config);
      const [auth] = blocksOf(scrape, 'basic_auth');
      expect(Object.fromEntries(auth.body.map((statement) => [statement.name, statement.kind === 'attribute' && statement.value]))).toEqual(job.basic_auth);
    }
    expect(contractProblems(ALLOY_CHART_CONTRACT, values)).toEqual([]);
    const volumes = values.controller!.volumes!.extra;
    const mounts = values.alloy.mounts!.extra;
    expect(() => validateAgentPod(volumes, mounts)).not.toThrow();
    const files = mountedFiles(volumes, mounts);
    expect(probekitFilesNamed(values.alloy.configMap.content).sort()).toEqual([...files.keys()].sort());
    expect(files.get('/etc/probekit/remote-write/password')).toEqual({ secretName: 'mimir-write', key: 'password' });
    expect(files.get('/etc/probekit/exporter-tls/ca.crt')).toEqual({ secretName: 'probe-exporter-tls', key: 'ca.crt' });
  });

  it('writes the remote_write component with the URL and the credential read from its file, a bearer token likewise', () => {
    const components = alloyComponents(parseAlloy(renderAlloyConfig(scrapeConfigs(), OWN)));
    const [endpoint] = blocksOf(components.get('prometheus.remote_write.probekit')!, 'endpoint');
    expect(attributeOf(endpoint, 'url')).toBe('https://mimir.example.com/api/v1/push');
    expect(blocksOf(endpoint, 'basic_auth').map((auth) => [attributeOf(auth, 'username'), attributeOf(auth, 'password_file')])).toEqual([['tenant-1', '/etc/probekit/remote-write/password']]);
    const bearer = alloyComponents(parseAlloy(renderAlloyConfig(scrapeConfigs(), { name: 'mimir', url: 'https://mimir.example.com/push', bearerTokenSecret: { name: 'mimir', key: 'token' } })));
    const [bearerEndpoint] = blocksOf(bearer.get('prometheus.remote_write.mimir')!, 'endpoint');
    expect(attributeOf(bearerEndpoint, 'bearer_token_file')).toBe('/etc/probekit/remote-write/token');
    expect(alloyConfigProblems(parseAlloy(renderAlloyConfig(scrapeConfigs(), { name: 'mimir', url: 'https://mimir.example.com/push' })))).toEqual([]);
  });

  it("is probekit's part of the user's configuration when the spec names their component without a URL", () => {
    const { values, notes } = alloyChartValues(scrapeConfigs(), THEIRS, {}, 'observability', FILE);
    const config = configOf(values.alloy.configMap.content);
    expect(alloyComponents(config).has('prometheus.remote_write.default')).toBe(false);
    expect(problemsOf(config)).toContain('prometheus.scrape.probekit_websites > forward_to: refers to prometheus.remote_write.default.receiver, which no component exports as a metrics receiver');
    expect(alloyConfigProblems(config, ['prometheus.remote_write.default'])).toEqual([]);
    expect(values.controller).toBeUndefined();
    expect(notes.join('\n')).toMatch(/forward to prometheus\.remote_write\.default, which it does not define.*\nPut it into your own alloy\.configMap\.content/);
  });

  it('keeps quotes, backslashes, control characters, non-ASCII text and {{ intact, and labels every component with an identifier', () => {
    const job = oddJob();
    const config = parseAlloy(renderAlloyConfig([job, { ...job, job_name: 'Web sites (EU)_2' }], OWN));
    expect(alloyConfigProblems(config)).toEqual([]);
    const components = alloyComponents(config);
    expect([...components.keys()]).toEqual([
      'discovery.relabel.probekit_Web_sites__EU__2',
      'prometheus.scrape.probekit_Web_sites__EU__2',
      'discovery.relabel.probekit_Web_sites__EU__2_2',
      'prometheus.scrape.probekit_Web_sites__EU__2_2',
      'prometheus.remote_write.probekit',
    ]);
    expect(attributeOf(components.get('discovery.relabel.probekit_Web_sites__EU__2')!, 'targets')).toEqual([{ __address__: job.static_configs![0].targets[0], ...job.static_configs![0].labels }]);
    const scrape = components.get('prometheus.scrape.probekit_Web_sites__EU__2')!;
    expect([attributeOf(scrape, 'job_name'), attributeOf(scrape, 'scrape_interval'), attributeOf(scrape, 'scrape_timeout')]).toEqual(['Web sites (EU) 2', '24h', '1m30s']);
  });

  it('writes durations as Go reads them and strings with the escapes Alloy documents', () => {
    expect(['30s', '1m', '1m30s', '1d', '1w', '500ms', '1h0m5s', '0'].map(goDuration)).toEqual(['30s', '1m', '1m30s', '24h', '168h', '500ms', '1h5s', '0s']);
    expect(alloyString('a"b\\c\nd\u0001é')).toBe('"a\\"b\\\\c\\nd\\u0001é"');
  });

  it('finds what Alloy would refuse (the checks are real)', () => {
    const text = renderAlloyConfig(scrapeConfigs().slice(0, 1), OWN);
    expect(problemsOf(parseAlloy(text.replace('scrape_timeout  = "30s"', 'scrape_timeout  = "1d"')))).toEqual([
      'prometheus.scrape.probekit_websites > scrape_timeout: is not a duration Alloy reads (Go\'s: 30s, 1m30s, 24h): "1d"',
    ]);
    expect(problemsOf(parseAlloy(text.replace('metrics_path ', 'metric_path  ')))).toEqual(['prometheus.scrape.probekit_websites > metric_path: not an argument of this block']);
    expect(alloyConfigProblems(parseAlloy(text.replace('password_file = ', 'password = "x"\n      password_file = ')))).toEqual([
      'prometheus.remote_write.probekit > endpoint > basic_auth: password and password_file exclude each other',
    ]);
    expect(() => parseAlloy(text.replace('prometheus.scrape "probekit_websites"', 'prometheus.scrape "probekit-websites"'))).toThrow(/block label "probekit-websites" is not an identifier/);
    expect(() => parseAlloy(text.replace('"websites"', '"web"sites"'))).toThrow(AlloySyntaxError);
    expect(() => parseAlloy('prometheus.scrape "x" {\n  targets = concat([], [])\n}\n')).toThrow(/line 2: unexpected "\("/);
  });
});

describeWithBinaries([PROMETHEUS])('the Alloy configuration against the Prometheus job it is made from', () => {
  it('gives every target the labels and the scrape URL Prometheus gives it, odd text included', async () => {
    // The exporter's address is a loopback port where nothing listens: Prometheus lists the targets whether or not
    // their scrapes succeed, and nothing is looked up in DNS.
    const address = `127.0.0.1:${await freePort()}`;
    const jobs = [...scrapeConfigs({}, address), { ...oddJob(), relabel_configs: scrapeConfigs({}, address)[0].relabel_configs }];
    const prometheus = await startPrometheus({ global: { scrape_interval: '1h' }, scrape_configs: jobs.map((job) => ({ ...job, scrape_interval: '1h', scrape_timeout: '10s' })) });
    try {
      // Prometheus applies discovered targets to its scrape pools a few seconds after it starts.
      const expected = jobs.reduce((count, job) => count + job.static_configs![0].targets.length, 0);
      let reported: Array<{ labels: Record<string, string>; scrapeUrl: string }> = [];
      await eventually(20, async () => {
        reported = (await prometheus.activeTargets()).map(({ labels, scrapeUrl }) => ({ labels, scrapeUrl }));
        return reported.length === expected;
      });
      expect(reported).toHaveLength(expected);
      const byUrl = (a: { scrapeUrl: string }, b: { scrapeUrl: string }) => a.scrapeUrl.localeCompare(b.scrapeUrl);
      expect(alloyScrapedTargets(parseAlloy(renderAlloyConfig(jobs, OWN))).sort(byUrl)).toEqual(reported.sort(byUrl));
    } finally {
      await prometheus.stop();
    }
  });
});
