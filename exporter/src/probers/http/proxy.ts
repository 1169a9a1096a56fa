/**
 * Which proxy a request goes through, as prometheus/common's HTTP client decides (upstream's http prober
 * and its OAuth2 token requests): `proxy_url` for every request; `proxy_url` with `no_proxy`, or
 * `proxy_from_environment` (HTTP_PROXY, HTTPS_PROXY, NO_PROXY and their lower-case forms), by the rules of
 * Go's golang.org/x/net/http/httpproxy — which never proxy localhost or a loopback address, and skip
 * the hosts, domains, IPs and CIDR ranges that no_proxy lists.
 */
import { BlockList, isIP } from 'node:net';
import type { CompileContext } from '../definition';

/** A forward proxy a request goes through, and the headers its CONNECT carries. */
export interface Proxy {
  readonly url: URL;
  readonly connectHeaders: Readonly<Record<string, readonly string[]>>;
}

/** The proxy fields of a section (the http section, or its oauth2 one), as prometheus/common names them. */
export interface ProxyFields {
  readonly proxy_url?: string;
  readonly no_proxy?: string;
  readonly proxy_from_environment?: boolean;
  readonly proxy_connect_header?: Readonly<Record<string, readonly string[]>>;
}

export interface ProxyChoice {
  /** Whether a proxy is configured at all, so that skip_resolve_phase_with_proxy applies (as upstream reads it). */
  readonly configured: true;
  /** The proxy for a request to `url`, or none. */
  forUrl(url: URL): Proxy | undefined;
}

/** One entry of no_proxy, as httpproxy parses it. */
type Exemption =
  { readonly all: true } | { readonly ip: string; readonly port?: string } | { readonly cidr: BlockList } | { readonly domain: string; readonly port?: string; readonly orSelf: boolean };

function parseNoProxy(text: string): Exemption[] {
  const exemptions: Exemption[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return [{ all: true }];
    const cidr = /^([0-9a-f:.]+)\/(\d+)$/.exec(entry);
    if (cidr && isIP(cidr[1]) !== 0) {
      const list = new BlockList();
      list.addSubnet(cidr[1], Number(cidr[2]), isIP(cidr[1]) === 6 ? 'ipv6' : 'ipv4');
      exemptions.push({ cidr: list });
      continue;
    }
    const hostPort = /^\[([^\]]+)\]:(\d+)$/.exec(entry) ?? /^([^:]+):(\d+)$/.exec(entry);
    const host = hostPort ? hostPort[1] : entry.replace(/^\[|\]$/g, '');
    const port = hostPort?.[2];
    if (isIP(host) !== 0) {
      exemptions.push({ ip: host, port });
      continue;
    }
    // `*.example.com` and `.example.com` exempt subdomains; `example.com` exempts the domain and its subdomains.
    const domain = host.replace(/^\*\./, '.');
    exemptions.push(domain.startsWith('.') ? { domain, port, orSelf: false } : { domain: `.${domain}`, port, orSelf: true });
  }
  return exemptions;
}

function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Whether a request to `url` goes through the proxy: httpproxy's useProxy. */
function useProxy(url: URL, exemptions: readonly Exemption[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = defaultPort(url);
  if (host === 'localhost') return false;
  const family = isIP(host);
  if (family !== 0) {
    const loopback = new BlockList();
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    loopback.addAddress('::1', 'ipv6');
    if (loopback.check(host, family === 6 ? 'ipv6' : 'ipv4')) return false;
  }
  for (const exemption of exemptions) {
    if ('all' in exemption) return false;
    if ('cidr' in exemption) {
      if (family !== 0 && exemption.cidr.check(host, family === 6 ? 'ipv6' : 'ipv4')) return false;
    } else if ('ip' in exemption) {
      if (family !== 0 && exemption.ip === host && (exemption.port === undefined || exemption.port === port)) return false;
    } else if (host.endsWith(exemption.domain) || (exemption.orSelf && host === exemption.domain.slice(1))) {
      if (exemption.port === undefined || exemption.port === port) return false;
    }
  }
  return true;
}

/** A proxy URL as httpproxy reads one from the environment: without a scheme, http:// is meant. */
function environmentProxyUrl(text: string | undefined): URL | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    const url = new URL(text);
    if (['http:', 'https:', 'socks5:'].includes(url.protocol)) return url;
  } catch {
    // Read again with http:// below.
  }
  try {
    return new URL(`http://${text}`);
  } catch {
    return undefined;
  }
}

