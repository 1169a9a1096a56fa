/**
 * The spec's alerting settings: locations and their label, the quorum, receivers, maintenance windows and downFor
 * against the scrape interval, each refusal naming the field and the fix.
 */
import { parseSpec, SpecError, type SpecInput } from '../../src/model';
import { problemsOf as problemsThrownBy } from '../support/problems';

const spec = (overrides: Partial<SpecInput> = {}): SpecInput => ({
  modules: { tcp: { prober: 'tcp' } },
  jobs: [
    { name: 'db', module: 'tcp', targets: ['db.example.com:5432', 'db2.example.com:5432'] },
    { name: 'cache', module: 'tcp', targets: ['cache.example.com:6379'] },
  ],
  ...overrides,
});

function problemsOf(input: unknown): readonly string[] {
  expect(() => parseSpec(input)).toThrow(SpecError);
  return problemsThrownBy(() => parseSpec(input));
}

describe('locations', () => {
  it("put the deployment's location on every job's labels, so on every series; a majority of locations must see a failure", () => {
    const located = parseSpec(spec({ location: 'eu', locations: ['eu', 'us', 'ap', 'sa'] }));
    expect(located.jobs.map((job) => job.labels)).toEqual([{ location: 'eu' }, { location: 'eu' }]);
    expect(located.alerts.failingLocations).toBe(3);
    expect(parseSpec(spec({ locations: ['eu', 'us', 'ap'] })).alerts.failingLocations).toBe(2);
    expect(parseSpec(spec({ location: 'eu' }))).toMatchObject({ location: 'eu', locations: ['eu'] });
    expect(parseSpec(spec({ location: 'eu' })).alerts.failingLocations).toBeUndefined();
  });

  it('refuses a location not among locations, a location twice, and a name that is no label value', () => {
    expect(problemsOf(spec({ location: 'eu', locations: ['us', 'ap', 'us'] }))).toEqual([
      'locations[2]: "us" is already locations[0]; list each location once',
      'location: "eu" is not one of locations (us, ap, us); add it to locations, or name one of them',
    ]);
    expect(problemsOf(spec({ location: 'EU West' }))).toEqual(['location: must be 1 to 63 lower-case letters, digits, -, _ and ., starting and ending with a letter or digit, for example eu-west-1']);
  });

  it('refuses failingLocations without two locations, or above their number', () => {
    expect(problemsOf(spec({ location: 'eu', alerts: { failingLocations: 1 } }))).toEqual([
      'alerts.failingLocations: counts locations that see a target fail, and the spec lists one; list two or more under locations, or remove failingLocations',
    ]);
    expect(problemsOf(spec({ locations: ['eu', 'us'], alerts: { failingLocations: 3 } }))).toEqual(['alerts.failingLocations: is 3, more than the 2 locations; at most 2']);
  });

  it("refuses a job's or a target's own location label: probekit sets it", () => {
    const input = spec({ location: 'eu', jobs: [{ name: 'db', module: 'tcp', labels: { location: 'x' }, targets: [{ target: 'db.example.com:5432', labels: { location: 'y' } }] }] });
    expect(problemsOf(input)).toEqual([
      'jobs[0].labels.location: is set by probekit to the location that probes (location: eu), which the rules count; remove it, or name the label otherwise',
      'jobs[0].targets[0].labels.location: is set by probekit to the location that probes (location: eu), which the rules count; remove it, or name the label otherwise',
    ]);
  });
});

