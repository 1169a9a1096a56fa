/**
 * Names of the metrics the exporter returns, with their help text: blackbox_exporter's names, so that
 * dashboards and alerts written for it keep working. Here are the ones several probers or the server
 * set; each prober's own sit in its folder (metrics.ts).
 */
export interface MetricDefinition {
  readonly name: string;
  readonly help: string;
}

export function metric(name: string, help: string): MetricDefinition {
  return { name, help };
}

/** The content types of the two text formats, as prom-client names them for the exporter's own /metrics. */
export const PROMETHEUS_TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

export type LabelValues = Readonly<Record<string, string | number>>;

export interface GaugeSample {
  labels: LabelValues;
  value: number;
}

/** A metric of a probe as the contract hands it out: prom-client's JSON shape, so callers read either alike. */
export interface GaugeJson {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge';
  readonly values: readonly GaugeSample[];
}

/**
 * A gauge of one probe: prom-client's Gauge semantics (set, inc; a gauge without labels starts at 0; a label
 * set is one sample whatever the order of its keys; a label not declared is a bug and throws) without what a
 * long-lived metric needs. A probe makes some twenty gauges and writes them once; prom-client's constructor
 * and writer allocated a third of everything a probe allocated (docs/benchmarks.md).
 */
export class ProbeGauge {
  readonly type = 'gauge';
  private readonly samples: GaugeSample[] = [];

  constructor(
    private readonly definition: MetricDefinition,
    readonly labelNames: readonly string[],
  ) {
    if (labelNames.length === 0) this.samples.push({ labels: NO_LABELS, value: 0 });
  }

  get name(): string {
    return this.definition.name;
  }

  get help(): string {
    return this.definition.help;
  }

  set(value: number): void;
  set(labels: LabelValues, value: number): void;
  set(labelsOrValue: LabelValues | number, value?: number): void {
    if (typeof labelsOrValue === 'number') this.sampleFor(NO_LABELS, labelsOrValue).value = labelsOrValue;
    else this.sampleFor(labelsOrValue, value).value = value as number;
  }

  inc(labels: LabelValues = NO_LABELS, by = 1): void {
    this.sampleFor(labels, by).value += by;
  }

  get(): GaugeJson {
    return { name: this.name, help: this.help, type: this.type, values: this.samples.map(({ labels, value }) => ({ labels, value })) };
  }

  /** Its lines in the text formats: HELP, TYPE, then each sample, its labels in the order they were given. */
  text(): string {
    const name = this.name;
    let block = gaugeHeader(this.definition);
    for (const { labels, value } of this.samples) {
      let labelText = '';
      for (const label in labels) labelText += `${labelText === '' ? '' : ','}${label}="${escapedLabelValue(labels[label])}"`;
      block += `\n${name}${labelText === '' ? '' : `{${labelText}}`} ${sampleValue(value)}`;
    }
    return block;
  }

  private sampleFor(labels: LabelValues, value: unknown): GaugeSample {
    if (typeof value !== 'number') throw new TypeError(`Value of ${this.name} is not a number: ${String(value)}`);
    for (const label in labels) {
      if (!this.labelNames.includes(label)) throw new Error(`Label ${label} is not among the labels of ${this.name} (${this.labelNames.join(', ')})`);
    }
    // Loops, not find/every: this runs for every sample a probe sets, and closures are allocations.
    let sample: GaugeSample | undefined;
    for (const each of this.samples) {
      if (sameLabelSet(this.labelNames, each.labels, labels)) {
        sample = each;
        break;
      }
    }
    if (sample === undefined) {
      sample = { labels, value: 0 };
      this.samples.push(sample);
    }
    // As prom-client: the labels last given are the ones written.
    sample.labels = labels;
    return sample;
  }
}

/** The metrics of one probe, in the order they were made, written once in the format the scrape asked for. */
export class ProbeRegistry {
  readonly contentType: string;
  private readonly gauges: ProbeGauge[] = [];

