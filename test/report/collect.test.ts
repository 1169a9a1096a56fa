import { bucketCount, collectReport, PrometheusFailure, type PrometheusApi } from '../../src/report';
import type { Sample } from '../../src/report/incidents';

interface FakeSeries {
  readonly metric: Record<string, string>;
  readonly samples: readonly Sample[];
}

/**
 * A Prometheus holding probe_success series in memory, answering the queries collectReport asks as Prometheus 2
 * does (a range selector takes the samples at both of its ends); the other figures come from `figures` by metric.
 */
function fakePrometheus(series: readonly FakeSeries[], figures: Record<string, Array<{ metric: Record<string, string>; value: number }>> = {}) {
  const asked: string[] = [];
  const within = (samples: readonly Sample[], end: number, seconds: number) => samples.filter(([time]) => time >= end - seconds && time <= end);
  const rangeSeconds = (query: string) => {
    const [, amount, unit] = /\[(\d+)(ms|s)\]/.exec(query)!;
    return Number(amount) / (unit === 'ms' ? 1000 : 1);
  };
  const average = (samples: readonly Sample[]) => samples.reduce((sum, [, value]) => sum + value, 0) / samples.length;
  const api: PrometheusApi = {
    shownUrl: 'http://prometheus.test:9090',
    async instant(query, time) {
      asked.push(query);
      const seconds = rangeSeconds(query);
      if (query.startsWith('avg_over_time(probe_success') || query.startsWith('count_over_time(probe_success')) {
        const count = query.startsWith('count');
        return series.flatMap(({ metric, samples }) => {
          const inside = within(samples, time, seconds);
          return inside.length === 0 ? [] : [{ metric, value: count ? inside.length : average(inside) }];
        });
      }
      const key = Object.keys(figures).find((name) => query.includes(name));
      return key === undefined ? [] : figures[key]!;
    },
    async range(query, start, end, step) {
      asked.push(query);
      const seconds = rangeSeconds(query);
      return series.map(({ metric, samples }) => {
        const values: Array<readonly [number, number]> = [];
        for (let time = start; time <= end + 1e-9; time += step) {
          const inside = within(samples, time, seconds);
          if (inside.length > 0) values.push([time, average(inside)]);
        }
        return { metric: { job: metric.job!, instance: metric.instance!, ...(metric.location ? { location: metric.location } : {}) }, value: values };
      });
    },
    async samples(query, time) {
      asked.push(query);
      const instances = new RegExp(`^(?:${JSON.parse(/instance=~("(?:[^"\\]|\\.)*")/.exec(query)![1]!) as string})$`);
      return series.filter(({ metric }) => instances.test(metric.instance!)).map(({ metric, samples }) => ({ metric, value: within(samples, time, rangeSeconds(query)) }));
    },
  };
  return { api, asked };
}

/** One sample every 30 s from `from` to `to`, failed where `failed` says. */
function samples(from: number, to: number, failed: (time: number) => boolean = () => false): Sample[] {
  const result: Sample[] = [];
  for (let time = from + 15; time <= to; time += 30) result.push([time, failed(time) ? 0 : 1]);
  return result;
}

const FROM = 1_800_000_000;
const TO = FROM + 3_600;
const window = { from: FROM, to: TO, window: '1h', jobs: ['web'], slos: { web: 99 }, generatedAt: new Date(TO * 1000) };

