/**
 * The allow-list at work: every prober asks the guard before it resolves a target's name and before it
 * dials the address chosen (./address.ts), and the http prober again for every redirect hop. A refusal is
 * an error the prober turns into the failure `target refused`; the guard keeps it, so the probe handler
 * can answer 403 when the target itself was refused, count it, and say why.
 */
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { hostMatches, inNetwork, METADATA_NETWORKS, parseNetwork, reachedBytes, relayedIpv4, type AllowList, type Network } from '../../config/allowed-targets';
import { ip16 } from './ip-bytes';

/** Why a target was refused, as the `reason` label of probekit_exporter_targets_refused_total: a short, fixed list. */
export const REFUSAL_REASONS = ['host_not_allowed', 'network_not_allowed', 'address_not_resolved', 'exporter_itself', 'link_local_or_metadata'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** The probe's target, or a host a redirect led to. */
export type RefusalStage = 'target' | 'redirect';

export interface Refusal {
  readonly reason: RefusalReason;
  readonly stage: RefusalStage;
  /** One line naming the host or address and the rule that refused it; never a URL (it may hold credentials). */
  readonly message: string;
}

/** What a prober throws when the guard refuses; ./failure.ts reads it as `target refused`. */
export class TargetRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
    this.name = 'TargetRefused';
  }
}

/** The exporter's own listener: the address it is bound to (an unspecified one: every interface) and its port. */
export interface SelfListener {
  readonly address: string;
  readonly port: number;
}

/** Addresses that reach a listener on every interface besides the interfaces' own: the unspecified ones (Linux connects them locally) and loopback. */
const ALWAYS_LOCAL = ['0.0.0.0/32', '::/128', '127.0.0.0/8', '::1/128'].map((text) => parseNetwork(text) as Network);
/** 0.0.0.0 and :: reach a listener on any one address too: Linux connects them to this host. */
const UNSPECIFIED = ALWAYS_LOCAL.slice(0, 2);

/** The listener bound to `address` (a zone dropped) at `port`. */
export function selfListener(address: string, port: number): SelfListener {
  return { address: address.replace(/%.*$/, ''), port };
}

/**
 * Whether `bytes` (16, from ip16) reach `self`: its own address, or for the unspecified address every address
 * of every local interface, read now (an address an interface gained since the exporter started counts at
 * once, without a reload), and loopback. 0.0.0.0 and :: reach it either way.
 */
function reachesSelf(bytes: readonly number[], self: SelfListener): boolean {
  const same = (address: string): boolean => isIP(address) !== 0 && inNetwork(bytes, { text: address, bytes: ip16(address), prefix: 128 });
  if (UNSPECIFIED.some((network) => inNetwork(bytes, network))) return true;
  if (self.address !== '' && self.address !== '0.0.0.0' && self.address !== '::') return same(self.address);
  if (ALWAYS_LOCAL.some((network) => inNetwork(bytes, network))) return true;
  return Object.values(networkInterfaces()).some((entries) => (entries ?? []).some((entry) => same(entry.address.replace(/%.*$/, ''))));
}

/**
 * The check of one probe against the exporter-wide list and the module's (both must pass). Made only
 * when some list exists; without one, probers get no guard and check nothing.
 */
export class TargetGuard {
  /** The first refusal of this probe: a probe stops at it. */
  refusal?: Refusal;

  constructor(
    private readonly lists: readonly AllowList[],
    private readonly self: SelfListener | undefined,
  ) {}

  private refuse(reason: RefusalReason, stage: RefusalStage, message: string): never {
    const refusal: Refusal = { reason, stage, message: `target refused: ${message}` };
    this.refusal ??= refusal;
    throw new TargetRefused(refusal);
  }

  /** Refuses `host` (as written: a name or an IP literal) that a `hosts` list does not match; before it is resolved. */
  checkHost(host: string, stage: RefusalStage = 'target'): void {
    const bare = host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
    for (const list of this.lists) {
      if (list.hosts && !list.hosts.some((pattern) => hostMatches(bare, pattern))) {
        this.refuse('host_not_allowed', stage, `host ${JSON.stringify(bare)} matches none of ${list.field}.hosts`);
      }
    }
  }

  /**
   * Refuses `address` (what `host` resolved to, or `host` itself as an IP literal) at `port` (none for
   * ICMP) when a `networks` list does not hold it, or when it is the exporter's own listener or a
   * link-local or metadata address and a list says to refuse those.
   */
  checkAddress(host: string, address: string, port: number | undefined, stage: RefusalStage = 'target'): void {
    const written = ip16(address);
    // NAT64, IPv4-compatible and IPv4-translated addresses are the IPv4 host they reach (../../config/allowed-targets.ts).
    const bytes = reachedBytes(written);
    const shown = host === address ? address : `${JSON.stringify(host)} (resolved to ${address})`;
    const isMetadata = (candidate: readonly number[]): boolean => METADATA_NETWORKS.some((network) => inNetwork(candidate, network));
    for (const list of this.lists) {
      if (list.denySelfAndMetadata) {
        const reached = bytes === written ? '' : ` (the IPv4 host ${bytes.slice(12).join('.')})`;
        if (isMetadata(bytes)) {
          this.refuse('link_local_or_metadata', stage, `${shown}${reached} is a link-local or cloud metadata address, refused by ${list.field}.deny_self_and_metadata`);
        }
        if (this.self && port === this.self.port && reachesSelf(bytes, this.self)) {
          this.refuse('exporter_itself', stage, `${shown}${reached} port ${port} is the exporter's own listener, refused by ${list.field}.deny_self_and_metadata`);
        }
        // 6to4, Teredo and NAT64 local-use send their packets to an IPv4 address they carry: not one of these either.
        for (const relay of relayedIpv4(written)) {
          const relayShown = `${shown} carries the IPv4 address ${relay.bytes.slice(12).join('.')} (${relay.form})`;
          if (isMetadata(relay.bytes)) this.refuse('link_local_or_metadata', stage, `${relayShown}, a link-local or cloud metadata address, refused by ${list.field}.deny_self_and_metadata`);
          if (relay.sentTo && ALWAYS_LOCAL.some((network) => inNetwork(relay.bytes, network))) {
            this.refuse('exporter_itself', stage, `${relayShown}, this host's own, refused by ${list.field}.deny_self_and_metadata`);
          }
        }
      }
      if (list.networks && !list.networks.some((network) => inNetwork(bytes, network))) {
        this.refuse('network_not_allowed', stage, `${shown} lies in none of ${list.field}.networks`);
      }
    }
  }

  /**
   * A host name the exporter does not resolve (a proxy with skip_resolve_phase_with_proxy resolves it): its
   * name is checked, and a `networks` list or deny_self_and_metadata refuses it, since its address cannot be
   * shown to be in the one or out of the other (a name may resolve to the metadata address or the exporter).
   */
  checkUnresolved(host: string, stage: RefusalStage = 'target'): void {
    this.checkHost(host, stage);
    const networks = this.lists.find((list) => list.networks);
    const denying = this.lists.find((list) => list.denySelfAndMetadata);
    const field = networks ? `${networks.field}.networks` : denying && `${denying.field}.deny_self_and_metadata`;
    if (field === undefined) return;
    this.refuse('address_not_resolved', stage, `host ${JSON.stringify(host)} is resolved by the proxy, not the exporter, so ${field} cannot be checked; set skip_resolve_phase_with_proxy: false`);
  }
}
