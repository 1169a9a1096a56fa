/**
 * A probe's metrics, kept and written by the exporter's own registry, read exactly as prom-client (the
 * library the exporter's own /metrics uses, and whose text the reference's format matches) writes the same
 * gauges, in both formats, with the label values and numbers that need care; and they keep prom-client's
 * Gauge semantics.
 */
import { Gauge, Registry, type OpenMetricsContentType } from 'prom-client';
import { OPENMETRICS_CONTENT_TYPE, PROMETHEUS_TEXT_CONTENT_TYPE, ProbeRegistry, metric, phaseGauge, type LabelValues, type MetricDefinition } from '../src/metrics';

/** What a probe does with its gauges, done to ours and to prom-client's alike. */
type Writes = (
  make: (definition: MetricDefinition, labelNames?: string[]) => { set(labels: LabelValues, value: number): void; set(value: number): void; inc(labels: LabelValues, by?: number): void },
) => void;

const probeLike: Writes = (make) => {
  make(metric('probe_success', 'Whether the probe succeeded (1) or failed (0)')).set(1);
  const phases = make(metric('probe_http_duration_seconds', 'Duration of http request by phase, summed over all redirects'), ['phase']);
  for (const [phase, seconds] of [
    ['resolve', 0],
    ['connect', 0.000123],
    ['tls', 1e-7],
  ] as const)
    phases.set({ phase }, seconds);
  phases.inc({ phase: 'connect' }, 0.5);
  phases.inc({ phase: 'transfer' }, 0.25);
  const info = make(metric('probe_ssl_last_chain_info', 'Contains SSL leaf certificate information\nsecond line \\ with a backslash'), ['fingerprint_sha256', 'subject', 'issuer']);
  info.set({ fingerprint_sha256: 'ab12', subject: 'CN=a "quoted" name\\with\nnewline', issuer: 'O=Example,CN=CA' }, 1);
  const odd = make(metric('probe_odd_values', 'Values that are not plain numbers'), ['kind']);
  odd.set({ kind: 'nan' }, NaN);
  odd.set({ kind: 'up' }, Infinity);
  odd.set({ kind: 'down' }, -Infinity);
  odd.set({ kind: 'large' }, 1.5e21);
  odd.set({ kind: 2 }, 3);
  make(metric('probe_never_set', 'A gauge with labels and no sample'), ['label']);
  make(metric('probe_zero', 'A gauge without labels never set'));
  const two = make(metric('probe_two_labels', 'The same label set given in another order is the same sample'), ['a', 'b']);
  two.set({ a: 'x', b: 'y' }, 1);
  two.set({ b: 'y', a: 'x' }, 2);
  two.set({ a: 'x' }, 5);
};

describe('ProbeRegistry', () => {
  it.each([false, true])('writes what prom-client writes for the same gauges (OpenMetrics: %s)', async (openMetrics) => {
    const ours = new ProbeRegistry(openMetrics);
    const theirs = new Registry();
    if (openMetrics) (theirs as unknown as Registry<OpenMetricsContentType>).setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    probeLike((definition, labelNames = []) => ours.gauge(definition, labelNames));
    probeLike((definition, labelNames = []) => new Gauge({ name: definition.name, help: definition.help, labelNames, registers: [theirs] }));
    expect(ours.text()).toBe(await theirs.metrics());
    expect(ours.contentType).toBe(theirs.contentType);
    // Their JSON also says how to aggregate across workers, which a probe's metrics never are.
    expect(ours.getMetricsAsJSON()).toEqual((await theirs.getMetricsAsJSON()).map(({ name, help, type, values }) => ({ name, help, type, values })));
    expect(ours.text()).toContain('subject="CN=a \\"quoted\\" name\\\\with\\nnewline"');
    expect(ours.text()).toContain('probe_odd_values{kind="nan"} Nan');
    expect(ours.text()).toContain('probe_http_duration_seconds{phase="connect"} 0.500123');
  });

  it('names the content types prom-client names', () => {
    expect(PROMETHEUS_TEXT_CONTENT_TYPE).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
    expect(OPENMETRICS_CONTENT_TYPE).toBe(Registry.OPENMETRICS_CONTENT_TYPE);
  });

  it('refuses what is a bug in a prober: a name made twice, a label not declared, a value that is not a number', () => {
    const registry = new ProbeRegistry();
    const made = registry.gauge(metric('probe_x', 'x'), ['phase']);
    expect(() => registry.gauge(metric('probe_x', 'again'))).toThrow('A metric named probe_x is already in this probe');
    expect(() => made.set({ step: 'a' }, 1)).toThrow('Label step is not among the labels of probe_x (phase)');
    expect(() => made.set({ phase: 'a' }, '1' as unknown as number)).toThrow('Value of probe_x is not a number: 1');
    expect(registry.getSingleMetric('probe_x')).toBe(made);
    expect(registry.getSingleMetric('probe_y')).toBeUndefined();
  });

  it('keeps every phase from the start, as upstream reports them', () => {
    const registry = new ProbeRegistry();
    phaseGauge(registry, metric('probe_dns_duration_seconds', 'by phase'), ['resolve', 'connect']).inc({ phase: 'connect' }, 0.25);
    expect(registry.text()).toBe(
      '# HELP probe_dns_duration_seconds by phase\n# TYPE probe_dns_duration_seconds gauge\nprobe_dns_duration_seconds{phase="resolve"} 0\nprobe_dns_duration_seconds{phase="connect"} 0.25\n',
    );
  });
});
