/**
 * One HTTP request and its response over a connection opened for it alone (no pooling: connecting and
 * the TLS handshake are part of what a probe measures), through an optional proxy, speaking HTTP/2 when
 * TLS ALPN agrees on it. Every request, response, socket, session and stream it opens is owned by the
 * probe's Resources from the moment it exists, and destroyed when the probe ends or its deadline fires.
 */
import { once } from 'node:events';
import { request as http1Request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect as http2Connect, constants as http2Constants, type ClientHttp2Stream, type IncomingHttpHeaders as Http2Headers } from 'node:http2';
import { isIP, type Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import type { Readable } from 'node:stream';
import type { ProbeDeadline } from '../types';
import { beforeDeadline } from '../shared/deadline';
import { connectTcp, secureSocket } from '../shared/dial';
import { joinHostPort } from '../shared/host-port';
import type { Resources } from '../shared/resources';
import { tlsConnectionState, type TlsConnectionState } from '../shared/tls';
import type { Proxy } from './proxy';
import type { HeaderList } from './request';

/** Instants (performance.now()) of one request, as upstream's client trace records them. */
export interface Timings {
  start: number;
  dnsDone: number;
  connectDone?: number;
  tlsStart?: number;
  tlsDone?: number;
  gotConn?: number;
  responseStart?: number;
  end?: number;
}

export interface Hop {
  /** The URL requested; its host may be the resolved IP. */
  readonly url: URL;
  /** Where to connect: an IP, or a name the socket resolves. */
  readonly address: string;
  readonly port: number;
  readonly tls: boolean;
  /** Host header (HTTP/1.1) or :authority (HTTP/2). */
  readonly host: string;
  /** Name the server certificate is checked against. */
  readonly serverName: string;
}

export interface ExchangeSettings {
  readonly tlsOptions?: ConnectionOptions;
  readonly enableHttp2: boolean;
  readonly sourceAddress?: string;
  readonly proxy?: Proxy;
}

export interface OutgoingRequest {
  readonly method: string;
  readonly headers: HeaderList;
  readonly body?: Buffer;
}

export interface IncomingResponse {
  readonly status: number;
  /** As Go writes it: HTTP/1.1, HTTP/2.0. */
  readonly proto: string;
  /** Every header line, name lower-cased, repeated headers kept apart. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Readable;
  /** The TLS session the response came over, when it did. */
  readonly tls?: TlsConnectionState;
  /** The Content-Length header, -1 when absent or when the body is chunked. */
  readonly contentLength: number;
  /**
   * The bytes the body must have for the response to be whole, when the transport leaves that to us to check
   * (HTTP/2: Node's client ends a stream whose session went away as if the body were complete); -1 otherwise
   * (HTTP/1.1, whose parser checks it, a HEAD request, a 204 or 304, no content-length).
   */
  readonly wholeLength: number;
}

function declaredLength(headers: ReadonlyArray<readonly [string, string]>, whenAbsent: number): number {
  if (headers.some(([name]) => name === 'transfer-encoding')) return -1;
  const declared = headers.find(([name]) => name === 'content-length')?.[1];
  return declared === undefined || !/^\d+$/.test(declared.trim()) ? whenAbsent : Number(declared);
}

/**
 * The most header bytes a response may have: Go's client takes up to 10 MB (MaxResponseHeaderBytes), where
 * Node's default (16 KiB) would fail a probe that upstream passes.
 */
const MAX_RESPONSE_HEADER_BYTES = 10 << 20;

/** Node's HTTP/2 client refuses more than 128 header fields by default; Go limits the bytes only. */
const MAX_RESPONSE_HEADER_FIELDS = MAX_RESPONSE_HEADER_BYTES / 32;

/** Headers HTTP/2 forbids; node refuses them on a stream. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
}

/** Asks an HTTP proxy for a tunnel to `authority` (host:port) and resolves once it says 2xx. */
async function tunnel(socket: Socket, authority: string, proxy: Proxy, deadline: ProbeDeadline): Promise<void> {
  const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  const credentials = proxyAuthorization(proxy.url);
  if (credentials) lines.push(`Proxy-Authorization: ${credentials}`);
  for (const [name, values] of Object.entries(proxy.connectHeaders)) for (const value of values) lines.push(`${name}: ${value}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const reply = new Promise<void>((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      socket.pause();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received.subarray(0, end).toString('latin1'));
      if (status && status[1].startsWith('2')) resolve();
      else reject(new Error(`proxy refused CONNECT ${authority}: ${received.subarray(0, received.indexOf('\r\n')).toString('latin1')}`));
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('end', () => reject(new Error('proxy closed the connection during CONNECT')));
  });
  await beforeDeadline(deadline, 'proxy CONNECT', reply);
}

function flatHeaders(headers: HeaderList): OutgoingHttpHeaders {
  const flat: OutgoingHttpHeaders = {};
  for (const [name, values] of headers) flat[name] = values.length === 1 ? values[0] : values;
  return flat;
}

function http1Headers(raw: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let index = 0; index + 1 < raw.length; index += 2) pairs.push([raw[index].toLowerCase(), raw[index + 1]]);
  return pairs;
}

function http2Headers(headers: Http2Headers): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers as IncomingHttpHeaders)) {
    if (name.startsWith(':') || value === undefined) continue;
    for (const single of Array.isArray(value) ? value : [value]) pairs.push([name, single]);
  }
  return pairs;
}

/** One request over a connection that is open: what to send, where, and what the probe holds. */
interface OpenExchange {
  readonly hop: Hop;
  readonly path: string;
  readonly request: OutgoingRequest;
  readonly deadline: ProbeDeadline;
  readonly timings: Timings;
  readonly resources: Resources;
}

async function exchangeHttp1(socket: Socket, { hop, path, request, deadline, timings, resources }: OpenExchange, tls?: TlsConnectionState): Promise<IncomingResponse> {
  const outgoingHeaders = flatHeaders([['Host', [hop.host]], ...request.headers]);
  if (request.body) outgoingHeaders['Content-Length'] = String(request.body.length);
  const outgoing = resources.own(http1Request({ createConnection: () => socket, method: request.method, path, headers: outgoingHeaders, setHost: false, maxHeaderSize: MAX_RESPONSE_HEADER_BYTES }));
  // Go keeps every header line; Node's client would drop those past the 2000th.
  outgoing.maxHeadersCount = 0;
  const response = beforeDeadline(deadline, 'processing', once(outgoing, 'response') as Promise<[import('node:http').IncomingMessage]>);
  outgoing.end(request.body);
  const [incoming] = await response;
  timings.responseStart = performance.now();
  const headers = http1Headers(incoming.rawHeaders);
  return { status: incoming.statusCode ?? 0, proto: `HTTP/${incoming.httpVersion}`, headers, body: incoming, tls, contentLength: declaredLength(headers, -1), wholeLength: -1 };
}

/**
 * The response head of `stream`. Waiting on the 'response' event alone would wait for the deadline when the
 * connection is reset before the head: the stream then closes without an error of its own.
 */
function http2ResponseHead(stream: ClientHttp2Stream): Promise<Http2Headers> {
  return new Promise((resolve, reject) => {
    stream.once('response', resolve);
    stream.once('error', reject);
    stream.once('close', () => reject(new Error(`the stream closed before the response head (HTTP/2 error code ${stream.rstCode ?? 'none'})`)));
  });
}

async function exchangeHttp2(tlsSocket: TLSSocket, tls: TlsConnectionState, { hop, path, request, deadline, timings, resources }: OpenExchange): Promise<IncomingResponse> {
  // A server push is nothing a probe asked for.
  const session = resources.own(
    http2Connect(`https://${hop.host}`, {
      createConnection: () => tlsSocket,
      maxHeaderListPairs: MAX_RESPONSE_HEADER_FIELDS,
      settings: { enablePush: false, maxHeaderListSize: MAX_RESPONSE_HEADER_BYTES },
    }),
  );
  const headers: OutgoingHttpHeaders = {
    [http2Constants.HTTP2_HEADER_METHOD]: request.method,
    [http2Constants.HTTP2_HEADER_PATH]: path,
    [http2Constants.HTTP2_HEADER_SCHEME]: 'https',
    [http2Constants.HTTP2_HEADER_AUTHORITY]: hop.host,
  };
  for (const [name, values] of request.headers) if (!CONNECTION_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = values.length === 1 ? values[0] : values;
  if (request.body) headers['content-length'] = String(request.body.length);
  const stream: ClientHttp2Stream = resources.own(session.request(headers, { endStream: !request.body }));
  const response = beforeDeadline(deadline, 'processing', http2ResponseHead(stream));
  if (request.body) stream.end(request.body);
  const incoming = await response;
  timings.responseStart = performance.now();
  const received = http2Headers(incoming);
  const status = Number(incoming[':status'] ?? 0);
  const contentLength = declaredLength(received, -1);
  const bodyless = request.method === 'HEAD' || status === 204 || status === 304;
  return { status, proto: 'HTTP/2.0', headers: received, body: stream, tls, contentLength, wholeLength: bodyless ? -1 : contentLength };
}

