/**
 * Names of the metrics the exporter returns, with their help text: blackbox_exporter's names, so that
 * dashboards and alerts written for it keep working. Here are the ones several probers or the server
 * set; each prober's own sit in its folder (metrics.ts).
 */
import { Gauge, Registry } from 'prom-client';
export interface MetricDefinition {
  readonly name: string;
  readonly help: string;
}

export function metric(name: string, help: string): MetricDefinition {
  return { name, help };
}

/** Help text and label values escaped as the text formats want them (backslash, newline; quotes in label values). */
const escaped = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapedLabelValue = (value: unknown): string => (typeof value === 'string' ? escaped(value).replace(/"/g, '\\"') : String(value));

function sampleValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return String(value);
}

/**
 * A probe's registry as text, in the format of its content type, the same text prom-client's `metrics()`
 * writes. A probe's registry is written once and holds gauges only (no default labels, no exemplars);
 * prom-client's writer, made for registries that live long, allocated about 40 KB per probe (objects per
 * sample, an async step per metric), the largest part of what a probe allocates (docs/benchmarks.md).
 * A registry with anything else goes through prom-client's writer.
 */
export async function probeMetricsText(registry: Registry): Promise<string> {
  const metrics = registry.getMetricsAsArray();
  if (!metrics.every((each) => each instanceof Gauge)) return registry.metrics();
  const blocks: string[] = [];
  for (const { name, help, type, values } of await Promise.all(metrics.map((each) => (each as Gauge).get()))) {
    const metricName = escaped(name);
    let block = `# HELP ${metricName} ${escaped(help)}\n# TYPE ${metricName} ${type}`;
    for (const { labels, value } of values) {
      let labelText = '';
      for (const label of Object.keys(labels)) labelText += `${labelText === '' ? '' : ','}${label}="${escapedLabelValue(labels[label])}"`;
      block += `\n${metricName}${labelText === '' ? '' : `{${labelText}}`} ${sampleValue(value)}`;
    }
    blocks.push(block);
  }
  // The registry type names one format; which one a probe's registry has is known only at run time.
  return (registry.contentType as string) === Registry.OPENMETRICS_CONTENT_TYPE ? `${blocks.join('\n')}\n# EOF\n` : `${blocks.join('\n\n')}\n`;
}

/** A gauge for `metric` in `registry` (each probe has its own registry). */
export function gauge(registry: Registry, metric: MetricDefinition, labelNames: readonly string[] = []): Gauge {
  return new Gauge({ name: metric.name, help: metric.help, labelNames, registers: [registry] });
}

/** A gauge of seconds by `phase`, every phase present from the start (0 until timed), as upstream reports them. */
export function phaseGauge(registry: Registry, metric: MetricDefinition, phases: readonly string[]): Gauge {
  const durations = gauge(registry, metric, ['phase']);
  for (const phase of phases) durations.set({ phase }, 0);
  return durations;
}

/** Set by the probe handler for every prober. */
export const PROBE_SUCCESS = metric('probe_success', 'Whether the probe succeeded (1) or failed (0)');
export const PROBE_DURATION = metric('probe_duration_seconds', 'How long the whole probe took, in seconds');

/** Set by the address helper shared by every prober that resolves a host name. */
export const PROBE_DNS_LOOKUP_TIME = metric('probe_dns_lookup_time_seconds', 'Time spent resolving the target host, in seconds');
export const PROBE_IP_PROTOCOL = metric('probe_ip_protocol', 'IP version the probe used: 4 or 6 (0 when resolution failed)');
export const PROBE_IP_ADDR_HASH = metric('probe_ip_addr_hash', 'FNV-1a 32-bit hash of the probed IP address; a change means the address changed');

/** Set by the TLS helper from an established TLS connection. */
export const PROBE_SSL_EARLIEST_CERT_EXPIRY = metric('probe_ssl_earliest_cert_expiry', 'Earliest expiry among the certificates the server sent, as a Unix timestamp');
export const PROBE_SSL_LAST_CHAIN_EXPIRY = metric('probe_ssl_last_chain_expiry_timestamp_seconds', 'Expiry of the verified chain that stays valid longest, as a Unix timestamp');
export const PROBE_SSL_LAST_CHAIN_INFO = metric('probe_ssl_last_chain_info', 'Leaf certificate of the connection, described by its labels');
export const PROBE_TLS_VERSION_INFO = metric('probe_tls_version_info', 'TLS version negotiated, in the version label');
export const PROBE_TLS_CIPHER_INFO = metric('probe_tls_cipher_info', 'TLS cipher suite negotiated, in the cipher label');

/** Set by the http and tcp probers when a regular expression check fails the probe. */
export const PROBE_FAILED_DUE_TO_REGEX = metric('probe_failed_due_to_regex', 'Whether a body or header regular expression check failed the probe');

/** Set by the query_response dialogue of the tcp and unix probers. */
export const PROBE_FAILED_DUE_TO_BYTES = metric('probe_failed_due_to_bytes', 'Whether an expect_bytes check failed the probe');
export const PROBE_EXPECT_INFO = metric('probe_expect_info', 'Constant 1, labelled with what query_response captured from the target');

/** The exporter's own metrics on /metrics. */
export const CONFIG_RELOAD_SUCCESS = metric('blackbox_exporter_config_last_reload_successful', 'Whether the last config reload succeeded');
export const CONFIG_RELOAD_SUCCESS_TIME = metric('blackbox_exporter_config_last_reload_success_timestamp_seconds', 'Unix time of the last successful config reload');
export const MODULE_UNKNOWN = metric('blackbox_module_unknown_total', 'Probes that asked for a module the config does not have');
export const BUILD_INFO = metric('blackbox_exporter_build_info', 'Constant 1, labelled with the exporter version and runtime');
/** Ours: targets and redirect hops allowed_targets refused, by module and reason (never the target: labels stay bounded). */
export const TARGETS_REFUSED = metric('probekit_exporter_targets_refused_total', 'Probe targets and redirect hops refused by allowed_targets, by module and reason');
