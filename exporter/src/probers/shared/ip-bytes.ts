/**
 * An IP address as its bytes, the form both the address hash (probe_ip_addr_hash) and the allow-list's
 * networks compare. Pure: the config loader and the contract use it without the probers' runtime.
 */
import { isIP } from 'node:net';

/** The address's bytes: 4 for IPv4, 16 for IPv6 (a zone, `%eth0`, is dropped: it names an interface). */
export function ipBytes(address: string): number[] {
  if (isIP(address) === 4) return address.split('.').map(Number);
  // A zone (fe80::1%eth0) names the interface, not the address: Go hashes the 16 bytes alone.
  let text = address.replace(/%.*$/, '');
  const bytes: number[] = [];
  // An IPv6 address may end in dotted IPv4 form (::ffff:1.2.3.4); turn that tail into two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  for (const group of groups) {
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return bytes;
}

/** The IPv4 prefix of an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/**
 * The address as 16 bytes, an IPv4 address in its IPv4-mapped form (::ffff:a.b.c.d), so that `10.0.0.1`
 * and `::ffff:10.0.0.1` — the same host, as a dual-stack socket reports it — compare equal. The caller
 * passes an IP address (net.isIP says so), with or without a zone.
 */
export function ip16(address: string): number[] {
  const bytes = ipBytes(address);
  return bytes.length === 4 ? [...MAPPED_PREFIX, ...bytes] : bytes;
}
