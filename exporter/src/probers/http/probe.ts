/**
 * The http prober: one request (plus redirects) to the target with the module's settings, judged by
 * status, HTTP version, TLS, headers and body, recorded with upstream's metric names and meanings.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { httpTarget, parseZonedUrl, type HttpSettings } from './definition';
import { PROBE_FAILED_DUE_TO_REGEX, gauge, phaseGauge, type ProbeGauge } from '../../metrics';
import {
  HTTP_PHASES,
  PROBE_FAILED_DUE_TO_CEL,
  PROBE_HTTP_CONTENT_LENGTH,
  PROBE_HTTP_DURATION,
  PROBE_HTTP_LAST_MODIFIED,
  PROBE_HTTP_REDIRECTS,
  PROBE_HTTP_SSL,
  PROBE_HTTP_STATUS_CODE,
  PROBE_HTTP_UNCOMPRESSED_BODY_LENGTH,
  PROBE_HTTP_VERSION,
} from './metrics';
import { resolveTargetAddress } from '../shared/address';
import { unbracket } from '../shared/host-port';
import { beforeDeadline } from '../shared/deadline';
import { recordTlsMetrics, tlsConnectionOptions } from '../shared/tls';
import type { ProbeDeadline, ProbeLogger, ProbeOutcome, Prober } from '../types';
import { failed, failedBecause, failureOf, SUCCEEDED } from '../shared/failure';
import { Resources } from '../shared/resources';
import type { RefusalStage, TargetGuard } from '../shared/target-guard';
import { exchange, type ExchangeSettings, type Hop, type IncomingResponse, type Timings } from './exchange';
import { requestContent, type HeaderList, type RequestContent } from './request';
import { BodyTooLarge, readBody } from './body';
import { checkOutcome } from '../shared/checks';
import type { HeaderCheckJob } from '../shared/check-messages';
import { oauth2Authorization } from './oauth2';
import type { ProxyChoice } from './proxy';

/** Upstream stops after this many redirects and fails the probe. */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Headers not sent to another origin after a redirect (Go's client drops them for another host). */
const SENSITIVE_HEADERS = new Set(['authorization', 'cookie', 'www-authenticate']);

function headerValues(response: IncomingResponse, name: string): string[] {
  const wanted = name.toLowerCase();
  return response.headers.filter(([header]) => header === wanted).map(([, value]) => value);
}

/** The header checks as plain data, in upstream's order: fail_if_header_matches first. */
function headerChecks(http: HttpSettings): HeaderCheckJob[] {
  return [
    ...http.failIfHeaderMatches.map((check) => ({ header: check.header, regexp: check.pattern.source, allowMissing: check.allowMissing, failWhenMatched: true })),
    ...http.failIfHeaderNotMatches.map((check) => ({ header: check.header, regexp: check.pattern.source, allowMissing: check.allowMissing, failWhenMatched: false })),
  ];
}

/** Upstream's header checks (../shared/check-worker.ts), here or on a check thread by their cost (../shared/checks.ts). */
function checkedHeaders(response: IncomingResponse, http: HttpSettings, deadline: ProbeDeadline, logger: ProbeLogger): Promise<ProbeOutcome> {
  const checks = [...http.failIfHeaderMatches, ...http.failIfHeaderNotMatches];
  const named = new Set(checks.map((check) => check.header.toLowerCase()));
  const headers = response.headers.filter(([name]) => named.has(name));
  const textLength = headers.reduce((sum, [, value]) => sum + value.length, 0);
  const inline = { patterns: checks.map((check) => check.pattern), textLength };
  return checkOutcome({ kind: 'headers', headers, checks: headerChecks(http) }, inline, deadline, logger, 'body or header regexp failed', 'header regexps');
}

interface HopResult {
  readonly hop: Hop;
  readonly timings: Timings;
  response?: IncomingResponse;
}

/** Go's redirect rules: 301/302 turn a POST into a GET, 303 turns anything but HEAD into GET; 307/308 keep both. */
function redirectedRequest(status: number, request: RequestContent): RequestContent {
  const toGet = ((status === 301 || status === 302) && request.method === 'POST') || (status === 303 && request.method !== 'HEAD');
  if (!toGet) return request;
  return { ...request, method: 'GET', body: undefined, headers: request.headers.filter(([name]) => !['Content-Type', 'Content-Length'].includes(name)) };
}

export const probeHttp: Prober<'http'> = async (deadline, target, module, registry, logger, options) => {
  const http = module.http;
  const duration = phaseGauge(registry, PROBE_HTTP_DURATION, HTTP_PHASES);
  const contentLength = gauge(registry, PROBE_HTTP_CONTENT_LENGTH);
  const uncompressedLength = gauge(registry, PROBE_HTTP_UNCOMPRESSED_BODY_LENGTH);
  const redirectsGauge = gauge(registry, PROBE_HTTP_REDIRECTS);
  const sslGauge = gauge(registry, PROBE_HTTP_SSL);
  const statusGauge = gauge(registry, PROBE_HTTP_STATUS_CODE);
  const versionGauge = gauge(registry, PROBE_HTTP_VERSION);
  const regexGauge = gauge(registry, PROBE_FAILED_DUE_TO_REGEX);
  // Registered only for a module with a CEL check, as upstream registers it.
  const celGauge = http.failIfBodyJsonMatchesCel || http.failIfBodyJsonNotMatchesCel ? gauge(registry, PROBE_FAILED_DUE_TO_CEL) : undefined;

  const parsed = httpTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Could not parse target URL', { target, err: parsed.problem });
    return failed('target or module not usable');
  }
  const targetUrl = parsed.target.url;
  const targetZone = parsed.target.zone;
  // A zone stays on the address that is resolved and dialled (fe80::1%eth0), as in Go.
  const targetHost = withZone(unbracket(targetUrl.hostname), targetZone);
  const proxy = http.proxy;

  const guard = options.guard;
  let firstAddress = targetHost;
  if (http.skipResolvePhaseWithProxy && proxy?.configured) {
    try {
      guardUnresolved(guard, targetHost, targetPort(targetUrl), 'target');
    } catch (error) {
      logger.error('Target refused', { err: error as Error });
      return failureOf(error, 'target or module not usable');
    }
  } else {
    try {
      const resolved = await resolveTargetAddress(targetHost, http.ip, deadline, registry, logger, guard, targetPort(targetUrl));
      duration.inc({ phase: 'resolve' }, resolved.lookupSeconds);
      firstAddress = resolved.address;
    } catch (error) {
      logger.error('Error resolving address', { err: error as Error });
      return failureOf(error, 'resolve failed');
    }
  }

  const resources = new Resources(logger);
  const abort = (): void => resources.destroyAll();
  deadline.signal.addEventListener('abort', abort, { once: true });
  const exchanges: Exchanges = { hops: [], redirects: 0, requestErrored: false };
  let verdict: Verdict = { outcome: failed('internal error'), bodyLength: 0, bodyRead: false };
  try {
    let request: RequestContent;
    let serverName: string;
    let firstTlsOptions: ConnectionOptions | undefined;
    try {
      request = await requestContent(http.request, options.hostname);
      if (http.oauth2) request = { ...request, authorization: await oauth2Authorization(http.oauth2, deadline, resources) };
      // Credentials in the target URL become basic auth unless the module sets its own, as Go's client does.
      if (request.authorization === undefined && (targetUrl.username !== '' || targetUrl.password !== '')) {
        const userinfo = `${decodeURIComponent(targetUrl.username)}:${decodeURIComponent(targetUrl.password)}`;
        request = { ...request, authorization: `Basic ${Buffer.from(userinfo).toString('base64')}` };
      }
      // Upstream checks the certificate against server_name, else the Host header, else the target host.
      serverName = http.tls.serverName || request.host?.replace(/:\d+$/, '') || unbracket(targetUrl.hostname);
      // Reading the TLS files now turns a missing ca_file into a clear failure before any connection.
      if (targetUrl.protocol === 'https:') firstTlsOptions = await tlsConnectionOptions({ ...http.tls, serverName }, serverName);
    } catch (error) {
      logger.error('Error preparing the request', { err: error as Error });
      return failureOf(error, 'target or module not usable');
    }
    await sendFollowingRedirects(exchanges, { http, targetUrl, targetZone, firstAddress, serverName, firstTlsOptions, proxy, guard, deadline, resources, logger }, request);
    if (exchanges.final) verdict = await judge(exchanges.final, exchanges.requestErrored, http, deadline, resources, logger, regexGauge, celGauge);
    exchanges.hops[exchanges.hops.length - 1].timings.end = performance.now();
  } catch (error) {
    logger.error('Error for HTTP request', { err: error as Error });
    verdict = { ...verdict, outcome: failureOf(error, 'protocol error') };
  } finally {
    deadline.signal.removeEventListener('abort', abort);
  }
  let outcome = verdict.outcome;
  recordPhases(duration, exchanges.hops);
  const final = exchanges.final;
  if (final) {
    const lastModified = headerValues(final, 'last-modified')[0];
    const modifiedAt = lastModified === undefined ? NaN : Date.parse(lastModified);
    if (!Number.isNaN(modifiedAt)) gauge(registry, PROBE_HTTP_LAST_MODIFIED).set(Math.floor(modifiedAt / 1000));
    versionGauge.set(Number(final.proto.replace('HTTP/', '')));
    if (final.tls) {
      sslGauge.set(1);
      recordTlsMetrics(final.tls, registry, !http.tls.insecureSkipVerify);
      if (http.failIfSsl) {
        logger.error('Final request was over SSL');
        if (outcome.success) outcome = failedBecause('HTTP response not accepted', 'the final response came over TLS, which fail_if_ssl refuses');
      }
    } else if (http.failIfNotSsl) {
      logger.error('Final request was not over SSL');
      if (outcome.success) outcome = failedBecause('HTTP response not accepted', 'the final response came without TLS, which fail_if_not_ssl refuses');
    }
    statusGauge.set(final.status);
    // Go's HTTP/2 client reports 0, not -1, for a response that ends with its headers; an empty body is that case.
    const emptyHttp2 = final.proto === 'HTTP/2.0' && final.contentLength === -1 && verdict.bodyRead && verdict.bodyLength === 0;
    contentLength.set(emptyHttp2 ? 0 : final.contentLength);
  }
  uncompressedLength.set(verdict.bodyLength);
  redirectsGauge.set(exchanges.redirects);
  resources.destroyAll();
  return outcome;
};

