/**
 * The probe's metrics text, written by the exporter's own writer, is exactly what prom-client writes for the
 * same registry, in both formats, with the label values and numbers that need care.
 */
import { Counter, Gauge, Registry, type OpenMetricsContentType } from 'prom-client';
import { gauge, metric, probeMetricsText } from '../src/metrics';

function probeRegistry(openMetrics: boolean): Registry {
  const registry = new Registry();
  if (openMetrics) (registry as unknown as Registry<OpenMetricsContentType>).setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  gauge(registry, metric('probe_success', 'Whether the probe succeeded (1) or failed (0)')).set(1);
  const phases = gauge(registry, metric('probe_http_duration_seconds', 'Duration of http request by phase, summed over all redirects'), ['phase']);
  for (const [phase, seconds] of [
    ['resolve', 0],
    ['connect', 0.000123],
    ['tls', 1e-7],
  ] as const)
    phases.set({ phase }, seconds);
  const info = gauge(registry, metric('probe_ssl_last_chain_info', 'Contains SSL leaf certificate information\nsecond line \\ with a backslash'), ['fingerprint_sha256', 'subject', 'issuer']);
  info.set({ fingerprint_sha256: 'ab12', subject: 'CN=a "quoted" name\\with\nnewline', issuer: 'O=Example,CN=CA' }, 1);
  const odd = gauge(registry, metric('probe_odd_values', 'Values that are not plain numbers'), ['kind']);
  odd.set({ kind: 'nan' }, NaN);
  odd.set({ kind: 'up' }, Infinity);
  odd.set({ kind: 'down' }, -Infinity);
  odd.set({ kind: 'large' }, 1.5e21);
  gauge(registry, metric('probe_never_set', 'A gauge with labels and no sample'), ['label']);
  return registry;
}

describe('probeMetricsText', () => {
  it.each([false, true])('writes what prom-client writes (OpenMetrics: %s)', async (openMetrics) => {
    const registry = probeRegistry(openMetrics);
    const ours = await probeMetricsText(registry);
    expect(ours).toBe(await registry.metrics());
    expect(ours).toContain('subject="CN=a \\"quoted\\" name\\\\with\\nnewline"');
    expect(ours).toContain('probe_odd_values{kind="nan"} Nan');
  });

  it('leaves a registry with anything but gauges to prom-client', async () => {
    const registry = new Registry();
    (registry as unknown as Registry<OpenMetricsContentType>).setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    new Counter({ name: 'probe_things_total', help: 'Things', registers: [registry] }).inc(2);
    new Gauge({ name: 'probe_gauge', help: 'A gauge', registers: [registry] }).set(3);
    const ours = await probeMetricsText(registry);
    expect(ours).toBe(await registry.metrics());
    expect(ours).toContain('probe_things_total 2');
  });
});
