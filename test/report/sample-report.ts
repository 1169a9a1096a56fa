/** A report as collectReport makes one, for the renderers' tests: two jobs, one with an objective, over 30 days. */
import { errorBudgetRemaining, type Report, type TargetReport } from '../../src/report';

const BUCKETS = 120;

function timeline(down: ReadonlyArray<readonly [index: number, uptime: number]>): Array<number | null> {
  const line: Array<number | null> = new Array<number | null>(BUCKETS).fill(100);
  for (const [index, uptime] of down) line[index] = uptime;
  return line;
}

function target(job: string, instance: string, uptimePercent: number, slo: number | null, rest: Partial<TargetReport> = {}): TargetReport {
  return {
    job,
    instance,
    uptimePercent,
    samples: 86_400,
    incidents: [],
    timeline: timeline([]),
    durationSeconds: { p50: 0.042, p95: 0.131 },
    slowestPhase: { phase: 'processing', seconds: 0.031 },
    certificateDaysLeft: 61,
    slo,
    errorBudgetRemainingPercent: slo === null ? null : errorBudgetRemaining(uptimePercent, slo),
    ...rest,
  };
}

export function sampleReport(): Report {
  const targets: TargetReport[] = [
    target('checkout', 'https://shop.example.com/health', 99.95, 99.9, {
      incidents: [{ start: '2026-11-12T03:14:07.120Z', end: '2026-11-12T03:35:37.120Z', seconds: 1290 }],
      timeline: timeline([[57, 94.03]]),
    }),
    target('checkout', 'https://pay.example.com/health', 100, 99.9, { certificateDaysLeft: 5 }),
    target('internal', 'db-1.example.com:5432', 98.5, null, {
      incidents: [
        { start: '2026-11-20T10:00:00.000Z', end: '2026-11-20T19:43:00.000Z', seconds: 34_980 },
        { start: '2026-11-27T11:58:30.000Z', end: null, seconds: 90 },
      ],
      timeline: timeline([
        [88, 70],
        [89, 12.5],
        [119, 98.9],
      ]),
      durationSeconds: { p50: 0.0012, p95: 0.004 },
      slowestPhase: null,
      certificateDaysLeft: null,
    }),
  ];
  return {
    schemaVersion: 1,
    prometheus: 'http://prometheus.monitoring:9090',
    from: '2026-10-28T12:00:00.000Z',
    to: '2026-11-27T12:00:00.000Z',
    window: '30d',
    windowSeconds: 2_592_000,
    bucketSeconds: 21_600,
    generatedAt: '2026-11-27T12:00:05.000Z',
    jobs: [
      { job: 'checkout', targets: 2, uptimePercent: 99.975, incidents: 1, downtimeSeconds: 1290, slo: 99.9, errorBudgetRemainingPercent: errorBudgetRemaining(99.975, 99.9), locations: [] },
      { job: 'internal', targets: 1, uptimePercent: 98.5, incidents: 2, downtimeSeconds: 35_070, slo: null, errorBudgetRemainingPercent: null, locations: [] },
    ],
    targets,
    unseen: [],
  };
}
