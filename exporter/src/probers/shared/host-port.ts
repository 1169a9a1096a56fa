/**
 * The pieces of a target the tcp, dns and grpc grammars share: `host:port` as Go's net.SplitHostPort reads
 * it (the form upstream's probers take: an IPv6 host is bracketed, `[::1]:53`; a bare IPv6 address has no
 * port), port numbers, and what a host may look like.
 */
import { isIP } from 'node:net';

export interface HostPort {
  readonly host: string;
  readonly port: string;
}

/** The host and port of `target`, or undefined when it has no port (or is not host:port at all). */
export function splitHostPort(target: string): HostPort | undefined {
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(target);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] };
  const colon = target.lastIndexOf(':');
  if (colon < 0 || target.indexOf(':') !== colon || target.includes('[') || target.includes(']')) return undefined;
  return { host: target.slice(0, colon), port: target.slice(colon + 1) };
}

/** `[::1]:443` for an IPv6 address, `host:443` otherwise: the reverse of splitHostPort. */
export function joinHostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A port as a number, or undefined when the text is not one (1-65535, digits only). */
export function portNumber(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** Why `port` is not a port, in the words that follow a quoted target. */
export function portProblem(port: string): string {
  return `has an invalid port ${port}; use 1 to 65535`;
}

/** `[::1]` as URLs and some targets write it, back to `::1`. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** `fe80::1` of `fe80::1%eth0`: the zone names the interface to send on, and never goes on the wire (Host, :authority, SNI). */
export function withoutZone(host: string): string {
  return host.replace(/%.*$/, '');
}

const HOSTNAME = /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** Whether `host` is an IP address or a DNS name; anything else fails at every probe, when it is resolved. */
export function isHost(host: string): boolean {
  return isIP(host) !== 0 || HOSTNAME.test(host);
}

/** Why `host` can never be resolved, in the words that follow a quoted target; undefined when it can. */
export function hostProblem(host: string): string | undefined {
  return isHost(host) ? undefined : `has an invalid host "${host}"; write a host name or an IP address`;
}
