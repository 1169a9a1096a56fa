/**
 * Choosing the address to probe: every prober that starts from a host name resolves it here, with the
 * module's preferred_ip_protocol and ip_protocol_fallback, and records the same three metrics upstream
 * records (probe_dns_lookup_time_seconds, probe_ip_protocol, probe_ip_addr_hash), even when resolution fails.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { PROBE_DNS_LOOKUP_TIME, PROBE_IP_ADDR_HASH, PROBE_IP_PROTOCOL, gauge, type ProbeRegistry } from '../../metrics';
import type { ProbeDeadline, ProbeLogger } from '../types';
import { beforeDeadline } from './deadline';
import { unbracket } from './host-port';
import { ipBytes } from './ip-bytes';
import type { IpFamily, IpPreference } from './ip-protocol';
import type { TargetGuard } from './target-guard';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: IpFamily;
  /** Seconds spent resolving, the value recorded in probe_dns_lookup_time_seconds. */
  readonly lookupSeconds: number;
}

export interface LookupResult {
  readonly address: string;
  readonly family: number;
}

/** The system resolver (getaddrinfo, so /etc/hosts counts), as Go's resolver does for blackbox_exporter. */
export type Lookup = (host: string, family: 0 | IpFamily) => Promise<LookupResult[]>;

const systemLookup: Lookup = (host, family) => dns.lookup(host, { all: true, family, verbatim: true });

/** 32-bit FNV-1a over the address's bytes (4 for IPv4, 16 for IPv6), the value of probe_ip_addr_hash. */
export function ipAddressHash(address: string): number {
  let hash = 0x811c9dc5;
  for (const byte of ipBytes(address)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * Resolves `host` to one address following upstream's rules, with the module's preferred_ip_protocol and
 * ip_protocol_fallback (`ip`): without fallback, only the preferred family
 * counts; with fallback, the first address of the preferred family, else the last of the other one.
 * Rejects (after recording the metrics) when no address fits or the deadline passes. With a `guard` (an
 * allow-list applies), rejects with TargetRefused a host it refuses before resolving it, and an address
 * it refuses at `port` (none for ICMP) once chosen: the address checked is the address dialled.
 */
export async function resolveTargetAddress(
  host: string,
  ip: IpPreference,
  deadline: ProbeDeadline,
  registry: ProbeRegistry,
  logger: ProbeLogger,
  guard?: TargetGuard,
  port?: number,
  lookup: Lookup = systemLookup,
): Promise<ResolvedAddress> {
  const protocolGauge = gauge(registry, PROBE_IP_PROTOCOL);
  const lookupGauge = gauge(registry, PROBE_DNS_LOOKUP_TIME);
  const hashGauge = gauge(registry, PROBE_IP_ADDR_HASH);

  const preferred = ip.preferred;
  const other: IpFamily = preferred === 4 ? 6 : 4;
  const name = unbracket(host);
  guard?.checkHost(name);
  logger.debug('Resolving target address', { target: name, ip_protocol: `ip${preferred}` });
  const started = performance.now();
  const elapsed = (): number => (performance.now() - started) / 1000;

  let resolved: ResolvedAddress;
  try {
    const candidates = await beforeDeadline(deadline, 'resolve', candidatesFor(name, ip.fallback ? 0 : preferred, lookup));
    const chosen = candidates.find((candidate) => candidate.family === preferred) ?? (ip.fallback ? candidates.filter((candidate) => candidate.family === other).pop() : undefined);
    if (!chosen) {
      throw new Error(ip.fallback ? `no address found for ${name}` : `no ip${preferred} address found for ${name} and ip_protocol_fallback is false`);
    }
    const family = chosen.family as IpFamily;
    const lookupSeconds = elapsed();
    lookupGauge.set(lookupSeconds);
    protocolGauge.set(family);
    hashGauge.set(ipAddressHash(chosen.address));
    logger.debug('Resolved target address', { target: name, ip: chosen.address });
    resolved = { address: chosen.address, family, lookupSeconds };
  } catch (error) {
    lookupGauge.set(elapsed());
    logger.error('Resolution with IP protocol failed', { target: name, err: (error as Error).message });
    throw error;
  }
  guard?.checkAddress(name, resolved.address, port);
  return resolved;
}

/** An IP literal is its own answer (the system resolver would ignore the family asked for). */
async function candidatesFor(name: string, family: 0 | IpFamily, lookup: Lookup): Promise<LookupResult[]> {
  const literal = isIP(name);
  if (literal !== 0) return family === 0 || family === literal ? [{ address: name, family: literal }] : [];
  return lookup(name, family);
}