describe('collectReport', () => {
  it('cuts a window into up to 120 equal buckets of whole milliseconds, of a second at least', () => {
    expect([2_592_000, 604_800, 5_833, 3_600, 45, 1].map(bucketCount)).toEqual([120, 120, 100, 120, 45, 1]);
  });

  it("reports Prometheus' uptime, and incidents from the samples of only the buckets that hold failures and the bucket after each", async () => {
    const steady = { metric: { job: 'web', instance: 'https://a.example', module: 'http_2xx' }, samples: samples(FROM, TO) };
    const flaky = {
      metric: { job: 'web', instance: 'https://b.example/?q=(1)', module: 'http_2xx' },
      samples: samples(FROM, TO, (time) => (time > FROM + 600 && time < FROM + 700) || time > FROM + 3_500),
    };
    const { api, asked } = fakePrometheus([steady, flaky]);
    const report = await collectReport(api, window);

    expect(report).toMatchObject({ from: '2027-01-15T08:00:00.000Z', to: '2027-01-15T09:00:00.000Z', windowSeconds: 3_600, bucketSeconds: 30 });
    expect(report.targets.map(({ instance, uptimePercent, samples: count }) => ({ instance, uptimePercent, count }))).toEqual([
      { instance: 'https://a.example', uptimePercent: 100, count: 120 },
      { instance: 'https://b.example/?q=(1)', uptimePercent: (1 - 6 / 120) * 100, count: 120 },
    ]);
    expect(report.targets[1]!.incidents).toEqual([
      { start: new Date((FROM + 615) * 1000).toISOString(), end: new Date((FROM + 705) * 1000).toISOString(), seconds: 90 },
      { start: new Date((FROM + 3_525) * 1000).toISOString(), end: null, seconds: 75 },
    ]);
    expect(report.targets[0]!.incidents).toEqual([]);
    // 6 failed samples, each alone in its 30 s bucket: 6 buckets and the one after the first run.
    const sampleQueries = asked.filter((query) => query.startsWith('probe_success{'));
    expect(sampleQueries).toHaveLength(7);
    expect(sampleQueries.every((query) => query.includes('instance=~"https://b\\\\.example/\\\\?q=\\\\(1\\\\)"'))).toBe(true);
    expect(report.targets[1]!.timeline.filter((value) => value !== 100)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(report.targets[1]!.errorBudgetRemainingPercent).toBeCloseTo(((1 - (6 / 120) * 100) / 1) * 100, 9);
    expect(report.jobs).toEqual([
      {
        job: 'web',
        targets: 2,
        uptimePercent: (100 + (1 - 6 / 120) * 100) / 2,
        incidents: 2,
        downtimeSeconds: 165,
        slo: 99,
        errorBudgetRemainingPercent: expect.any(Number),
        locations: [],
      },
    ]);
  });

  it("lists the spec's targets that have no series in the window, once whatever their locations, and counts them in no figure", async () => {
    const seen = { metric: { job: 'web', instance: 'https://a.example', location: 'eu' }, samples: samples(FROM, TO) };
    const alsoSeen = { metric: { job: 'web', instance: 'https://a.example', location: 'us' }, samples: samples(FROM, TO, () => true) };
    const { api } = fakePrometheus([seen, alsoSeen]);
    const expected = { web: ['https://a.example', 'https://never.example', 'https://never.example'], api: ['tcp.example:443'] };
    const report = await collectReport(api, { ...window, jobs: ['web', 'api'], expected });

    expect(report.unseen).toEqual([
      { job: 'web', instance: 'https://never.example' },
      { job: 'api', instance: 'tcp.example:443' },
    ]);
    expect(report.jobs).toEqual([expect.objectContaining({ job: 'web', targets: 2, uptimePercent: 50 })]);
    expect((await collectReport(api, window)).unseen).toEqual([]);
  });

  it('tells targets apart by location, and reads the durations, the slowest phase and the certificate per target', async () => {
    const at = (location: string) => ({ job: 'web', instance: 'https://a.example', location });
    const { api } = fakePrometheus(
      [
        { metric: { ...at('eu'), module: 'm' }, samples: samples(FROM, TO) },
        { metric: { ...at('us'), module: 'm' }, samples: samples(FROM, TO, (time) => time < FROM + 100) },
      ],
      {
        'quantile_over_time(0.5,': [{ metric: at('eu'), value: 0.04 }],
        'quantile_over_time(0.95,': [{ metric: at('eu'), value: 0.2 }],
        'phase)': [
          { metric: { ...at('eu'), phase: 'connect' }, value: 0.01 },
          { metric: { ...at('eu'), phase: 'tls' }, value: 0.03 },
          { metric: { ...at('eu'), phase: 'processing' }, value: 0.02 },
        ],
        probe_ssl_earliest_cert_expiry: [{ metric: at('eu'), value: TO + 10.5 * 86_400 }],
      },
    );
    const report = await collectReport(api, { ...window, slos: {} });
    expect(report.jobs[0]!.locations).toEqual(['eu', 'us']);
    expect(report.targets.map((target) => [target.location, target.incidents.length])).toEqual([
      ['eu', 0],
      ['us', 1],
    ]);
    expect(report.targets[0]).toMatchObject({
      durationSeconds: { p50: 0.04, p95: 0.2 },
      slowestPhase: { phase: 'tls', seconds: 0.03 },
      certificateDaysLeft: 10,
      slo: null,
      errorBudgetRemainingPercent: null,
    });
    expect(report.targets[1]).toMatchObject({ durationSeconds: null, slowestPhase: null, certificateDaysLeft: null });
  });

  it('fails naming the URL, the jobs and the window when Prometheus has no probe_success series for them', async () => {
    const { api } = fakePrometheus([]);
    await expect(collectReport(api, window)).rejects.toThrow(
      new PrometheusFailure(
        `Prometheus at http://prometheus.test:9090 has no probe_success series of job "web" between 2027-01-15T08:00:00.000Z and 2027-01-15T09:00:00.000Z; check --job (and --spec) and the window, and that Prometheus scrapes probekit's jobs`,
      ),
    );
  });
});
