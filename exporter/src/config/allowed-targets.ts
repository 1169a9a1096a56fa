/**
 * `allowed_targets`: which hosts and addresses probes may reach, exporter-wide (at the top of the config
 * file) and per module. Our extension; upstream has no such setting. The section is compiled once at
 * load (patterns normalised, networks parsed to bytes), so a probe only compares.
 *
 * The rules, checked by every prober where it chooses an address and again for every redirect hop:
 * - `hosts` set: the target's host as written (a name, or an IP literal) must match one pattern; a name
 *   is checked before it is resolved, so a refused name is never looked up.
 * - `networks` set: every address the exporter dials must lie in one of them, after resolution; a name
 *   the exporter does not resolve itself (a proxy with skip_resolve_phase_with_proxy) cannot be shown to
 *   and is refused.
 * - `deny_self_and_metadata: true`: the exporter's own listener (its address and port; every local
 *   address when it listens on all of them, as the interfaces hold them when the probe runs) and link-local
 *   and cloud metadata addresses are refused, whatever else the lists allow; a name the proxy resolves is
 *   refused too, as for `networks`.
 * The exporter-wide section and the module's both apply: a target passes when it passes both.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { formatPath, type FieldPath, type Problem } from '../contract/problems';
import { ip16 } from '../probers/shared/ip-bytes';

export const allowedTargetsSchema = z.strictObject({
  /** Host patterns: `example.org`, `*.example.org` (any name below it), an IP literal, or `*`. */
  hosts: z.array(z.string()).optional(),
  /** CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`) or single addresses, IPv4 and IPv6. */
  networks: z.array(z.string()).optional(),
  /** Refuse the exporter's own listener and link-local / cloud metadata addresses. */
  deny_self_and_metadata: z.boolean().default(false),
});

