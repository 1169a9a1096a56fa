/** The metrics only the http prober sets, with upstream's names. */
import { metric } from '../../metrics';

export const PROBE_HTTP_DURATION = metric('probe_http_duration_seconds', 'Time spent in each phase of the HTTP request, summed over redirects, in seconds');
export const PROBE_HTTP_CONTENT_LENGTH = metric('probe_http_content_length', 'Content-Length of the final response (-1 when the server did not send one)');
export const PROBE_HTTP_UNCOMPRESSED_BODY_LENGTH = metric('probe_http_uncompressed_body_length', 'Bytes of the final response body after decompression');
export const PROBE_HTTP_REDIRECTS = metric('probe_http_redirects', 'Number of redirects met');
export const PROBE_HTTP_SSL = metric('probe_http_ssl', 'Whether the final request used TLS');
export const PROBE_HTTP_STATUS_CODE = metric('probe_http_status_code', 'Status code of the final response (0 when none arrived)');
export const PROBE_HTTP_VERSION = metric('probe_http_version', 'HTTP version of the final response, as a number (1.1, 2)');
export const PROBE_HTTP_LAST_MODIFIED = metric('probe_http_last_modified_timestamp_seconds', 'Last-Modified header of the final response, as a Unix timestamp');
export const PROBE_FAILED_DUE_TO_CEL = metric('probe_failed_due_to_cel', 'Whether a CEL check of the JSON body failed the probe');

/** The phases of probe_http_duration_seconds, always all present. */
export const HTTP_PHASES = ['resolve', 'connect', 'tls', 'processing', 'transfer'] as const;
