/**
 * Alertmanager's routing of probekit's alerts: the file as Debian's amtool checks it (`check-config`) and routes
 * alerts through it (`config routes test`), the windows' spans, and the Operator's AlertmanagerConfig against the
 * Operator's published schema.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseSpec, type SpecInput } from '../../src/model';
import { renderAlertmanagerConfig, renderAlertmanagerConfigObject, renderAlertmanagerConfigYaml, routesAlerts, windowIsOn, windowSpans } from '../../src/render';
import { describeWithBinaries } from '../support/integration';
import { operatorSchemaProblems } from '../support/operator-schema';

const AMTOOL = '/usr/bin/amtool';
const run = promisify(execFile);

const input: SpecInput = {
  location: 'eu',
  locations: ['eu', 'us', 'ap'],
  modules: { http_2xx: { preset: 'http_2xx' }, tcp: { prober: 'tcp' } },
  jobs: [
    { name: 'Web sites (EU)', module: 'http_2xx', targets: ['https://shop.example.com/health?full=1'] },
    { name: 'db', module: 'tcp', targets: ['db.example.com:5432', 'db2.example.com:5432'] },
  ],
  alerts: {
    receivers: [
      { name: 'pager', webhookUrl: 'https://hooks.example.com/page' },
      { name: 'chat', severities: ['warning', 'info'] },
    ],
    groupWait: '10s',
  },
  maintenance: [
    { name: 'db-sunday', jobs: ['db'], weekly: { days: ['sunday'], from: '22:00', to: '02:00', timezone: 'Europe/Zurich' } },
    { name: 'migration', jobs: ['db'], targets: ['db2.example.com:5432'], once: { from: '2026-03-01T22:00:00+01:00', to: '2026-03-04T03:00:00+01:00' } },
  ],
};
const spec = parseSpec(input);
const operatorSpec = parseSpec({
  ...input,
  operator: {},
  maintenance: [{ ...input.maintenance![0], weekly: { days: ['sunday'], from: '21:00', to: '01:00', timezone: 'UTC' } }, input.maintenance![1]],
});

describe('the routing from the spec', () => {
  it('is written only when the spec routes its alerts: receivers, windows or two or more locations', () => {
    expect(routesAlerts(parseSpec({ modules: { tcp: { prober: 'tcp' } }, jobs: [{ module: 'tcp', targets: ['db.example.com:5432'] }] }))).toBe(false);
    expect(routesAlerts(parseSpec({ location: 'eu', modules: { tcp: { prober: 'tcp' } }, jobs: [{ module: 'tcp', targets: ['db.example.com:5432'] }] }))).toBe(false);
    expect(routesAlerts(spec)).toBe(true);
  });

  it("a receiver named default takes what no other does; without one, a default that delivers nothing is added; Alertmanager's timings from the spec", () => {
    const file = renderAlertmanagerConfig(spec) as { route: Record<string, unknown>; receivers: unknown[] };
    expect(file.receivers).toEqual([{ name: 'default' }, { name: 'pager', webhook_configs: [{ url: 'https://hooks.example.com/page', send_resolved: true }] }, { name: 'chat' }]);
    expect(file.route).toMatchObject({ receiver: 'default', group_by: ['alertname', 'job', 'instance'], group_wait: '10s', group_interval: '5m', repeat_interval: '4h' });
  });

  it('a weekly window that ends before it starts runs into the next day, in its time zone; a one-off window is split at UTC midnights', () => {
    expect(windowSpans(spec.maintenance[0])).toEqual([
      { weekdays: ['sunday'], start: '22:00', end: '24:00', location: 'Europe/Zurich' },
      { weekdays: ['monday'], start: '00:00', end: '02:00', location: 'Europe/Zurich' },
    ]);
    expect(windowSpans(spec.maintenance[1])).toEqual([
      { date: { year: 2026, month: 3, days: [1, 1] }, start: '21:00', end: '24:00' },
      { date: { year: 2026, month: 3, days: [2, 3] }, start: '00:00', end: '24:00' },
      { date: { year: 2026, month: 3, days: [4, 4] }, start: '00:00', end: '02:00' },
    ]);
    const newYear = parseSpec({ ...input, maintenance: [{ name: 'n', jobs: ['db'], once: { from: '2026-12-31T23:30:00Z', to: '2027-01-01T00:30:00Z' } }] });
    expect(windowSpans(newYear.maintenance[0])).toEqual([
      { date: { year: 2026, month: 12, days: [31, 31] }, start: '23:30', end: '24:00' },
      { date: { year: 2027, month: 1, days: [1, 1] }, start: '00:00', end: '00:30' },
    ]);
  });
});

describe('whether a window is on', () => {
  const zurich = spec.maintenance[0];
  const once = spec.maintenance[1];
  it.each<[string, boolean]>([
    // Sunday 22:00 to Monday 02:00 in Zurich: CET (UTC+1) in March, CEST (UTC+2) in July.
    ['2026-03-01T20:59:00Z', false],
    ['2026-03-01T21:30:00Z', true],
    ['2026-03-02T00:59:00Z', true],
    ['2026-03-02T01:00:00Z', false],
    ['2026-07-05T19:30:00Z', false],
    ['2026-07-05T20:30:00Z', true],
    ['2026-03-08T21:00:00Z', true],
    ['2026-03-07T21:30:00Z', false],
  ])('the weekly window in its own time zone at %s: %s', (at, on) => {
    expect(windowIsOn(zurich, new Date(at))).toBe(on);
  });
  it.each<[string, boolean]>([
    ['2026-03-01T20:59:00Z', false],
    ['2026-03-01T21:00:00Z', true],
    ['2026-03-03T12:00:00Z', true],
    ['2026-03-04T01:59:00Z', true],
    ['2026-03-04T02:00:00Z', false],
  ])('the one-off window at %s: %s', (at, on) => {
    expect(windowIsOn(once, new Date(at))).toBe(on);
  });
});

describeWithBinaries([AMTOOL])('amtool', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-alertmanager-'));
    writeFileSync(join(dir, 'alertmanager.yaml'), renderAlertmanagerConfigYaml(spec));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function amtool(...args: string[]): Promise<{ ok: boolean; output: string }> {
    try {
      const { stdout, stderr } = await run(AMTOOL, args, { cwd: dir });
      return { ok: true, output: stdout + stderr };
    } catch (error) {
      const failure = error as { stdout: string; stderr: string };
      return { ok: false, output: failure.stdout + failure.stderr };
    }
  }

  it('check-config accepts the file: its routes, the inhibition of the per-location warnings, the receivers and both windows', async () => {
    const result = await amtool('check-config', 'alertmanager.yaml');
    expect(result.output).toContain('SUCCESS');
    expect(result.output).toContain('1 inhibit rules');
    expect(result.output).toContain('3 receivers');
    expect(result.ok).toBe(true);
  });

  it('check-config accepts the file of a spec with receivers only (one location, no windows)', async () => {
    writeFileSync(
      join(dir, 'plain.yaml'),
      renderAlertmanagerConfigYaml(
        parseSpec({
          modules: { tcp: { prober: 'tcp' } },
          jobs: [{ module: 'tcp', targets: ['db.example.com:5432'] }],
          alerts: { receivers: [{ name: 'default', webhookUrl: 'http://127.0.0.1:9/' }] },
        }),
      ),
    );
    const result = await amtool('check-config', 'plain.yaml');
    expect(result.output).toContain('SUCCESS');
    expect(result.ok).toBe(true);
  });

  const ROUTES: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
    ['a page goes to the receiver of critical alerts', { alertname: 'EndpointDown', job: 'Web sites (EU)', instance: 'https://shop.example.com/health?full=1', severity: 'critical' }, 'pager'],
    [
      "one location's failure is a warning: to the receiver of warnings, never the pager",
      { alertname: 'EndpointDownFromLocation', job: 'Web sites (EU)', location: 'us', severity: 'warning' },
      'chat',
    ],
    ['a severity no receiver names goes to default', { alertname: 'Other', severity: 'page' }, 'default'],
    ["a page of a job with a window goes through the window's route to the pager", { alertname: 'EndpointDown', job: 'db', instance: 'db.example.com:5432', severity: 'critical' }, 'pager'],
    ['so does a page of the target a one-off window names', { alertname: 'EndpointDown', job: 'db', instance: 'db2.example.com:5432', severity: 'critical' }, 'pager'],
    ['a silent location is a warning', { alertname: 'ProbeLocationSilent', location: 'ap', severity: 'warning' }, 'chat'],
  ];

  it.each(ROUTES)('config routes test: %s', async (_name, labels, receiver) => {
    const result = await amtool('config', 'routes', 'test', '--config.file=alertmanager.yaml', ...Object.entries(labels).map(([name, value]) => `${name}=${value}`));
    expect(result.output.split('\n')[0]).toBe(receiver);
    expect(result.ok).toBe(true);
  });

  it('config routes shows each window route muted: the target of the one-off window by both windows, the rest of the job by the weekly one', async () => {
    const file = renderAlertmanagerConfig(spec) as { route: { routes: Array<{ matchers?: string[]; mute_time_intervals?: string[]; routes?: Array<{ mute_time_intervals?: string[] }> }> } };
    const [target, job] = file.route.routes;
    expect(target).toMatchObject({ matchers: ['job="db"', 'instance="db2.example.com:5432"'], mute_time_intervals: ['db-sunday', 'migration'] });
    expect(target.routes!.map((route) => route.mute_time_intervals)).toEqual([
      ['db-sunday', 'migration'],
      ['db-sunday', 'migration'],
    ]);
    expect(job).toMatchObject({ matchers: ['job="db"'], mute_time_intervals: ['db-sunday'] });
    const tree = await amtool('config', 'routes', '--config.file=alertmanager.yaml');
    expect(tree.output).toContain('{instance="db2.example.com:5432",job="db"}');
  });

  it('would catch a file Alertmanager refuses (the check is real)', async () => {
    writeFileSync(join(dir, 'broken.yaml'), renderAlertmanagerConfigYaml(spec).replace('- db-sunday', '- no-such-window'));
    const result = await amtool('check-config', 'broken.yaml');
    expect(result.ok).toBe(false);
    expect(result.output).toContain('no-such-window');
  });
});

describe("the Operator's AlertmanagerConfig", () => {
  const object = renderAlertmanagerConfigObject('blackbox-exporter-alerts', operatorSpec, { namespace: 'monitoring', labels: { release: 'kps' } });

  it("validates against the Operator's schema (v1alpha1), with the same routes, receivers, inhibition and windows in UTC", async () => {
    expect(await operatorSchemaProblems([object])).toEqual([undefined]);
    const route = object.spec.route as { routes: Array<{ matchers?: unknown[]; muteTimeIntervals?: string[] }> };
    expect(route.routes[1]).toMatchObject({ matchers: [{ name: 'job', value: 'db', matchType: '=' }], muteTimeIntervals: ['db-sunday'] });
    expect(object.spec.muteTimeIntervals).toEqual([
      {
        name: 'db-sunday',
        timeIntervals: [
          { times: [{ startTime: '21:00', endTime: '24:00' }], weekdays: ['sunday'] },
          { times: [{ startTime: '00:00', endTime: '01:00' }], weekdays: ['monday'] },
        ],
      },
      {
        name: 'migration',
        timeIntervals: [
          { times: [{ startTime: '21:00', endTime: '24:00' }], daysOfMonth: [{ start: 1, end: 1 }], months: ['3'], years: ['2026'] },
          { times: [{ startTime: '00:00', endTime: '24:00' }], daysOfMonth: [{ start: 2, end: 3 }], months: ['3'], years: ['2026'] },
          { times: [{ startTime: '00:00', endTime: '02:00' }], daysOfMonth: [{ start: 4, end: 4 }], months: ['3'], years: ['2026'] },
        ],
      },
    ]);
    expect(object.spec.inhibitRules).toHaveLength(1);
  });

  it("would catch an object the schema refuses (a day that is no week day's name)", async () => {
    const broken = JSON.parse(JSON.stringify(object).replace('"sunday"', '"someday"')) as object;
    expect((await operatorSchemaProblems([broken]))[0]).toContain('weekdays');
  });
});