export type AllowedTargetsSection = z.output<typeof allowedTargetsSchema>;

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address that a packet to them reaches as that IPv4 host: the
 * IPv4-mapped form (::ffff:0:0/96, how a dual-stack socket dials IPv4), the IPv4-translated form of SIIT
 * (::ffff:0:0:0/96), NAT64's well-known prefix (64:ff9b::/96: a NAT64 gateway connects to the IPv4 address)
 * and the deprecated IPv4-compatible form (::/96 but :: and ::1; Linux's sit0 tunnels it to the IPv4 address).
 * The allow-list reads each as its IPv4 address, in a target and in a listed network alike, so that
 * 64:ff9b::a9fe:a9fe is 169.254.169.254 and `networks: [10.0.0.0/8]` holds 64:ff9b::a00:1.
 */
const HOST_EMBEDDING_PREFIXES: ReadonlyArray<readonly number[]> = [
  [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0],
  [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];
const MAPPED: readonly number[] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Whether the first 12 of `bytes` are `prefix`. */
function startsWith(bytes: readonly number[], prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

/**
 * `bytes` (16, from ip16) as the host a packet to them reaches: an address of a host-embedding prefix
 * (HOST_EMBEDDING_PREFIXES) as its IPv4 address in the IPv4-mapped form, any other address as it is. `::` and
 * `::1` are themselves (unspecified and loopback), not 0.0.0.0 and 0.0.0.1.
 */
export function reachedBytes(bytes: readonly number[]): readonly number[] {
  const compatibleSpecial = startsWith(bytes, HOST_EMBEDDING_PREFIXES[2]) && bytes[12] === 0 && bytes[13] === 0 && bytes[14] === 0 && bytes[15] <= 1;
  if (compatibleSpecial || !HOST_EMBEDDING_PREFIXES.some((prefix) => startsWith(bytes, prefix))) return bytes;
  return [...MAPPED, ...bytes.slice(12)];
}

/** An IPv4 address an IPv6 address carries where its packets go out over IPv4 to that address, not to the host. */
export interface RelayIpv4 {
  /** The IPv4 address, 16 bytes in its IPv4-mapped form. */
  readonly bytes: readonly number[];
  /** The form, as messages name it. */
  readonly form: string;
  /** Whether packets go to this address itself (6to4, Teredo), rather than to a NAT64 gateway that may read it there. */
  readonly sentTo: boolean;
}

/** NAT64's local-use prefix (64:ff9b:1::/48): where its IPv4 address sits depends on the operator's prefix length. */
const NAT64_LOCAL = [0, 0x64, 0xff, 0x9b, 0, 1];
/** RFC 6052's places of the IPv4 address for prefixes of 48, 56 and 64 bits (byte 8, the u octet, skipped). */
const NAT64_PLACES = [
  [6, 7, 9, 10],
  [7, 9, 10, 11],
  [9, 10, 11, 12],
  [12, 13, 14, 15],
];

/**
 * IPv4 addresses that an IPv6 address sends its packets to, or may reach, without being that host: the
 * 6to4 relay of 2002::/16 (bytes 2-5), Teredo's server and client (2001::/32: bytes 4-7, and bytes 12-15
 * inverted), and each place NAT64's local-use prefix may carry one. They are not the host the probe reaches,
 * so `networks` reads the address as written; deny_self_and_metadata refuses the address when one of these is
 * link-local or metadata, or, for the addresses packets are sent to (6to4, Teredo), this host's own.
 */
export function relayedIpv4(bytes: readonly number[]): RelayIpv4[] {
  const mapped = (four: readonly number[]): readonly number[] => [...MAPPED, ...four];
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return [{ bytes: mapped(bytes.slice(2, 6)), form: '6to4', sentTo: true }];
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) {
    return [
      { bytes: mapped(bytes.slice(4, 8)), form: 'Teredo server', sentTo: true },
      { bytes: mapped(bytes.slice(12, 16).map((byte) => byte ^ 0xff)), form: 'Teredo client', sentTo: true },
    ];
  }
  if (startsWith(bytes, NAT64_LOCAL)) return NAT64_PLACES.map((places) => ({ bytes: mapped(places.map((index) => bytes[index])), form: 'NAT64 local-use', sentTo: false }));
  return [];
}

/** A range of addresses as 16 bytes (IPv4 in its IPv4-mapped form) and a prefix length of 0-128. */
export interface Network {
  readonly text: string;
  readonly bytes: readonly number[];
  readonly prefix: number;
}

/** A host pattern: a name (lower case, no trailing dot), names below a suffix, an address, or anything. */
export type HostPattern =
  { readonly kind: 'name'; readonly name: string } | { readonly kind: 'below'; readonly suffix: string } | { readonly kind: 'address'; readonly bytes: readonly number[] } | { readonly kind: 'any' };

/** A compiled allowed_targets section. */
export interface AllowList {
  /** Where it was written, as messages name it: `allowed_targets` or `modules.<name>.allowed_targets`. */
  readonly field: string;
  readonly hosts?: readonly HostPattern[];
  readonly networks?: readonly Network[];
  readonly denySelfAndMetadata: boolean;
}

/**
 * Link-local addresses (169.254.0.0/16 holds the metadata service of AWS, GCP, Azure and OpenStack at
 * 169.254.169.254; fe80::/10) and AWS's IPv6 metadata address.
 */
export const METADATA_NETWORKS: readonly Network[] = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128'].map((text) => parseNetwork(text) as Network);

const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

/** A host name as patterns compare it: lower case, without a trailing dot or brackets. */
export function normalHostName(name: string): string {
  return name
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** `text` as a network, or a message saying what is wrong with it. */
export function parseNetwork(text: string): Network | string {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const version = isIP(address);
  if (version === 0 || address.includes('%')) return 'is not an IP address or CIDR range';
  const family = version === 4 ? 4 : 6;
  const width = family === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(width) : text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(prefixText) || Number(prefixText) > width) return `has a prefix length that is not 0-${width}`;
  const prefix = Number(prefixText) + (family === 4 ? 96 : 0);
  const bytes = ip16(address);
  if (!sameBits(bytes, maskedBits(bytes, prefix), 128)) {
    return `has bits set after its prefix length (the range is ${formatBits(maskedBits(bytes, prefix), family)}/${prefixText})`;
  }
  // A range inside a host-embedding prefix is the IPv4 range it carries, as the addresses checked against it are.
  return { text, bytes: prefix >= 96 ? reachedBytes(bytes) : bytes, prefix };
}

function maskedBits(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((byte, index) => {
    const kept = Math.max(0, Math.min(8, prefix - index * 8));
    return byte & ((0xff << (8 - kept)) & 0xff);
  });
}

function formatBits(bytes: readonly number[], family: 4 | 6): string {
  if (family === 4) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(((bytes[index] << 8) | bytes[index + 1]).toString(16));
  // The shortest form is not needed for a hint: Node prints it when the text goes through URL parsing.
  return new URL(`http://[${groups.join(':')}]/`).hostname.replace(/^\[|\]$/g, '');
}

/** Whether the first `bits` bits of two 16-byte addresses agree. */
function sameBits(a: readonly number[], b: readonly number[], bits: number): boolean {
  const whole = bits >> 3;
  for (let index = 0; index < whole; index += 1) if (a[index] !== b[index]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (a[whole] & mask) === (b[whole] & mask);
}

/** Whether `address` (16 bytes, from ip16) lies in `network`. */
export function inNetwork(address: readonly number[], network: Network): boolean {
  return sameBits(address, network.bytes, network.prefix);
}

/** `text` as a host pattern, or a message saying what is wrong with it. */
export function parseHostPattern(text: string): HostPattern | string {
  const unbracketed = text.replace(/^\[|\]$/g, '');
  if (isIP(unbracketed) !== 0) return { kind: 'address', bytes: reachedBytes(ip16(unbracketed)) };
  if (text === '*') return { kind: 'any' };
  const name = normalHostName(text);
  const below = name.startsWith('*.');
  const labels = (below ? name.slice(2) : name).split('.');
  if (name === '' || !labels.every((label) => LABEL.test(label))) return 'is not a host pattern';
  return below ? { kind: 'below', suffix: `.${labels.join('.')}` } : { kind: 'name', name };
}

/** Whether the target's host as written (a name, or an IP literal without brackets) matches `pattern`. */
export function hostMatches(host: string, pattern: HostPattern): boolean {
  switch (pattern.kind) {
    case 'any':
      return true;
    case 'address':
      return isIP(host) !== 0 && sameBits(reachedBytes(ip16(host)), pattern.bytes, 128);
    case 'name':
      return normalHostName(host) === pattern.name;
    case 'below': {
      const name = normalHostName(host);
      return name.length > pattern.suffix.length && name.endsWith(pattern.suffix);
    }
  }
}

const PATTERN_FIX = 'write a host name (example.org), a name with a wildcard first label (*.example.org), an IP address, or *';
const NETWORK_FIX = 'write a CIDR range such as 10.0.0.0/8 or 2001:db8::/32, or one address';

/**
 * Compiles a section that passed the schema; problems go to `problems` with paths below `path` (the
 * section's own path, also how messages name it).
 */
export function compileAllowList(section: AllowedTargetsSection, path: FieldPath, problems: Problem[]): AllowList {
  const field = formatPath(path);
  const list = <T>(key: 'hosts' | 'networks', values: readonly string[] | undefined, parse: (text: string) => T | string, fix: string): T[] | undefined => {
    if (values === undefined) return undefined;
    if (values.length === 0) problems.push({ path: [...path, key], message: `an empty list allows nothing; list what probes may reach, or remove ${key}` });
    const parsed: T[] = [];
    values.forEach((text, index) => {
      const result = parse(text);
      if (typeof result === 'string') problems.push({ path: [...path, key, index], message: `${JSON.stringify(text)} ${result}; ${fix}` });
      else parsed.push(result);
    });
    return parsed;
  };
  return {
    field,
    hosts: list('hosts', section.hosts, parseHostPattern, PATTERN_FIX),
    networks: list('networks', section.networks, parseNetwork, NETWORK_FIX),
    denySelfAndMetadata: section.deny_self_and_metadata,
  };
}
