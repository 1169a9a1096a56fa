/**
 * Names of the metrics the exporter returns, with their help text: blackbox_exporter's names, so that
 * dashboards and alerts written for it keep working. Defined here once; probers and the handler import them.
 */
import { Gauge, type Registry } from 'prom-client';
export interface MetricDefinition {
  readonly name: string;
  readonly help: string;
}

function metric(name: string, help: string): MetricDefinition {
  return { name, help };
}

/** A gauge for `metric` in `registry` (each probe has its own registry). */
export function gauge(registry: Registry, metric: MetricDefinition, labelNames: readonly string[] = []): Gauge {
  return new Gauge({ name: metric.name, help: metric.help, labelNames, registers: [registry] });
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

/** Set by the http prober. */
export const PROBE_HTTP_DURATION = metric('probe_http_duration_seconds', 'Time spent in each phase of the HTTP request, summed over redirects, in seconds');
export const PROBE_HTTP_CONTENT_LENGTH = metric('probe_http_content_length', 'Content-Length of the final response (-1 when the server did not send one)');
export const PROBE_HTTP_UNCOMPRESSED_BODY_LENGTH = metric('probe_http_uncompressed_body_length', 'Bytes of the final response body after decompression');
export const PROBE_HTTP_REDIRECTS = metric('probe_http_redirects', 'Number of redirects met');
export const PROBE_HTTP_SSL = metric('probe_http_ssl', 'Whether the final request used TLS');
export const PROBE_HTTP_STATUS_CODE = metric('probe_http_status_code', 'Status code of the final response (0 when none arrived)');
export const PROBE_HTTP_VERSION = metric('probe_http_version', 'HTTP version of the final response, as a number (1.1, 2)');
export const PROBE_FAILED_DUE_TO_REGEX = metric('probe_failed_due_to_regex', 'Whether a body or header regular expression check failed the probe');
export const PROBE_HTTP_LAST_MODIFIED = metric('probe_http_last_modified_timestamp_seconds', 'Last-Modified header of the final response, as a Unix timestamp');

/** The phases of probe_http_duration_seconds, always all present. */
export const HTTP_PHASES = ['resolve', 'connect', 'tls', 'processing', 'transfer'] as const;

/** The exporter's own metrics on /metrics. */
export const CONFIG_RELOAD_SUCCESS = metric('blackbox_exporter_config_last_reload_successful', 'Whether the last config reload succeeded');
export const CONFIG_RELOAD_SUCCESS_TIME = metric('blackbox_exporter_config_last_reload_success_timestamp_seconds', 'Unix time of the last successful config reload');
export const MODULE_UNKNOWN = metric('blackbox_module_unknown_total', 'Probes that asked for a module the config does not have');
export const BUILD_INFO = metric('blackbox_exporter_build_info', 'Constant 1, labelled with the exporter version and runtime');

/** Set by the tcp prober. */
export const PROBE_FAILED_DUE_TO_BYTES = metric('probe_failed_due_to_bytes', 'Whether an expect_bytes check failed the probe');
export const PROBE_EXPECT_INFO = metric('probe_expect_info', 'Constant 1, labelled with what query_response captured from the target');

/** Set by the dns prober. */
export const PROBE_DNS_DURATION = metric('probe_dns_duration_seconds', 'Time spent in each phase of the DNS query, in seconds');
export const PROBE_DNS_ANSWER_RRS = metric('probe_dns_answer_rrs', 'Number of records in the answer section');
export const PROBE_DNS_AUTHORITY_RRS = metric('probe_dns_authority_rrs', 'Number of records in the authority section');
export const PROBE_DNS_ADDITIONAL_RRS = metric('probe_dns_additional_rrs', 'Number of records in the additional section');
export const PROBE_DNS_QUERY_SUCCEEDED = metric('probe_dns_query_succeeded', 'Whether a response arrived (1), whatever its content');
export const PROBE_DNS_SERIAL = metric('probe_dns_serial', 'Serial of the zone, from the SOA record of an SOA query');

/** The phases of probe_dns_duration_seconds, always all present. */
export const DNS_PHASES = ['resolve', 'connect', 'request'] as const;

/** Set by the icmp prober. */
export const PROBE_ICMP_DURATION = metric('probe_icmp_duration_seconds', 'Time spent in each phase of the ICMP echo, in seconds');
export const PROBE_ICMP_REPLY_HOP_LIMIT = metric('probe_icmp_reply_hop_limit', 'TTL (IPv4) or hop limit (IPv6) of the echo reply');

/** The phases of probe_icmp_duration_seconds, always all present. */
export const ICMP_PHASES = ['resolve', 'setup', 'rtt'] as const;

/** Set by the grpc prober. */
export const PROBE_GRPC_DURATION = metric('probe_grpc_duration_seconds', 'Time spent in each phase of the gRPC health check, in seconds');
export const PROBE_GRPC_SSL = metric('probe_grpc_ssl', 'Whether the health check was answered over TLS');
export const PROBE_GRPC_STATUS_CODE = metric('probe_grpc_status_code', 'gRPC status code of the health check call (0 is OK)');
export const PROBE_GRPC_HEALTHCHECK_RESPONSE = metric('probe_grpc_healthcheck_response', 'Serving status the health check answered: 1 for the one given, 0 for the others');

/** The phases of probe_grpc_duration_seconds, always all present: upstream names them resolve and check. */
export const GRPC_PHASES = ['resolve', 'check'] as const;