describe('receivers and timings', () => {
  it('a receiver takes critical alerts unless it names its severities; default takes what no other does', () => {
    const routed = parseSpec(spec({ alerts: { receivers: [{ name: 'pager' }, { name: 'default', webhookUrl: 'https://hooks.example.com/' }], groupWait: '5s' } }));
    expect(routed.alerts.routing).toEqual({
      receivers: [
        { name: 'pager', severities: ['critical'] },
        { name: 'default', severities: [], webhookUrl: 'https://hooks.example.com/' },
      ],
      groupWait: '5s',
      groupInterval: '5m',
      repeatInterval: '4h',
    });
  });

  it('refuses a receiver named twice, a name Alertmanager cannot take, and timings that are no durations', () => {
    expect(problemsOf(spec({ alerts: { receivers: [{ name: 'pager' }, { name: 'on call' }] } }))).toEqual([
      'alerts.receivers[1].name: must be 1 to 63 letters, digits, - and _, starting with a letter, digit or _, for example oncall',
    ]);
    expect(problemsOf(spec({ alerts: { groupWait: 'soon', evaluationInterval: '0' } }))).toEqual([
      'alerts.evaluationInterval: "0" must be a Prometheus duration such as 5s, 1m30s or 500ms, more than 0',
      'alerts.groupWait: "soon" must be a Prometheus duration such as 5s, 1m30s or 500ms, more than 0',
    ]);
    expect(problemsOf(spec({ alerts: { receivers: [{ name: 'pager' }, { name: 'pager' }] } }))).toEqual([
      'alerts.receivers[1].name: "pager" is already alerts.receivers[0].name; name each receiver once',
    ]);
  });
});

describe('maintenance windows', () => {
  it('are kept with their time zone (UTC unless given)', () => {
    const windows = parseSpec(
      spec({
        maintenance: [
          { name: 'sunday', jobs: ['db'], weekly: { days: ['sunday'], from: '02:00', to: '04:00' } },
          { name: 'move', jobs: ['db'], targets: ['db2.example.com:5432'], once: { from: '2026-03-01T22:00:00+01:00', to: '2026-03-02T01:00:00+01:00' } },
        ],
      }),
    ).maintenance;
    expect(windows).toEqual([
      { name: 'sunday', jobs: ['db'], weekly: { days: ['sunday'], from: '02:00', to: '04:00', timezone: 'UTC' } },
      { name: 'move', jobs: ['db'], targets: ['db2.example.com:5432'], once: { from: '2026-03-01T22:00:00+01:00', to: '2026-03-02T01:00:00+01:00' } },
    ]);
  });

  it('refuses unknown jobs (with the closest name), targets not of those jobs, both or neither form, and a name twice', () => {
    expect(
      problemsOf(
        spec({
          maintenance: [
            {
              name: 'w',
              jobs: ['dbs'],
              targets: ['cache.example.com:6379'],
              weekly: { days: ['sunday'], from: '02:00', to: '04:00' },
              once: { from: '2026-03-01T22:00:00Z', to: '2026-03-01T23:00:00Z' },
            },
            { name: 'w', jobs: ['db'] },
          ],
        }),
      ),
    ).toEqual([
      'maintenance[0].jobs[0]: "dbs" is not a job of the spec; did you mean "db"? name one of: db, cache',
      'maintenance[0].targets[0]: "cache.example.com:6379" is not a target of dbs; list it as that job lists it, or add its job to jobs',
      'maintenance[0]: give one of weekly: { days, from, to, timezone } (every week) or once: { from, to } (RFC 3339 times)',
      'maintenance[1].name: "w" is already maintenance[0].name; name each window once',
      'maintenance[1]: give one of weekly: { days, from, to, timezone } (every week) or once: { from, to } (RFC 3339 times)',
    ]);
  });

  it('refuses times that are no times, an empty weekly window, an unknown time zone, a one-off window that ends first or not on a minute', () => {
    expect(
      problemsOf(
        spec({
          maintenance: [
            { name: 'a', jobs: ['db'], weekly: { days: ['sunday'], from: '25:00', to: '4am' } },
            { name: 'd', jobs: ['db'], once: { from: 'tomorrow', to: '2026-03-01T21:00:00' } },
          ],
        }),
      ),
    ).toEqual([
      'maintenance[0].weekly.from: must be a time of day as HH:MM, 00:00 to 23:59, such as 02:30',
      'maintenance[0].weekly.to: must be a time of day as HH:MM, 00:00 to 24:00, such as 02:30',
      'maintenance[1].once.from: must be an RFC 3339 time with its offset, such as 2026-03-01T22:00:00+01:00 or 2026-03-01T21:00:00Z',
      'maintenance[1].once.to: must be an RFC 3339 time with its offset, such as 2026-03-01T22:00:00+01:00 or 2026-03-01T21:00:00Z',
    ]);
    expect(
      problemsOf(
        spec({
          maintenance: [
            { name: 'b', jobs: ['db'], weekly: { days: ['sunday'], from: '02:00', to: '02:00', timezone: 'Mars/Olympus' } },
            { name: 'c', jobs: ['db'], once: { from: '2026-03-01T22:00:30Z', to: '2026-03-01T21:00:00Z' } },
          ],
        }),
      ),
    ).toEqual([
      'maintenance[0].weekly.to: is 02:00, as from is: the window would be empty; give the time it ends',
      'maintenance[0].weekly.timezone: "Mars/Olympus" is not an IANA time zone; write one such as Europe/Zurich, America/New_York or UTC',
      'maintenance[1].once.from: "2026-03-01T22:00:30Z" is not on a minute; Alertmanager\'s windows are in whole minutes, so drop the seconds',
      'maintenance[1].once.to: 2026-03-01T21:00:00Z is not after from (2026-03-01T22:00:30Z); give the time the window ends',
    ]);
  });

  it("refuses a weekly window outside UTC when the Operator's AlertmanagerConfig, which has no time zone, is made", () => {
    const zurich = { name: 'sunday', jobs: ['db'], weekly: { days: ['sunday' as const], from: '02:00', to: '04:00', timezone: 'Europe/Zurich' } };
    expect(problemsOf(spec({ operator: {}, maintenance: [zurich] }))).toEqual([
      "maintenance[0].weekly.timezone: is Europe/Zurich, but the Operator's AlertmanagerConfig (v1alpha1) has no time zone: its windows are UTC; write the window in UTC (timezone: UTC), or set operator.alertmanagerConfig: false and load <chart>.alertmanager.yaml, which keeps the zone",
    ]);
    expect(parseSpec(spec({ operator: { alertmanagerConfig: false }, maintenance: [zurich] })).maintenance[0].weekly!.timezone).toBe('Europe/Zurich');
  });
});

