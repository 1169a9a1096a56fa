/**
 * `host:port` targets as Go's net.SplitHostPort reads them (the form upstream's tcp, dns and grpc
 * probers take): an IPv6 host is bracketed (`[::1]:53`); a bare IPv6 address has no port.
 */
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

/** A port as a number, or undefined when the text is not one (1-65535, digits only). */
export function portNumber(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}
