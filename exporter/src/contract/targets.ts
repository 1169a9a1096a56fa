/**
 * The target grammar of each prober: what `target=` a module of that prober can probe. probekit's spec
 * checks its jobs' targets with this, so a target the spec accepts is one the exporter can probe.
 */
import { isIP } from 'node:net';
import type { ProberName } from '../probers/registry';
import { portNumber, splitHostPort, type HostPort } from '../probers/shared/host-port';

const HOSTNAME = /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;

function isHost(host: string): boolean {
  return isIP(host) !== 0 || HOSTNAME.test(host);
}

/** Why a `host:port` target is wrong, or undefined when it is right; as the exporter's probers split it. */
function hostPortProblem(parts: HostPort): string | undefined {
  if (!isHost(parts.host)) return `has an invalid host "${parts.host}"`;
  return portNumber(parts.port) === undefined ? `has an invalid port ${parts.port}; use 1 to 65535` : undefined;
}

/** Why `target` does not fit `prober`, or undefined when it does; the text follows the quoted target. */
export function targetProblem(prober: ProberName, target: string): string | undefined {
  switch (prober) {
    case 'http': {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return 'is not a URL; write it with its scheme, for example https://example.com/health';
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return `has scheme ${url.protocol.slice(0, -1)}; an http module probes http:// and https:// URLs`;
      return url.hostname ? undefined : 'has no host; write it as https://host[:port]/path';
    }
    case 'tcp':
    case 'grpc': {
      // A grpc target may also be written as a URL with the port (https://host:port), as upstream reads it.
      const parts = splitHostPort(prober === 'grpc' ? target.replace(/^https?:\/\//, '').replace(/\/$/, '') : target);
      if (!parts) return `is not host:port; a ${prober} module needs the port, for example example.com:443 or [::1]:${prober === 'grpc' ? '50051' : '443'}`;
      return hostPortProblem(parts);
    }
    case 'dns': {
      // A port that is not a number means the target is something else altogether (a URL, say).
      const parts = splitHostPort(target);
      if (parts && /^[0-9]+$/.test(parts.port)) return hostPortProblem(parts);
      return isHost(target) ? undefined : 'is not the address of a DNS server; write host or host:port, for example 1.1.1.1 or ns1.example.com:53';
    }
    case 'icmp':
      if (isHost(target)) return undefined;
      return 'is not a host; an icmp module pings a host name or IP address, without scheme or port';
  }
}
