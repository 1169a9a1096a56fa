/** The metrics only the icmp prober sets, with upstream's names. */
import { metric } from '../../metrics';

export const PROBE_ICMP_DURATION = metric('probe_icmp_duration_seconds', 'Time spent in each phase of the ICMP echo, in seconds');
export const PROBE_ICMP_REPLY_HOP_LIMIT = metric('probe_icmp_reply_hop_limit', 'TTL (IPv4) or hop limit (IPv6) of the echo reply');

/** The phases of probe_icmp_duration_seconds, always all present. */
export const ICMP_PHASES = ['resolve', 'setup', 'rtt'] as const;
