/**
 * Why a probe failed, in words: the one list of reasons the exporter reports on /probe (ours, additive:
 * upstream's metrics keep their names and meanings), and that `probekit test`, the dashboard and the
 * assistant's skills show. A reason names a class of failure, never an error text, so the metric's
 * cardinality stays bounded by this list (times the timeout phases).
 */

/** Every reason a failed probe can give, in the order a probe meets them. */
export const FAILURE_REASONS = [
  /** The target or the module could not be used as given (a file the module names cannot be read). */
  'target or module not usable',
  /** The host name did not resolve, or not to an address of the family the module allows. */
  'resolve failed',
  /** The allow-list (allowed_targets) refused the target's host or address, or a redirect's. */
  'target refused',
  'connection refused',
  /** The connection could not be made or was lost otherwise: unreachable, reset, closed before the answer. */
  'connection failed',
  /** The deadline passed; the `phase` label says during what. */
  'timed out',
  'TLS handshake failed',
  /** The server's certificate did not verify: untrusted, expired, or for another name. */
  'certificate not valid',
  /** The answer did not follow its protocol (a malformed HTTP response or DNS message, a gRPC call error). */
  'protocol error',
  'HTTP status not accepted',
  /** The response's HTTP version, TLS use (fail_if_ssl, fail_if_not_ssl) or body size (body_size_limit) was not accepted. */
  'HTTP response not accepted',
  'body or header regexp failed',
  /** A fail_if_body_json_matches_cel or fail_if_body_json_not_matches_cel check failed, or the body was not JSON. */
  'body CEL expression failed',
  /** A tcp query_response step did not get the line or bytes it expects. */
  'query response not matched',
  'DNS rcode not accepted',
  'DNS records not accepted',
  /** The gRPC health check answered something else than SERVING, or the service is unknown to it. */
  'gRPC not serving',
  'ICMP no reply',
  /** The scrape that asked for the probe went away before it ended. */
  'probe interrupted',
  /** A fault of the exporter itself or of its install (the ICMP addon missing), said in the probe's log. */
  'internal error',
] as const;

export type FailureReason = (typeof FAILURE_REASONS)[number];

/** What a probe was doing when its deadline passed: the `phase` label of a `timed out` reason. */
export const TIMEOUT_PHASES = ['resolve', 'connect', 'tls', 'response', 'transfer'] as const;

export type TimeoutPhase = (typeof TIMEOUT_PHASES)[number];

/** Why one probe failed: a reason, and for a timeout the phase. */
export interface ProbeFailure {
  readonly reason: FailureReason;
  readonly phase?: TimeoutPhase;
  /**
   * What exactly was not accepted, naming the module's field, what came and what the field allows (`the server
   * answered HTTP/1.0; valid_http_versions allows HTTP/1.1`): for a person and the probe's log line, never a label.
   */
  readonly detail?: string;
}

/**
 * The metric: on a failed probe only, `probe_failure_reason{reason="connection refused"} 1` (with a `phase`
 * label for a timeout); a probe that succeeded has no sample of it.
 */
export const FAILURE_REASON_METRIC = {
  name: 'probe_failure_reason',
  help: 'Why the probe failed, in the reason label (and the phase label for a timeout); present only when probe_success is 0',
  labels: { reason: 'reason', phase: 'phase' },
} as const;

/** A failure in words for a person: `timed out (connect)`, `HTTP response not accepted: <detail>`. */
export function describeFailure(failure: ProbeFailure): string {
  const reason = failure.phase === undefined ? failure.reason : `${failure.reason} (${failure.phase})`;
  return failure.detail === undefined ? reason : `${reason}: ${failure.detail}`;
}