/** The port a request to `url` goes to. */
function targetPort(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/**
 * The allow-list's check of a host the exporter leaves to the proxy to resolve: an IP literal is the
 * address dialled; a name is checked as a name (and refused where networks are listed).
 */
function guardUnresolved(guard: TargetGuard | undefined, host: string, port: number, stage: RefusalStage): void {
  if (!guard) return;
  const bare = host.replace(/%.*$/, '');
  if (isIP(bare) === 0) guard.checkUnresolved(host, stage);
  else {
    guard.checkHost(host, stage);
    guard.checkAddress(host, host, port, stage);
  }
}

/** `fe80::1` with zone `eth0` is dialled as `fe80::1%eth0`. */
function withZone(host: string, zone: string | undefined): string {
  return zone === undefined ? host : `${host}%${zone}`;
}

/**
 * The address a redirect hop to `url` dials, checked by the allow-lists at the hop's own port: an IP
 * literal is itself; a name the proxy resolves is left to it (and checked as a name); another name is
 * resolved as any client would, once per probe (the time counts as resolve).
 */
async function hopAddress(journey: Journey, url: URL, zone: string | undefined, resolved: Map<string, string>): Promise<string> {
  const { http, proxy, guard, deadline } = journey;
  const host = unbracket(url.hostname);
  const port = targetPort(url);
  const written = withZone(host, zone);
  if (isIP(host) !== 0 || (http.skipResolvePhaseWithProxy && proxy?.configured)) {
    guardUnresolved(guard, written, port, 'redirect');
    return written;
  }
  guard?.checkHost(host, 'redirect');
  let address = resolved.get(written);
  if (address === undefined) {
    address = (await beforeDeadline(deadline, 'resolve', lookup(host))).address;
    resolved.set(written, address);
  }
  guard?.checkAddress(host, address, port, 'redirect');
  return address;
}

/** What the request and its redirects produced so far (kept when a later hop fails, for the metrics). */
interface Exchanges {
  readonly hops: HopResult[];
  redirects: number;
  final?: IncomingResponse;
  /** The final response is a redirect that was not followed: its body is not read, as upstream. */
  requestErrored: boolean;
}

interface Journey {
  readonly http: HttpSettings;
  readonly targetUrl: URL;
  readonly targetZone?: string;
  readonly firstAddress: string;
  readonly serverName: string;
  /** TLS options for `serverName`, made while preparing the request (an https target only). */
  readonly firstTlsOptions?: ConnectionOptions;
  readonly proxy?: ProxyChoice;
  /** The allow-lists, checked again for every redirect hop, at its own port. */
  readonly guard?: TargetGuard;
  readonly deadline: ProbeDeadline;
  readonly resources: Resources;
  readonly logger: ProbeLogger;
}

/** The journey's first TLS options serve every hop to the same server name; another name gets its own. */
async function hopTlsOptions(journey: Journey, serverName: string): Promise<ConnectionOptions> {
  if (journey.firstTlsOptions && serverName === journey.serverName) return journey.firstTlsOptions;
  return tlsConnectionOptions({ ...journey.http.tls, serverName }, serverName);
}

/** Sends the request, then follows redirects as Go's client does, each hop on a new connection. */
async function sendFollowingRedirects(exchanges: Exchanges, journey: Journey, firstRequest: RequestContent): Promise<void> {
  const { http, targetUrl, proxy, deadline, resources, logger } = journey;
  const cookies = new Map<string, Map<string, string>>();
  let request = firstRequest;
  let url = targetUrl;
  let zone = journey.targetZone;
  let hostOverride = request.host;
  // The address each host name (with its zone) resolved to in this probe, the target's first: a name met
  // again dials what it resolved to, at the port its own URL names.
  const resolved = new Map([[withZone(unbracket(targetUrl.hostname), journey.targetZone), journey.firstAddress]]);
  for (;;) {
    const timings: Timings = { start: performance.now(), dnsDone: performance.now() };
    const sameHost = url.host === targetUrl.host && zone === journey.targetZone;
    const hopHost = unbracket(url.hostname);
    // Every hop after the first is addressed and checked from its own URL alone (host, zone, port): never
    // from the hop before it, which a chain A -> B -> A would otherwise send to B's address at A's port.
    const address = exchanges.hops.length === 0 ? journey.firstAddress : await hopAddress(journey, url, zone, resolved);
    timings.dnsDone = performance.now();
    const hop: Hop = {
      url,
      address,
      port: targetPort(url),
      tls: url.protocol === 'https:',
      host: (sameHost ? hostOverride : undefined) ?? url.host,
      serverName: sameHost ? journey.serverName : hopHost,
    };
    const result: HopResult = { hop, timings };
    exchanges.hops.push(result);
    const jar = cookies.get(hopHost) ?? new Map<string, string>();
    cookies.set(hopHost, jar);
    const headers: HeaderList = [...request.headers];
    if (request.authorization) headers.push(['Authorization', [request.authorization]]);
    if (jar.size > 0) headers.push(['Cookie', [[...jar].map(([name, value]) => `${name}=${value}`).join('; ')]]);
    const settings: ExchangeSettings = {
      tlsOptions: hop.tls ? await hopTlsOptions(journey, hop.serverName) : undefined,
      enableHttp2: http.enableHttp2,
      sourceAddress: http.sourceAddress,
      proxy: proxy?.forUrl(url),
    };
    const response = await exchange(hop, { method: request.method, headers, body: request.body }, settings, deadline, timings, resources);
    result.response = response;
    logger.debug('Received HTTP response', { status_code: response.status });
    for (const setCookie of headerValues(response, 'set-cookie')) {
      const [pair] = setCookie.split(';');
      const split = pair.indexOf('=');
      if (split > 0) jar.set(pair.slice(0, split).trim(), pair.slice(split + 1).trim());
    }
    const location = headerValues(response, 'location')[0];
    if (!REDIRECT_STATUSES.has(response.status) || location === undefined) {
      exchanges.final = response;
      return;
    }
    logger.debug('Received redirect', { location });
    exchanges.redirects = exchanges.hops.length;
    if (exchanges.redirects > MAX_REDIRECTS || !http.followRedirects) {
      logger.debug('Not following redirect');
      exchanges.final = response;
      exchanges.requestErrored = true;
      return;
    }
    response.body.destroy();
    const { url: next, zone: nextZone } = parseZonedUrl(location, { url, zone });
    // Go's client follows http and https only; any other scheme fails the request, as it does upstream.
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new Error(`redirect to ${next.protocol}// refused: unsupported protocol scheme "${next.protocol.slice(0, -1)}"`);
    if (next.origin !== url.origin || nextZone !== zone) {
      // Credentials are for the origin they were configured for (scheme, host and port, as fetch and curl
      // see it); upstream's client sends them on to any host it is redirected to.
      const { secretHeaders } = request;
      request = { ...request, authorization: undefined, headers: request.headers.filter(([name]) => !SENSITIVE_HEADERS.has(name.toLowerCase()) && !secretHeaders.has(name.toLowerCase())) };
    }
    // A Host set by the module or the hostname parameter only holds for relative redirects, as in Go.
    if (next.host !== url.host || nextZone !== zone) hostOverride = undefined;
    request = redirectedRequest(response.status, request);
    url = next;
    zone = nextZone;
  }
}

interface Verdict {
  readonly outcome: ProbeOutcome;
  readonly bodyLength: number;
  readonly bodyRead: boolean;
}

/** Upstream's checks of the final response, in its order: status, headers, body (read to the end), HTTP version. */
async function judge(
  final: IncomingResponse,
  requestErrored: boolean,
  http: HttpSettings,
  deadline: ProbeDeadline,
  resources: Resources,
  logger: ProbeLogger,
  regexGauge: ProbeGauge,
  celGauge: ProbeGauge | undefined,
): Promise<Verdict> {
  let success: boolean;
  let outcome: ProbeOutcome = SUCCEEDED;
  if (http.validStatusCodes.length > 0) {
    success = http.validStatusCodes.includes(final.status);
    if (!success) logger.debug('Invalid HTTP response status code', { status_code: final.status, valid_status_codes: http.validStatusCodes });
  } else {
    success = final.status >= 200 && final.status < 300;
    if (!success) logger.debug('Invalid HTTP response status code, wanted 2xx', { status_code: final.status });
  }
  if (!success) outcome = failed('HTTP status not accepted');
  if (success && (http.failIfHeaderMatches.length > 0 || http.failIfHeaderNotMatches.length > 0)) {
    outcome = await checkedHeaders(final, http, deadline, logger);
    success = outcome.success;
    regexGauge.set(success ? 0 : 1);
  }
  const bodyRegexps = http.failIfBodyMatches.length > 0 || http.failIfBodyNotMatches.length > 0;
  let bodyLength = 0;
  let bodyRead = false;
  if (!requestErrored) {
    const read = await readBody(final, http, success && (bodyRegexps || celGauge !== undefined), deadline, resources);
    bodyLength = read.length;
    if (read.problem === undefined) {
      bodyRead = true;
      const body = read.body ?? Buffer.alloc(0);
      if (success && bodyRegexps) {
        const failIfMatches = http.failIfBodyMatches.map((pattern) => pattern.source);
        const failIfNotMatches = http.failIfBodyNotMatches.map((pattern) => pattern.source);
        // A body's length in bytes bounds its length in characters.
        const inline = { patterns: [...http.failIfBodyMatches, ...http.failIfBodyNotMatches], textLength: body.length };
        outcome = await checkOutcome({ kind: 'body-regexps', body, failIfMatches, failIfNotMatches }, inline, deadline, logger, 'body or header regexp failed', 'body regexps');
        success = outcome.success;
        regexGauge.set(success ? 0 : 1);
      }
      // Upstream hands the CEL check what the regexps left of the body (nothing, when they read it all);
      // here it gets the whole body, so that a module with both checks can pass.
      if (success && celGauge) {
        const job = { kind: 'cel', body, failIfMatches: http.failIfBodyJsonMatchesCel?.source, failIfNotMatches: http.failIfBodyJsonNotMatchesCel?.source } as const;
        outcome = await checkOutcome(job, undefined, deadline, logger, 'body CEL expression failed', 'CEL checks of the body');
        success = outcome.success;
        celGauge.set(success ? 0 : 1);
      }
    } else {
      const error = read.problem;
      logger.debug('Failed to read HTTP response body', { err: error as Error });
      if (success && bodyRegexps) regexGauge.set(1);
      else if (success && celGauge) celGauge.set(1);
      if (outcome.success) outcome = error instanceof BodyTooLarge ? failedBecause('HTTP response not accepted', error.detail) : failureOf(error, 'protocol error');
      success = false;
    }
  }
  if (http.validHttpVersions.length > 0 && !http.validHttpVersions.includes(final.proto)) {
    logger.error('Invalid HTTP version number', { version: final.proto });
    if (outcome.success) outcome = failedBecause('HTTP response not accepted', `the server answered ${final.proto}; valid_http_versions allows ${http.validHttpVersions.join(', ')}`);
  }
  return { outcome, bodyLength, bodyRead };
}

/** probe_http_duration_seconds from each hop's instants, summed over hops, as upstream's trace does it. */
function recordPhases(duration: ProbeGauge, hops: readonly HopResult[]): void {
  hops.forEach(({ timings }, index) => {
    const seconds = (from: number, to: number): number => Math.max(0, to - from) / 1000;
    // The first hop's resolve time came from the address helper.
    if (index > 0) duration.inc({ phase: 'resolve' }, seconds(timings.start, timings.dnsDone));
    if (timings.gotConn === undefined) return;
    if (timings.tlsStart !== undefined && timings.tlsDone !== undefined && timings.connectDone !== undefined) {
      duration.inc({ phase: 'connect' }, seconds(timings.dnsDone, timings.connectDone));
      duration.inc({ phase: 'tls' }, seconds(timings.tlsStart, timings.tlsDone));
    } else {
      duration.inc({ phase: 'connect' }, seconds(timings.dnsDone, timings.gotConn));
    }
    if (timings.responseStart === undefined) return;
    duration.inc({ phase: 'processing' }, seconds(timings.gotConn, timings.responseStart));
    if (timings.end === undefined) return;
    duration.inc({ phase: 'transfer' }, seconds(timings.responseStart, timings.end));
  });
}
