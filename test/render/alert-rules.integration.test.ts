/**
 * The alert rules: their shape from the spec, Prometheus's own checker on the file, and Prometheus's rule unit tests
 * (`promtool test rules`) for every alert firing and not firing, with its labels and its rendered annotations, the
 * burn-rate windows included.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseSpec, type Spec } from '../../src/model';
import { ALERTS, renderAlertRules, renderAlertRulesYaml, type AlertRule } from '../../src/render';
import { fullEnv, fullSpec } from '../fixtures/specs';
import { hostileText, samples, templateText } from '../support/hostile-text';
import { describeWithBinaries } from '../support/integration';

const PROMTOOL = '/usr/bin/promtool';
const run = promisify(execFile);

const spec = parseSpec({
  exporter: { externalUrl: 'https://probes.example.com' },
  modules: { http_2xx: { preset: 'http_2xx' }, protected: { prober: 'http', http: { valid_status_codes: [200, 401] } }, tcp: { prober: 'tcp' } },
  jobs: [
    { name: 'web', module: 'http_2xx', targets: ['https://shop.example.com/health?full=1'], slo: 99.9 },
    {
      name: 'auth',
      module: 'protected',
      targets: ['https://auth.example.com/'],
      alerts: { downFor: '2m', slowerThan: '500ms', slowFor: '1m', certificateWarningDays: 30, certificateCriticalDays: 3 },
    },
    { name: 'db', module: 'tcp', targets: ['db.example.com:5432'] },
  ],
});
const rules = renderAlertRules(spec);
const rulesOf = (group: string): readonly AlertRule[] => rules.groups.find((candidate) => candidate.name === group)!.rules;

describe('the rules from the spec', () => {
  it("one group per job, with that job's thresholds, and one for the exporter", () => {
    expect(rules.groups.map((group) => group.name)).toEqual(['probekit:web', 'probekit:auth', 'probekit:db', 'probekit:exporter']);
    const auth = Object.fromEntries(rulesOf('probekit:auth').map((rule) => [rule.alert, rule]));
    expect(auth[ALERTS.endpointDown]).toMatchObject({ expr: 'probe_success{job="auth"} == 0', for: '2m', labels: { severity: 'critical', job: 'auth' } });
    expect(auth[ALERTS.slow]).toMatchObject({ expr: 'probe_duration_seconds{job="auth"} > 0.5', for: '1m' });
    expect(auth[ALERTS.certificateExpiringSoon].expr).toBe('(probe_ssl_earliest_cert_expiry{job="auth"} - time()) / 86400 < 30 >= 3');
    expect(auth[ALERTS.httpStatus].expr).toBe('(probe_http_status_code{job="auth"} > 0 < 200 or probe_http_status_code{job="auth"} >= 400) unless (probe_http_status_code{job="auth"} == 401)');
  });

  it('the HTTP status alert only for http modules, the objective alerts only with an objective', () => {
    const names = (group: string) => rulesOf(group).map((rule) => rule.alert);
    expect(names('probekit:db')).not.toContain(ALERTS.httpStatus);
    expect(names('probekit:web')).toEqual(expect.arrayContaining([ALERTS.errorBudgetBurnFast, ALERTS.errorBudgetBurnSlow, ALERTS.uptimeBelowObjective]));
    expect(names('probekit:auth')).not.toContain(ALERTS.uptimeBelowObjective);
  });

  it('the burn-rate thresholds are the factor times the budget, without floating-point noise', () => {
    const web = Object.fromEntries(rulesOf('probekit:web').map((rule) => [rule.alert, rule]));
    expect(web[ALERTS.errorBudgetBurnFast].expr).toBe('(1 - avg_over_time(probe_success{job="web"}[1h])) > 0.0144 and (1 - avg_over_time(probe_success{job="web"}[5m])) > 0.0144');
    expect(web[ALERTS.errorBudgetBurnSlow].expr).toBe('(1 - avg_over_time(probe_success{job="web"}[6h])) > 0.006 and (1 - avg_over_time(probe_success{job="web"}[30m])) > 0.006');
    expect(web[ALERTS.uptimeBelowObjective].expr).toBe('avg_over_time(probe_success{job="web"}[30d]) < 0.999');
  });

  it("every alert links to the exporter's debug output for its target with the series' module, at the spec's external URL", () => {
    for (const group of rules.groups) {
      for (const rule of group.rules) {
        const expected =
          group.name === 'probekit:exporter'
            ? 'https://probes.example.com/'
            : 'https://probes.example.com/probe?debug=true&module={{ $labels.module | urlquery }}&target={{ $labels.instance | urlquery }}';
        expect(rule.annotations.debug_url).toEqual(expected);
        expect(rule.annotations.summary).toContain('{{ $labels.instance }}');
      }
    }
  });

  it('a job name is quoted as PromQL reads strings, also one the spec would refuse', () => {
    const odd = renderAlertRules(withNames(spec, [{ job: 'say "hi"\\', module: 'm' }]));
    expect(odd.groups[0].rules[0].expr).toBe('probe_success{job="say \\"hi\\"\\\\"} == 0');
  });
});

/**
 * The spec with jobs of these names and module names (each probing with a copy of the tcp module), as a caller that
 * skips the spec's checks would hand it to the renderer, and an external URL of its own.
 */