function fromEnvironment(name: string): string | undefined {
  return process.env[name] || process.env[name.toLowerCase()] || undefined;
}

interface ProxyRules {
  readonly http?: URL;
  readonly https?: URL;
  readonly exemptions: readonly Exemption[];
}

function ruledChoice(rules: () => ProxyRules, connectHeaders: Readonly<Record<string, readonly string[]>>): ProxyChoice {
  let settled: ProxyRules | undefined;
  return {
    configured: true,
    forUrl(url) {
      settled ??= rules();
      const proxy = url.protocol === 'https:' ? settled.https : settled.http;
      if (!proxy || !useProxy(url, settled.exemptions)) return undefined;
      return { url: proxy, connectHeaders };
    },
  };
}

function proxyUrl(text: string, context: CompileContext, path: readonly (string | number)[]): URL | undefined {
  if (/^https?:\/\/[^/]+/.test(text)) {
    try {
      return new URL(text);
    } catch {
      // Refused below, with the same words as a URL of another scheme.
    }
  }
  context.problem([...path, 'proxy_url'], 'must be an http:// or https:// URL');
  return undefined;
}

/**
 * The proxy choice of a section's fields (none when no proxy is configured). `path` is where the fields sit
 * below the section (`['oauth2']` for the token requests). The environment is read at the first request,
 * once, as Go's client reads it.
 */
export function compileProxy(fields: ProxyFields, context: CompileContext, path: readonly (string | number)[] = []): ProxyChoice | undefined {
  const connectHeaders = fields.proxy_connect_header ?? {};
  if (fields.proxy_from_environment) {
    return ruledChoice(
      () => ({ http: environmentProxyUrl(fromEnvironment('HTTP_PROXY')), https: environmentProxyUrl(fromEnvironment('HTTPS_PROXY')), exemptions: parseNoProxy(fromEnvironment('NO_PROXY') ?? '') }),
      connectHeaders,
    );
  }
  if (fields.proxy_url === undefined || fields.proxy_url === '') return undefined;
  const url = proxyUrl(fields.proxy_url, context, path);
  if (url === undefined) return undefined;
  if (fields.no_proxy === undefined || fields.no_proxy === '') return { configured: true, forUrl: () => ({ url, connectHeaders }) };
  const exemptions = parseNoProxy(fields.no_proxy);
  return ruledChoice(() => ({ http: url, https: url, exemptions }), connectHeaders);
}

/** prometheus/common's checks of the proxy fields; paths below the section. */
export function proxyProblems(fields: ProxyFields, path: readonly (string | number)[] = []): Array<{ path: Array<string | number>; message: string }> {
  const problems: Array<{ path: Array<string | number>; message: string }> = [];
  const hasUrl = fields.proxy_url !== undefined && fields.proxy_url !== '';
  if (fields.proxy_connect_header !== undefined && Object.keys(fields.proxy_connect_header).length > 0 && !hasUrl && !fields.proxy_from_environment) {
    problems.push({ path: [...path, 'proxy_connect_header'], message: 'proxy_connect_header needs proxy_url or proxy_from_environment' });
  }
  if (fields.proxy_from_environment && hasUrl) problems.push({ path: [...path, 'proxy_url'], message: 'set proxy_url or proxy_from_environment, not both' });
  if (fields.proxy_from_environment && fields.no_proxy) problems.push({ path: [...path, 'no_proxy'], message: 'no_proxy does not apply with proxy_from_environment (NO_PROXY does); remove it' });
  if (!hasUrl && !fields.proxy_from_environment && fields.no_proxy) problems.push({ path: [...path, 'no_proxy'], message: 'no_proxy needs proxy_url' });
  return problems;
}
