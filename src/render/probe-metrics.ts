/**
 * The metric names the dashboard, the alerts and `probekit test`'s table read: blackbox_exporter's, which the exporter keeps as a contract
 * with every dashboard and alert written for upstream. One place on this side, so that a rule and a panel cannot
 * spell a name two ways; the end-to-end test runs every query against the exporter's real output.
 */
export const PROBE_METRICS = {
  success: 'probe_success',
  duration: 'probe_duration_seconds',
  httpStatusCode: 'probe_http_status_code',
  httpVersion: 'probe_http_version',
  httpRedirects: 'probe_http_redirects',
  httpTls: 'probe_http_ssl',
  httpPhaseDuration: 'probe_http_duration_seconds',
  dnsLookupTime: 'probe_dns_lookup_time_seconds',
  tlsVersion: 'probe_tls_version_info',
  certificateExpiry: 'probe_ssl_earliest_cert_expiry',
  failedDueToRegex: 'probe_failed_due_to_regex',
  dnsAnswerRecords: 'probe_dns_answer_rrs',
  grpcHealthResponse: 'probe_grpc_healthcheck_response',
  icmpPhaseDuration: 'probe_icmp_duration_seconds',
  grpcPhaseDuration: 'probe_grpc_duration_seconds',
} as const;

/** The exporter's own metric: 1 when the last config (re)load succeeded, 0 when it failed and the previous config stays. */
export const CONFIG_RELOAD_SUCCESSFUL = 'blackbox_exporter_config_last_reload_successful';