function withNames(base: Spec, names: ReadonlyArray<{ readonly job: string; readonly module: string }>, externalUrl = base.exporter.externalUrl): Spec {
  const [job] = base.jobs;
  return {
    ...base,
    exporter: { ...base.exporter, externalUrl },
    modules: Object.fromEntries(names.map(({ module }) => [module, { prober: 'tcp' }])),
    jobs: names.map(({ job: name, module }) => ({ ...job, name, module, targets: [{ target: 'db.example.com:5432', module, labels: {}, scrapeInterval: job.scrapeInterval }] })),
  };
}

describeWithBinaries([PROMTOOL])('promtool', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-rules-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function promtool(...args: string[]): Promise<{ ok: boolean; output: string }> {
    try {
      const { stdout, stderr } = await run(PROMTOOL, args, { cwd: dir });
      return { ok: true, output: stdout + stderr };
    } catch (error) {
      const failure = error as { stdout: string; stderr: string };
      return { ok: false, output: failure.stdout + failure.stderr };
    }
  }

  it('check rules accepts the rule files of these specs and of the spec using every option', async () => {
    writeFileSync(join(dir, 'rules.yaml'), renderAlertRulesYaml(spec));
    writeFileSync(join(dir, 'full.yaml'), renderAlertRulesYaml(parseSpec(fullSpec, { env: fullEnv })));
    const result = await promtool('check', 'rules', 'rules.yaml', 'full.yaml');
    expect(result.output).toContain('rules.yaml\n  SUCCESS: 21 rules found');
    expect(result.output).toContain('full.yaml\n  SUCCESS: 51 rules found');
    expect(result.ok).toBe(true);
  });

  const WEB = { job: 'web', instance: 'https://shop.example.com/health?full=1', module: 'http_2xx' };
  const AUTH = { job: 'auth', instance: 'https://auth.example.com/', module: 'protected' };
  const EXPORTER = { job: 'probekit-exporter', instance: 'localhost:9115' };
  type Labels = Record<string, string>;

  const selector = (metric: string, labels: Labels): string =>
    `${metric}{${Object.entries(labels)
      .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
      .join(', ')}}`;

  /**
   * The alert as promtool should report it: the series' labels and the rule's, and the rule's annotations with the
   * labels and the value put in as Prometheus's templates would (Go's urlquery escapes all but letters, digits and
   * -_.~), so that what promtool renders is checked against what each template means.
   */
  function expected(alert: string, labels: Labels, value: string) {
    const rule = rules.groups.flatMap((group) => group.rules).find((candidate) => candidate.alert === alert && candidate.labels.job === (labels.job === EXPORTER.job ? undefined : labels.job))!;
    const fill = (template: string): string =>
      template
        .replaceAll('{{ $labels.instance | urlquery }}', encodeURIComponent(labels.instance))
        .replaceAll('{{ $labels.instance }}', labels.instance)
        .replaceAll('{{ $labels.job }}', labels.job)
        .replaceAll('{{ $labels.module | urlquery }}', encodeURIComponent(labels.module ?? ''))
        .replaceAll('{{ $labels.module }}', labels.module ?? '')
        .replace(/\{\{ (printf "%\.1f" )?\$value( \| [a-zA-Z]+)? \}\}/g, value);
    return { exp_labels: { ...labels, ...rule.labels }, exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([key, text]) => [key, fill(text)])) };
  }

  interface Case {
    readonly name: string;
    readonly interval: string;
    readonly series: ReadonlyArray<{ readonly series: string; readonly values: string }>;
    readonly checks: ReadonlyArray<{ readonly alertname: string; readonly eval_time: string; readonly exp_alerts: unknown[] }>;
  }

  const CASES: Case[] = [
    {
      name: 'EndpointDown fires once every probe has failed for downFor, not before, and not for a healthy target',
      interval: '1m',
      series: [
        { series: selector('probe_success', WEB), values: '0x10' },
        { series: selector('probe_success', AUTH), values: '1x10' },
      ],
      checks: [
        { alertname: ALERTS.endpointDown, eval_time: '4m', exp_alerts: [] },
        { alertname: ALERTS.endpointDown, eval_time: '6m', exp_alerts: [expected(ALERTS.endpointDown, WEB, '0')] },
      ],
    },
    {
      name: 'EndpointHttpStatus fires for 5xx and 4xx, not for 2xx, not for no answer at all, not for a status the module expects',
      interval: '1m',
      series: [
        { series: selector('probe_http_status_code', WEB), values: '503x10' },
        { series: selector('probe_http_status_code', { ...AUTH, instance: 'https://auth.example.com/login' }), values: '401x10' },
        { series: selector('probe_http_status_code', AUTH), values: '0x10' },
        { series: selector('probe_http_status_code', { ...WEB, instance: 'https://ok.example.com/' }), values: '200x10' },
      ],
      checks: [{ alertname: ALERTS.httpStatus, eval_time: '6m', exp_alerts: [expected(ALERTS.httpStatus, WEB, '503')] }],
    },
    {
      name: "EndpointSlow fires once every probe has been slower than the job's threshold for slowFor",
      interval: '1m',
      series: [
        { series: selector('probe_duration_seconds', WEB), values: '2.5x15' },
        { series: selector('probe_duration_seconds', AUTH), values: '0.4x15' },
      ],
      checks: [
        { alertname: ALERTS.slow, eval_time: '9m', exp_alerts: [] },
        { alertname: ALERTS.slow, eval_time: '11m', exp_alerts: [expected(ALERTS.slow, WEB, '2.5s')] },
      ],
    },
    {
      name: "the certificate alerts: the warning between the job's two thresholds, critical below the nearer one, and expired",
      interval: '1h',
      // At 2d, time() is 172800: the series hold expiry times 15, 3, 40 and -1 days from then.
      series: [
        { series: selector('probe_ssl_earliest_cert_expiry', WEB), values: `${172800 + 15 * 86400}x60` },
        { series: selector('probe_ssl_earliest_cert_expiry', AUTH), values: `${172800 + 15 * 86400}x60` },
        { series: selector('probe_ssl_earliest_cert_expiry', { ...WEB, instance: 'https://soon.example.com/' }), values: `${172800 + 3 * 86400}x60` },
        { series: selector('probe_ssl_earliest_cert_expiry', { ...WEB, instance: 'https://fine.example.com/' }), values: `${172800 + 40 * 86400}x60` },
        { series: selector('probe_ssl_earliest_cert_expiry', { ...WEB, instance: 'https://old.example.com/' }), values: `${172800 - 86400}x60` },
      ],
      checks: [
        { alertname: ALERTS.certificateExpiringSoon, eval_time: '2d', exp_alerts: [expected(ALERTS.certificateExpiringSoon, WEB, '15.0'), expected(ALERTS.certificateExpiringSoon, AUTH, '15.0')] },
        { alertname: ALERTS.certificateExpiringCritical, eval_time: '2d', exp_alerts: [expected(ALERTS.certificateExpiringCritical, { ...WEB, instance: 'https://soon.example.com/' }, '3.0')] },
        { alertname: ALERTS.certificateExpired, eval_time: '2d', exp_alerts: [expected(ALERTS.certificateExpired, { ...WEB, instance: 'https://old.example.com/' }, '1.0')] },
      ],
    },
    {
      name: 'the burn-rate alerts fire while both windows fail too often, and stop once the short window is clean',
      interval: '1m',
      series: [
        // Half the last hour failed, and the last 30 minutes did: both long windows and both short ones.
        { series: selector('probe_success', WEB), values: '1x30 0x30' },
        // Failed for 30 minutes, then recovered 30 minutes ago: the long windows still fail, the short ones are clean.
        { series: selector('probe_success', { ...WEB, instance: 'https://recovered.example.com/' }), values: '0x29 1x31' },
        // Never failed.
        { series: selector('probe_success', { ...WEB, instance: 'https://fine.example.com/' }), values: '1x60' },
      ],
      checks: [
        { alertname: ALERTS.errorBudgetBurnFast, eval_time: '1h', exp_alerts: [expected(ALERTS.errorBudgetBurnFast, WEB, '')] },
        { alertname: ALERTS.errorBudgetBurnSlow, eval_time: '1h', exp_alerts: [expected(ALERTS.errorBudgetBurnSlow, WEB, '')] },
        // 20 minutes in, only the target failing then burns.
        { alertname: ALERTS.errorBudgetBurnFast, eval_time: '20m', exp_alerts: [expected(ALERTS.errorBudgetBurnFast, { ...WEB, instance: 'https://recovered.example.com/' }, '')] },
      ],
    },
    {
      name: 'one failed probe in six hours fires neither: its short windows fail too often, its long windows do not',
      interval: '30s',
      // One failure 30s ago: 1 in 10 over 5m and 1 in 60 over 30m, but 1 in 120 over 1h and 1 in 720 over 6h.
      series: [{ series: selector('probe_success', WEB), values: '1x718 0' }],
      checks: [
        { alertname: ALERTS.errorBudgetBurnFast, eval_time: '6h', exp_alerts: [] },
        { alertname: ALERTS.errorBudgetBurnSlow, eval_time: '6h', exp_alerts: [] },
      ],
    },
    {
      name: 'uptime below the objective over 30 days, and not for a target that met it',
      interval: '1h',
      series: [
        { series: selector('probe_success', WEB), values: '1x40 0x8' },
        { series: selector('probe_success', { ...WEB, instance: 'https://fine.example.com/' }), values: '1x48' },
      ],
      checks: [{ alertname: ALERTS.uptimeBelowObjective, eval_time: '2d', exp_alerts: [expected(ALERTS.uptimeBelowObjective, WEB, '83.67%')] }],
    },
    {
      name: "the exporter's failed reload, from its own metric, and not once a reload succeeded",
      interval: '1m',
      series: [{ series: selector('blackbox_exporter_config_last_reload_successful', EXPORTER), values: '1x4 0x4 1x4' }],
      checks: [
        { alertname: ALERTS.configReloadFailed, eval_time: '2m', exp_alerts: [] },
        { alertname: ALERTS.configReloadFailed, eval_time: '6m', exp_alerts: [expected(ALERTS.configReloadFailed, EXPORTER, '0')] },
        { alertname: ALERTS.configReloadFailed, eval_time: '11m', exp_alerts: [] },
      ],
    },
  ];

  async function testRules(cases: readonly Case[]): Promise<{ ok: boolean; output: string }> {
    writeFileSync(join(dir, 'rules.yaml'), renderAlertRulesYaml(spec));
    const tests = cases.map((test) => ({ name: test.name, interval: test.interval, input_series: test.series, alert_rule_test: test.checks }));
    // Rules are evaluated as often as the cases' series are sampled: the cases over days need no evaluation a minute.
    writeFileSync(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: cases[0].interval, tests }, { lineWidth: 0 }));
    return promtool('test', 'rules', 'tests.yaml');
  }

  it.each(CASES.map((test) => [test.name, test] as const))('%s', async (_name, test) => {
    const result = await testRules([test]);
    expect(result.output).toContain('SUCCESS');
    expect(result.ok).toBe(true);
  });

  it('prints hostile job names, module names and an external URL as written, in every label and annotation, and runs none of them', async () => {
    const names = samples(fc.uniqueArray(fc.record({ job: templateText, module: hostileText() }), { minLength: 40, maxLength: 40, selector: ({ job, module }) => `${job}\u0000${module}` }), 1)[0];
    const seen = new Set<string>();
    const unique = names.filter(({ module }) => !seen.has(module) && seen.add(module));
    const externalUrl = 'https://probes.example.com/{{ with query "up" }}{{ . | first | value }}{{ end }}';
    const hostile = withNames(spec, [{ job: 'web{{', module: '{{ with query "up" }}{{ . | first | value }}{{ end }}' }, ...unique], externalUrl);
    writeFileSync(join(dir, 'hostile.yaml'), renderAlertRulesYaml(hostile));
    const checked = await promtool('check', 'rules', 'hostile.yaml');
    expect(checked.output).toContain('SUCCESS');
    const down = hostile.jobs.map((job) => ({ job: job.name, instance: 'db.example.com:5432', module: job.module }));
    const alerts = down.map((labels) => ({
      exp_labels: { ...labels, severity: 'critical' },
      exp_annotations: {
        summary: 'db.example.com:5432 is down',
        description: `Every probe of db.example.com:5432 (job ${labels.job}, module ${labels.module}) has failed for 5m.`,
        debug_url: `${externalUrl}/probe?debug=true&module=${goQueryEscape(labels.module)}&target=db.example.com%3A5432`,
      },
    }));
    writeFileSync(join(dir, 'rules.yaml'), renderAlertRulesYaml(hostile));
    const tests = [
      {
        interval: '1m',
        input_series: down.map((labels) => ({ series: selector('probe_success', labels), values: '0x10' })),
        alert_rule_test: [{ alertname: ALERTS.endpointDown, eval_time: '6m', exp_alerts: alerts }],
      },
    ];
    writeFileSync(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }, { lineWidth: 0 }));
    const result = await promtool('test', 'rules', 'tests.yaml');
    expect(result.output).toContain('SUCCESS');
    expect(result.ok).toBe(true);
  });

  it('would catch an alert that does not fire as expected (the unit tests are real)', async () => {
    const wrong: Case = { ...CASES[0], checks: [{ alertname: ALERTS.endpointDown, eval_time: '4m', exp_alerts: [expected(ALERTS.endpointDown, WEB, '0')] }] };
    const result = await testRules([wrong]);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('FAILED');
  });
});