  constructor(openMetrics = false) {
    this.contentType = openMetrics ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_TEXT_CONTENT_TYPE;
  }

  /** A new gauge for `metric`; a name made twice is a bug, as in prom-client. */
  gauge(metric: MetricDefinition, labelNames: readonly string[] = NO_LABEL_NAMES): ProbeGauge {
    if (this.getSingleMetric(metric.name)) throw new Error(`A metric named ${metric.name} is already in this probe's registry`);
    const made = new ProbeGauge(metric, labelNames);
    this.gauges.push(made);
    return made;
  }

  getSingleMetric(name: string): ProbeGauge | undefined {
    for (const each of this.gauges) if (each.name === name) return each;
    return undefined;
  }

  getMetricsAsJSON(): GaugeJson[] {
    return this.gauges.map((each) => each.get());
  }

  /** The text prom-client's `metrics()` writes for the same gauges, in the registry's format. */
  text(): string {
    const blocks = this.gauges.map((each) => each.text());
    return this.contentType === OPENMETRICS_CONTENT_TYPE ? `${blocks.join('\n')}\n# EOF\n` : `${blocks.join('\n\n')}\n`;
  }
}

const NO_LABELS: LabelValues = Object.freeze({});
const NO_LABEL_NAMES: readonly string[] = Object.freeze([]);

/** Whether two label sets name the same sample: prom-client compares the values as text. */
function sameLabelSet(names: readonly string[], one: LabelValues, other: LabelValues): boolean {
  for (const name of names) if (String(one[name]) !== String(other[name])) return false;
  return true;
}

const gaugeHeaders = new WeakMap<MetricDefinition, string>();

/** A gauge's HELP and TYPE lines, written once per metric definition rather than once per probe. */
function gaugeHeader(definition: MetricDefinition): string {
  let header = gaugeHeaders.get(definition);
  if (header === undefined) {
    header = `# HELP ${definition.name} ${escaped(definition.help)}\n# TYPE ${definition.name} gauge`;
    gaugeHeaders.set(definition, header);
  }
  return header;
}

/** Help text and label values escaped as the text formats want them (backslash, newline; quotes in label values). */
const escaped = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapedLabelValue = (value: unknown): string => (typeof value === 'string' ? escaped(value).replace(/"/g, '\\"') : String(value));

function sampleValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return String(value);
}

/** A gauge for `metric` in `registry` (each probe has its own registry). */
export function gauge(registry: ProbeRegistry, metric: MetricDefinition, labelNames: readonly string[] = NO_LABEL_NAMES): ProbeGauge {
  return registry.gauge(metric, labelNames);
}

/** A gauge of seconds by `phase`, every phase present from the start (0 until timed), as upstream reports them. */
export function phaseGauge(registry: ProbeRegistry, metric: MetricDefinition, phases: readonly string[]): ProbeGauge {
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
/** Why a probe worker (--probe.workers) was replaced: held past a probe's deadline, or stopped by itself. */
export type WorkerReplacementCause = 'deadline' | 'stopped';
export const PROBE_WORKER_REPLACEMENTS = metric(
  'probekit_exporter_probe_worker_replacements_total',
  "Probe worker threads replaced, by cause: deadline (it held a probe past the probe's deadline and the grace, and was terminated) or stopped (it ended by itself, such as out of memory)",
);
export const TARGETS_REFUSED = metric('probekit_exporter_targets_refused_total', 'Probe targets and redirect hops refused by allowed_targets, by module and reason');
/** Ours: what `/sd/<job>` (--sd.targets-dir) serves, and how its requests were answered. */
export const SD_TARGETS = metric('probekit_exporter_sd_targets', 'Targets /sd/<job> serves, by job, as the target files of --sd.targets-dir last loaded them');
export const SD_REQUESTS = metric(
  'probekit_exporter_sd_requests_total',
  'Requests to /sd/<job>, by status code: 200 (the groups), 304 (unchanged since the If-None-Match ETag), 404 (no such job), 405',
);