/** Sends `request` to `hop` over a new connection and resolves with the response head; the body is left to read. */
export async function exchange(hop: Hop, request: OutgoingRequest, settings: ExchangeSettings, deadline: ProbeDeadline, timings: Timings, resources: Resources): Promise<IncomingResponse> {
  const authority = joinHostPort(hop.address, hop.port);
  const proxy = settings.proxy;
  let socket: Socket;
  let path = `${hop.url.pathname}${hop.url.search}`;
  if (proxy) {
    const proxyEndpoint = { address: proxy.url.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.url.port || (proxy.url.protocol === 'https:' ? 443 : 80)), source: settings.sourceAddress };
    socket = await connectTcp(deadline, proxyEndpoint, resources);
    if (hop.tls) await tunnel(socket, authority, proxy, deadline);
    else {
      // Plain HTTP through a proxy: the request line carries the absolute URL, with the address the exporter
      // resolved and checked in place of the name (as upstream), so the proxy cannot resolve it to another.
      const absolute = new URL(hop.url.href);
      if (isIP(hop.address) !== 0 && !hop.address.includes('%')) absolute.hostname = isIP(hop.address) === 6 ? `[${hop.address}]` : hop.address;
      path = absolute.toString();
      const credentials = proxyAuthorization(proxy.url);
      if (credentials) request = { ...request, headers: [...request.headers, ['Proxy-Authorization', [credentials]]] };
    }
  } else {
    socket = await connectTcp(deadline, { address: hop.address, port: hop.port, source: settings.sourceAddress }, resources);
  }
  timings.connectDone = performance.now();
  const open: OpenExchange = { hop, path, request, deadline, timings, resources };
  if (!hop.tls) {
    timings.gotConn = timings.connectDone;
    return exchangeHttp1(socket, open);
  }
  timings.tlsStart = performance.now();
  const tlsSocket = await secureSocket(deadline, 'tls', socket, { ...settings.tlsOptions, ALPNProtocols: settings.enableHttp2 ? ['h2', 'http/1.1'] : undefined }, resources);
  timings.tlsDone = performance.now();
  timings.gotConn = timings.tlsDone;
  const tls = tlsConnectionState(tlsSocket);
  if (tlsSocket.alpnProtocol === 'h2') return exchangeHttp2(tlsSocket, tls, open);
  return exchangeHttp1(tlsSocket, open, tls);
}