/** Go's url.QueryEscape, which the annotation's `urlquery` is: all but letters, digits and `-_.~` escaped, a space as `+`. */
function goQueryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/**
 * Three locations, two of which must see a target fail: the rules as the central Prometheus evaluates them over every
 * location's series, each with its `location` label.
 */
describe('with locations', () => {
  const located = parseSpec({
    location: 'eu',
    locations: ['eu', 'us', 'ap'],
    modules: { tcp: { prober: 'tcp' } },
    jobs: [{ name: 'db', module: 'tcp', targets: ['db.example.com:5432'], labels: { team: 'data' }, scrapeInterval: '1m', alerts: { downFor: '3m' } }],
  });
  const locatedRules = renderAlertRules(located);

  it("with one location, or none, the rules are a single Prometheus's, whatever the location", () => {
    const plain = { modules: { tcp: { prober: 'tcp' } }, jobs: [{ name: 'db', module: 'tcp', targets: ['db.example.com:5432'] }] };
    expect(renderAlertRulesYaml(parseSpec({ ...plain, location: 'eu' }))).toBe(renderAlertRulesYaml(parseSpec(plain)));
    expect(renderAlertRulesYaml(parseSpec({ ...plain, location: 'eu', locations: ['eu'] }))).toBe(renderAlertRulesYaml(parseSpec(plain)));
  });

  it('EndpointDown counts the failing locations by the labels of the target, and a silent-location group is added', () => {
    const down = locatedRules.groups[0].rules.find((rule) => rule.alert === ALERTS.endpointDown)!;
    expect(down.expr).toBe(
      'count by (job, instance, module, team) (probe_success{job="db"} == 0) >= 2 or count by (job, instance, module, team) (probe_success{job="db"} == 0) == count by (job, instance, module, team) (probe_success{job="db"})',
    );
    expect(locatedRules.groups.map((group) => group.name)).toEqual(['probekit:db', 'probekit:locations', 'probekit:exporter']);
  });

  it("EndpointDown keeps a discovered target's namespace and object name, which discovery's rules give it", () => {
    const discovered = parseSpec({
      locations: ['eu', 'us', 'ap'],
      modules: { http_2xx: { prober: 'http' } },
      jobs: [{ name: 'shop', module: 'http_2xx', discover: { ingresses: { selector: { matchLabels: { app: 'shop' } } } } }],
    });
    const down = renderAlertRules(discovered).groups[0].rules.find((rule) => rule.alert === ALERTS.endpointDown)!;
    // Before, counted by (job, instance, module): the page lost the namespace an Alertmanager route may match.
    expect(down.expr).toContain('count by (job, instance, module, namespace, ingress) (probe_success{job="shop"} == 0)');
  });

  describeWithBinaries([PROMTOOL])('promtool', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'probekit-located-rules-'));
      writeFileSync(join(dir, 'rules.yaml'), renderAlertRulesYaml(located));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const DB = { job: 'db', instance: 'db.example.com:5432', module: 'tcp', team: 'data' };
    const at = (location: string): string => `probe_success{job="db", instance="db.example.com:5432", module="tcp", team="data", location="${location}"}`;
    const annotationsOf = (alert: string, values: Record<string, string>) => {
      const rule = locatedRules.groups.flatMap((group) => group.rules).find((candidate) => candidate.alert === alert)!;
      return Object.fromEntries(
        Object.entries(rule.annotations).map(([key, text]) => [
          key,
          text
            .replaceAll('{{ $labels.instance | urlquery }}', encodeURIComponent(DB.instance))
            .replaceAll('{{ $labels.module | urlquery }}', 'tcp')
            .replace(/\{\{ \$labels\.(\w+) \}\}/g, (_match, name: string) => values[name] ?? (DB as Record<string, string>)[name])
            .replaceAll('{{ $value }}', values.value ?? ''),
        ]),
      );
    };

    async function check(name: string, series: Array<[string, string]>, checks: Array<{ alertname: string; eval_time: string; exp_alerts: unknown[] }>): Promise<{ ok: boolean; output: string }> {
      const tests = [{ name, interval: '1m', input_series: series.map(([selector, values]) => ({ series: selector, values })), alert_rule_test: checks }];
      writeFileSync(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }, { lineWidth: 0 }));
      try {
        const { stdout, stderr } = await run(PROMTOOL, ['test', 'rules', 'tests.yaml'], { cwd: dir });
        return { ok: true, output: stdout + stderr };
      } catch (error) {
        const failure = error as { stdout: string; stderr: string };
        return { ok: false, output: failure.stdout + failure.stderr };
      }
    }

    const downFromUs = { exp_labels: { ...DB, location: 'us', severity: 'warning' }, exp_annotations: annotationsOf(ALERTS.downFromLocation, { location: 'us' }) };

    it('one location failing: a warning that names it, and no page', async () => {
      const result = await check(
        'one of three',
        [
          [at('eu'), '1x10'],
          [at('us'), '0x10'],
          [at('ap'), '1x10'],
        ],
        [
          { alertname: ALERTS.endpointDown, eval_time: '8m', exp_alerts: [] },
          { alertname: ALERTS.downFromLocation, eval_time: '2m', exp_alerts: [] },
          { alertname: ALERTS.downFromLocation, eval_time: '8m', exp_alerts: [downFromUs] },
        ],
      );
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    });

    it('two of three failing for downFor: one EndpointDown for the target, without a location, critical', async () => {
      const page = { exp_labels: { ...DB, severity: 'critical' }, exp_annotations: annotationsOf(ALERTS.endpointDown, { value: '2' }) };
      const result = await check(
        'two of three',
        [
          [at('eu'), '1x10'],
          [at('us'), '0x10'],
          [at('ap'), '1x4 0x6'],
        ],
        [
          // ap fails from 5m: two locations from then, for 3m.
          { alertname: ALERTS.endpointDown, eval_time: '7m', exp_alerts: [] },
          { alertname: ALERTS.endpointDown, eval_time: '9m', exp_alerts: [page] },
        ],
      );
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    });

    it('a location gone silent: ProbeLocationSilent names it once its series are stale for downFor; one that never sent, and a fresh start, fire nothing; silence is no vote for up', async () => {
      const silent = { exp_labels: { location: 'ap', severity: 'warning' }, exp_annotations: annotationsOf(ALERTS.locationSilent, { location: 'ap' }) };
      const page = { exp_labels: { ...DB, severity: 'critical' }, exp_annotations: annotationsOf(ALERTS.endpointDown, { value: '1' }) };
      const result = await check(
        'silent',
        [
          // eu fails from 20m; ap sends for 10 minutes and stops; us never sends.
          [at('eu'), '1x19 0x60'],
          [at('ap'), '1x10'],
        ],
        [
          { alertname: ALERTS.locationSilent, eval_time: '3m', exp_alerts: [] },
          // ap's last sample at 10m is read until 15m (Prometheus's lookback); then the spec's downFor, 5m (a location's silence is no job's).
          { alertname: ALERTS.locationSilent, eval_time: '19m', exp_alerts: [] },
          { alertname: ALERTS.locationSilent, eval_time: '21m', exp_alerts: [silent] },
          // Still silent long after the hour it is remembered for: the alert keeps itself.
          { alertname: ALERTS.locationSilent, eval_time: '75m', exp_alerts: [silent] },
          // The one location still sending sees it fail: that pages, though it is one of the quorum of two.
          { alertname: ALERTS.endpointDown, eval_time: '25m', exp_alerts: [page] },
        ],
      );
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    });

    it('a target that flaps from two locations never holds for downFor: no page', async () => {
      const result = await check(
        'flapping',
        [
          [at('eu'), '0 1 0 1 0 1 0 1 0 1 0 1'],
          [at('us'), '1 0 1 0 0 1 0 0 1 0 1 0'],
          [at('ap'), '1x12'],
        ],
        [
          { alertname: ALERTS.endpointDown, eval_time: '5m', exp_alerts: [] },
          { alertname: ALERTS.endpointDown, eval_time: '11m', exp_alerts: [] },
        ],
      );
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    });

    it('would catch a page that does not fire (the located tests are real)', async () => {
      const result = await check('wrong', [[at('us'), '0x10']], [{ alertname: ALERTS.endpointDown, eval_time: '1m', exp_alerts: [{ exp_labels: { ...DB, severity: 'critical' } }] }]);
      expect(result.ok).toBe(false);
    });
  });
});
