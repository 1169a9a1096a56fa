/** The metrics only the dns prober sets, with upstream's names. */
import { metric } from '../../metrics';

export const PROBE_DNS_DURATION = metric('probe_dns_duration_seconds', 'Time spent in each phase of the DNS query, in seconds');
export const PROBE_DNS_ANSWER_RRS = metric('probe_dns_answer_rrs', 'Number of records in the answer section');
export const PROBE_DNS_AUTHORITY_RRS = metric('probe_dns_authority_rrs', 'Number of records in the authority section');
export const PROBE_DNS_ADDITIONAL_RRS = metric('probe_dns_additional_rrs', 'Number of records in the additional section');
export const PROBE_DNS_QUERY_SUCCEEDED = metric('probe_dns_query_succeeded', 'Whether a response arrived (1), whatever its content');
export const PROBE_DNS_SERIAL = metric('probe_dns_serial', 'Serial of the zone, from the SOA record of an SOA query');

/** The phases of probe_dns_duration_seconds, always all present. */
export const DNS_PHASES = ['resolve', 'connect', 'request'] as const;