describe('downFor against the scrape interval', () => {
  it('refuses a downFor shorter than two intervals where it is written: the job, the spec, or (the default) the interval', () => {
    expect(problemsOf(spec({ jobs: [{ name: 'db', module: 'tcp', targets: ['db.example.com:5432'], scrapeInterval: '1m', alerts: { downFor: '90s' } }] }))).toEqual([
      'jobs[0].alerts.downFor: is 90s, shorter than two scrape intervals of job "db" (2 × 1m = 2m), so one failed probe would fire EndpointDown; raise downFor to at least 2m, or scrape more often',
    ]);
    expect(problemsOf(spec({ alerts: { thresholds: { downFor: '45s' } } }))).toEqual([
      'alerts.thresholds.downFor: is 45s, shorter than two scrape intervals of job "db" (2 × 30s = 1m), so one failed probe would fire EndpointDown; raise downFor to at least 1m, or scrape more often',
      'alerts.thresholds.downFor: is 45s, shorter than two scrape intervals of job "cache" (2 × 30s = 1m), so one failed probe would fire EndpointDown; raise downFor to at least 1m, or scrape more often',
    ]);
    expect(problemsOf(spec({ jobs: [{ name: 'db', module: 'tcp', targets: ['db.example.com:5432', { target: 'db2.example.com:5432', scrapeInterval: '3m' }] }] }))).toEqual([
      'jobs[0].targets[1].scrapeInterval: is 3m: the default downFor 5m is shorter than two scrape intervals of job "db" (2 × 3m = 6m), so one failed probe would fire EndpointDown; scrape at most every 2m30s, or set alerts.downFor to at least 6m',
    ]);
  });

  it('takes exactly two intervals', () => {
    expect(parseSpec(spec({ jobs: [{ name: 'db', module: 'tcp', targets: ['db.example.com:5432'], scrapeInterval: '1m', alerts: { downFor: '2m' } }] })).jobs[0].alerts.downFor).toBe('2m');
  });
});
