/**
 * The http prober against real servers on loopback: HTTP/1.1, HTTP/2 over TLS with a test CA, redirects,
 * proxies, compression, authentication, and servers that stall, trickle or reset.
 */
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { MAX_REDIRECTS } from '../../../src/probers/http/probe';
import { metricValue, type Sample } from '../../../loopback/metrics-text';
import { runProbe } from '../../support/probe-run';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';

// Both servers' responses offer the same methods used here; typed as HTTP/1's for brevity.
type Handler = (request: IncomingMessage | Http2ServerRequest, response: ServerResponse, body: string) => void;

const seen: Array<{ path: string; method: string; headers: Record<string, string | string[] | undefined>; body: string; remote: string | undefined; version: string; clientCertificate: boolean }> = [];
const GZIP_TEXT = 'compressible '.repeat(200);

const routes: Record<string, Handler> = {
  '/ok': (_q, s) => s.end('hello world'),
  '/notfound': (_q, s) => {
    s.statusCode = 404;
    s.end('nope');
  },
  '/echo': (_q, s, body) => s.end(body),
  '/json': (q, s, body) => {
    const valid = q.method === 'POST' && q.headers['content-type'] === 'application/json' && JSON.parse(body).hello === 'world';
    s.statusCode = valid ? 200 : 400;
    s.end();
  },
  '/headers': (q, s) => {
    s.setHeader('Set-Cookie', ['a=1', 'b=2']);
    s.setHeader('Access-Control-Allow-Origin', '*');
    s.setHeader('Last-Modified', 'Wed, 21 Oct 2015 07:28:00 GMT');
    s.end(JSON.stringify(q.headers));
  },
  '/gzip': (q, s) => {
    const encoding = String(q.headers['accept-encoding'] ?? '');
    const body = Buffer.from(GZIP_TEXT);
    const encoded = encoding === 'gzip' ? gzipSync(body) : encoding === 'br' ? brotliCompressSync(body) : encoding === 'deflate' ? deflateSync(body) : body;
    if (encoded !== body) s.setHeader('Content-Encoding', encoding);
    s.setHeader('Content-Length', encoded.length);
    s.end(encoded);
  },
  '/big': (_q, s) => s.end('x'.repeat(10_000)),
  '/chunked': (_q, s) => {
    s.write('part one ');
    setTimeout(() => s.end('part two'), 10);
  },
  '/stall': () => undefined,
  '/trickle': (_q, s) => {
    s.setHeader('Content-Length', 1000);
    s.write('x');
    const timer = setInterval(() => s.write('x'), 100);
    s.on('close', () => clearInterval(timer));
  },
};

function handle(request: IncomingMessage | Http2ServerRequest, response: ServerResponse | Http2ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const url = new URL(request.url ?? '/', 'http://x');
    const body = Buffer.concat(chunks).toString();
    seen.push({
      path: url.pathname,
      method: request.method ?? '',
      headers: { ...request.headers },
      body,
      remote: request.socket.remoteAddress,
      version: request.httpVersion,
      clientCertificate: (request.socket as { authorized?: boolean }).authorized === true,
    });
    const redirect = /^\/redirect\/(\d+)$/.exec(url.pathname);
    if (redirect) {
      const left = Number(redirect[1]);
      response.statusCode = 302;
      response.setHeader('Location', left > 1 ? `/redirect/${left - 1}` : '/ok');
      return void response.end();
    }
    if (url.pathname === '/loop') {
      response.statusCode = 301;
      response.setHeader('Location', '/loop');
      return void response.end();
    }
    if (url.pathname === '/post-redirect') {
      response.statusCode = Number(url.searchParams.get('status'));
      response.setHeader('Location', '/echo');
      return void response.end();
    }
    if (url.pathname === '/away') {
      response.statusCode = 302;
      response.setHeader('Location', url.searchParams.get('to') ?? '/');
      return void response.end();
    }
    if (url.pathname === '/auth') {
      response.statusCode = request.headers.authorization === url.searchParams.get('want') ? 200 : 401;
      return void response.end();
    }
    (routes[url.pathname] ?? routes['/notfound'])(request, response as ServerResponse, body);
  });
}

let plain: Server;
let secure: Http2SecureServer;
let stalled: NetServer;
let resetting: NetServer;
let proxy: Server;
let proxied: string[] = [];
let pki: TlsFixtures;
let base: string;
let secureBase: string;
let dir: string;
const sockets = new Set<Socket>();

async function listen(server: Server | Http2SecureServer | NetServer, host = '127.0.0.1'): Promise<number> {
  server.listen(0, host);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  pki = makeTlsFixtures();
  dir = mkdtempSync(join(tmpdir(), 'probekit-http-'));
  plain = createServer(handle);
  plain.on('connection', (socket) => sockets.add(socket));
  base = `http://127.0.0.1:${await listen(plain)}`;
  secure = createSecureServer({ cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, allowHTTP1: true, requestCert: true, rejectUnauthorized: false }, handle);
  secure.on('connection', (socket: Socket) => sockets.add(socket));
  secureBase = `https://localhost:${await listen(secure)}`;
  stalled = createNetServer((socket) => sockets.add(socket));
  resetting = createNetServer((socket) => socket.resetAndDestroy());
  // A forward proxy: absolute-URL requests for http, CONNECT tunnels for https.
  proxy = createServer((request, response) => {
    proxied.push(`${request.method} ${request.url}`);
    const target = new URL(request.url ?? '');
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: request.method, headers: request.headers }, (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(response);
    });
    request.pipe(upstream);
  });
  proxy.on('connect', (request: IncomingMessage, client: Socket) => {
    proxied.push(`CONNECT ${request.url} ${request.headers['x-tunnel'] ?? ''}`.trim());
    const [host, port] = (request.url ?? '').split(/:(?=\d+$)/);
    const upstream = netConnect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  proxy.on('connection', (socket) => sockets.add(socket));
  await Promise.all([listen(stalled), listen(resetting), listen(proxy)]);
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all([plain, secure, stalled, resetting, proxy].map((server) => new Promise((done) => server.close(done))));
  pki.cleanup();
});

beforeEach(() => {
  seen.length = 0;
  proxied = [];
});

const port = (server: NetServer | Server): number => (server.address() as AddressInfo).port;
const value = (samples: Sample[], name: string, labels?: Record<string, string>) => metricValue(samples, name, labels);
const ip4 = 'prober: http\nhttp:\n  preferred_ip_protocol: ip4\n';
const withHttp = (extra: string) => `${ip4}${extra.replace(/^/gm, '  ')}`;
const tlsModule = (extra = '') => withHttp(`tls_config:\n  ca_file: ${pki.caFile}\n${extra}`);

describe('http prober over HTTP/1.1', () => {
  it('succeeds on 2xx and records upstream metrics', async () => {
    const { success, samples } = await runProbe(ip4, `${base}/ok`);
    expect(success).toBe(true);
    expect(value(samples, 'probe_http_status_code')).toBe(200);
    expect(value(samples, 'probe_http_version')).toBe(1.1);
    expect(value(samples, 'probe_http_content_length')).toBe(11);
    expect(value(samples, 'probe_http_uncompressed_body_length')).toBe(11);
    expect(value(samples, 'probe_http_ssl')).toBe(0);
    expect(value(samples, 'probe_http_redirects')).toBe(0);
    expect(value(samples, 'probe_ip_protocol')).toBe(4);
    for (const phase of ['resolve', 'connect', 'tls', 'processing', 'transfer']) expect(value(samples, 'probe_http_duration_seconds', { phase })).toBeGreaterThanOrEqual(0);
    expect(value(samples, 'probe_http_duration_seconds', { phase: 'connect' })).toBeGreaterThan(0);
    expect(samples.some((sample) => sample.name.startsWith('probe_ssl_'))).toBe(false);
    // One product token, as upstream 0.28's Blackbox-Exporter/<version>.
    expect(seen[0].headers['user-agent']).toMatch(/^Probekit-Exporter\/\d+\.\d+\.\d+$/);
  });

  it('adds http:// to a bare host:port target', async () => {
    expect((await runProbe(ip4, `127.0.0.1:${port(plain)}/ok`)).success).toBe(true);
  });

  it('reports -1 content length for a chunked body, and its real length', async () => {
    const { samples } = await runProbe(ip4, `${base}/chunked`);
    expect(value(samples, 'probe_http_content_length')).toBe(-1);
    expect(value(samples, 'probe_http_uncompressed_body_length')).toBe(17);
  });

  it('valid_status_codes: default 2xx, or the listed ones', async () => {
    const failed = await runProbe(ip4, `${base}/notfound`);
    expect(failed.success).toBe(false);
    expect(value(failed.samples, 'probe_http_status_code')).toBe(404);
    expect((await runProbe(withHttp('valid_status_codes: [404]'), `${base}/notfound`)).success).toBe(true);
    expect((await runProbe(withHttp('valid_status_codes: [201]'), `${base}/ok`)).success).toBe(false);
  });

  it('method, headers and a JSON body (the http_post_2xx module)', async () => {
    const yaml = withHttp('method: POST\nheaders:\n  Content-Type: application/json\nbody: \'{"hello":"world"}\'');
    expect((await runProbe(yaml, `${base}/json`)).success).toBe(true);
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"hello":"world"}' });
    expect((await runProbe(withHttp('method: POST\nbody: \'{"hello":"world"}\''), `${base}/json`)).success).toBe(false);
  });

  it('body_file, read at probe time relative to the config', async () => {
    writeFileSync(join(dir, 'body.json'), '{"hello":"world"}');
    const yaml = withHttp('method: PUT\nbody_file: body.json');
    expect((await runProbe(yaml, `${base}/echo`, { configDir: dir })).success).toBe(true);
    expect(seen[0]).toMatchObject({ method: 'PUT', body: '{"hello":"world"}' });
  });

  it('sends headers and http_headers (values, secrets, files)', async () => {
    writeFileSync(join(dir, 'token'), 'file-token\n');
    const yaml = withHttp(
      `headers:\n  Authentication: Bearer inline\n  accept-language: de-CH\nhttp_headers:\n  X-Multi:\n    values: [one, two]\n    secrets: [three]\n  X-From-File:\n    files: [${join(dir, 'token')}]`,
    );
    await runProbe(yaml, `${base}/ok`);
    expect(seen[0].headers).toMatchObject({ authentication: 'Bearer inline', 'accept-language': 'de-CH', 'x-multi': 'one, two, three', 'x-from-file': 'file-token' });
  });

  it('reads a secret header file again once it changes: a Kubernetes Secret update, then an edit in place', async () => {
    const secret = join(dir, 'mounted-secret');
    mkdirSync(join(secret, '..v1'), { recursive: true });
    writeFileSync(join(secret, '..v1', 'token'), 'token-v1\n');
    symlinkSync('..v1', join(secret, '..data'));
    symlinkSync(join('..data', 'token'), join(secret, 'token'));
    const yaml = withHttp(`http_headers:\n  X-Token:\n    files: [${join(secret, 'token')}]`);
    const sentToken = async (): Promise<string | undefined> => {
      seen.length = 0;
      await runProbe(yaml, `${base}/ok`);
      return seen[0].headers['x-token'] as string | undefined;
    };
    expect(await sentToken()).toBe('token-v1');
    expect(await sentToken()).toBe('token-v1');
    // The kubelet writes the new version beside the old one and swaps the ..data link in one rename.
    mkdirSync(join(secret, '..v2'));
    writeFileSync(join(secret, '..v2', 'token'), 'token-v2\n');
    symlinkSync('..v2', join(secret, '..data-new'));
    renameSync(join(secret, '..data-new'), join(secret, '..data'));
    expect(await sentToken()).toBe('token-v2');
    // Same length, same inode: only the times tell.
    writeFileSync(join(secret, '..v2', 'token'), 'token-v3\n');
    expect(await sentToken()).toBe('token-v3');
  });

  it('basic_auth, authorization and bearer tokens, inline and from files', async () => {
    writeFileSync(join(dir, 'password'), 's3cret\n');
    writeFileSync(join(dir, 'credentials'), 'tok-file\n');
    const basic = `Basic ${Buffer.from('user:s3cret').toString('base64')}`;
    const want = (text: string) => `${base}/auth?want=${encodeURIComponent(text)}`;
    expect((await runProbe(withHttp('basic_auth:\n  username: user\n  password: s3cret'), want(basic))).success).toBe(true);
    expect((await runProbe(withHttp(`basic_auth:\n  username: user\n  password_file: ${join(dir, 'password')}`), want(basic))).success).toBe(true);
    writeFileSync(join(dir, 'username'), 'user\n');
    expect((await runProbe(withHttp(`basic_auth:\n  username_file: ${join(dir, 'username')}\n  password: s3cret`), want(basic))).success).toBe(true);
    expect((await runProbe(withHttp('basic_auth:\n  username: user\n  password: wrong'), want(basic))).success).toBe(false);
    expect((await runProbe(withHttp('authorization:\n  credentials: tok'), want('Bearer tok'))).success).toBe(true);
    expect((await runProbe(withHttp(`authorization:\n  type: Token\n  credentials_file: ${join(dir, 'credentials')}`), want('Token tok-file'))).success).toBe(true);
    expect((await runProbe(withHttp('bearer_token: tok'), want('Bearer tok'))).success).toBe(true);
    expect((await runProbe(withHttp(`bearer_token_file: ${join(dir, 'credentials')}`), want('Bearer tok-file'))).success).toBe(true);
  });

  it('credentials in the target URL become basic auth', async () => {
    const basic = `Basic ${Buffer.from('user:s3cret').toString('base64')}`;
    const target = `http://user:s3cret@127.0.0.1:${port(plain)}/auth?want=${encodeURIComponent(basic)}`;
    expect((await runProbe(ip4, target)).success).toBe(true);
  });

  it('fails clearly, without connecting, when a credentials file is missing', async () => {
    const run = await runProbe(withHttp('bearer_token_file: /nonexistent/token'), `${base}/ok`);
    expect(run.success).toBe(false);
    expect(run.log).toMatch(/bearer_token_file: cannot read \/nonexistent\/token/);
    expect(seen).toHaveLength(0);
  });

  it('body regexps, and probe_failed_due_to_regex', async () => {
    const matches = await runProbe(withHttp('fail_if_body_matches_regexp: ["(?i)HELLO"]'), `${base}/ok`);
    expect(matches.success).toBe(false);
    expect(value(matches.samples, 'probe_failed_due_to_regex')).toBe(1);
    const notMatches = await runProbe(withHttp('fail_if_body_not_matches_regexp: ["world$"]'), `${base}/ok`);
    expect(notMatches.success).toBe(true);
    expect(value(notMatches.samples, 'probe_failed_due_to_regex')).toBe(0);
    expect((await runProbe(withHttp('fail_if_body_not_matches_regexp: ["absent"]'), `${base}/ok`)).success).toBe(false);
  });

  it('header regexps, each header value apart, with allow_missing', async () => {
    const cookie = await runProbe(withHttp("fail_if_header_matches:\n  - header: Set-Cookie\n    regexp: '^b='"), `${base}/headers`);
    expect(cookie.success).toBe(false);
    expect(value(cookie.samples, 'probe_failed_due_to_regex')).toBe(1);
    expect((await runProbe(withHttp("fail_if_header_not_matches:\n  - header: Access-Control-Allow-Origin\n    regexp: '(\\*|example\\.com)'"), `${base}/headers`)).success).toBe(true);
    expect((await runProbe(withHttp("fail_if_header_not_matches:\n  - header: X-Missing\n    regexp: '.*'"), `${base}/headers`)).success).toBe(false);
    expect((await runProbe(withHttp("fail_if_header_matches:\n  - header: X-Missing\n    regexp: '.*'\n    allow_missing: true"), `${base}/headers`)).success).toBe(true);
  });

  it('records Last-Modified', async () => {
    const { samples } = await runProbe(ip4, `${base}/headers`);
    expect(value(samples, 'probe_http_last_modified_timestamp_seconds')).toBe(Date.parse('Wed, 21 Oct 2015 07:28:00 GMT') / 1000);
  });

  it('valid_http_versions', async () => {
    expect((await runProbe(withHttp('valid_http_versions: ["HTTP/1.1"]'), `${base}/ok`)).success).toBe(true);
    expect((await runProbe(withHttp('valid_http_versions: ["HTTP/2.0"]'), `${base}/ok`)).success).toBe(false);
  });

  it.each(['gzip', 'deflate', 'br'])('compression %s: asks for it and measures the uncompressed body', async (compression) => {
    const { success, samples } = await runProbe(withHttp(`compression: ${compression}`), `${base}/gzip`);
    expect(success).toBe(true);
    expect(seen[0].headers['accept-encoding']).toBe(compression);
    expect(value(samples, 'probe_http_uncompressed_body_length')).toBe(GZIP_TEXT.length);
    expect(value(samples, 'probe_http_content_length')).toBeLessThan(GZIP_TEXT.length);
  });

  it('compression: a body that is not compressed as configured fails', async () => {
    expect((await runProbe(withHttp('compression: gzip\nheaders:\n  Accept-Encoding: identity;q=0.5, gzip'), `${base}/ok`)).success).toBe(false);
  });

  it('body_size_limit', async () => {
    expect((await runProbe(withHttp('body_size_limit: 10KB'), `${base}/big`)).success).toBe(true);
    const over = await runProbe(withHttp('body_size_limit: 1KB'), `${base}/big`);
    expect(over.success).toBe(false);
    expect(over.log).toMatch(/body_size_limit/);
    expect(over.failure).toEqual({ reason: 'HTTP response not accepted', detail: 'the body is longer than body_size_limit (1024 bytes)' });
  });

  it('the hostname parameter sets the Host header', async () => {
    await runProbe(ip4, `${base}/ok`, { hostname: 'vhost.example' });
    expect(seen[0].headers.host).toBe('vhost.example');
    await runProbe(ip4, `${base}/ok`);
    expect(seen[0 + 1].headers.host).toBe(`127.0.0.1:${port(plain)}`);
  });

  it('source_ip_address: connections leave from that address', async () => {
    await runProbe(withHttp('source_ip_address: 127.0.0.2'), `${base}/ok`);
    expect(seen[0].remote).toBe('127.0.0.2');
  });

  it('probes an IPv6 literal target over IPv6', async () => {
    const v6 = createServer(handle);
    const v6Port = await listen(v6, '::1');
    try {
      const { success, samples } = await runProbe('prober: http\nhttp:\n  preferred_ip_protocol: ip6\n  ip_protocol_fallback: false', `http://[::1]:${v6Port}/ok`);
      expect(success).toBe(true);
      expect(value(samples, 'probe_ip_protocol')).toBe(6);
      expect(seen[0].headers.host).toBe(`[::1]:${v6Port}`);
    } finally {
      v6.close();
    }
  });

  it('preferred_ip_protocol with and without fallback', async () => {
    const v6Only = await runProbe('prober: http\nhttp:\n  preferred_ip_protocol: ip6\n  ip_protocol_fallback: false', `http://localhost:${port(plain)}/ok`);
    expect(v6Only.success).toBe(false);
    expect(value(v6Only.samples, 'probe_ip_protocol')).toBe(0);
    const fallback = await runProbe('prober: http', `http://localhost:${port(plain)}/ok`);
    expect(fallback.success).toBe(true);
    expect(value(fallback.samples, 'probe_ip_protocol')).toBe(4);
  });
});

describe('redirects', () => {
  it('follows a chain and counts it', async () => {
    const { success, samples } = await runProbe(ip4, `${base}/redirect/3`);
    expect(success).toBe(true);
    expect(value(samples, 'probe_http_redirects')).toBe(3);
    expect(value(samples, 'probe_http_status_code')).toBe(200);
    expect(seen.map((request) => request.path)).toEqual(['/redirect/3', '/redirect/2', '/redirect/1', '/ok']);
  });

  it(`stops a loop after ${MAX_REDIRECTS} redirects and fails`, async () => {
    const { success, samples } = await runProbe(ip4, `${base}/loop`);
    expect(success).toBe(false);
    expect(value(samples, 'probe_http_redirects')).toBe(MAX_REDIRECTS + 1);
    expect(value(samples, 'probe_http_status_code')).toBe(301);
    expect(seen).toHaveLength(MAX_REDIRECTS + 1);
  });

  it.each([
    ['no_follow_redirects: true', 'no_follow_redirects: true'],
    ['follow_redirects: false', 'follow_redirects: false'],
  ])('%s: the redirect is the answer', async (_name, setting) => {
    const { success, samples } = await runProbe(withHttp(setting), `${base}/redirect/2`);
    expect(success).toBe(false);
    expect(value(samples, 'probe_http_status_code')).toBe(302);
    expect(value(samples, 'probe_http_redirects')).toBe(1);
    expect(seen).toHaveLength(1);
    expect((await runProbe(withHttp(`${setting}\nvalid_status_codes: [302]`), `${base}/redirect/2`)).success).toBe(true);
  });

  describe('credentials on a redirect to another origin', () => {
    // A second server, on another port: what it receives is what a redirect sends to a host the module never named.
    let elsewhere: Server;
    let received: Array<IncomingMessage['headers']>;
    beforeAll(async () => {
      elsewhere = createServer((request, response) => {
        received.push({ ...request.headers });
        response.end('ok');
      });
      await listen(elsewhere);
    });
    beforeEach(() => {
      received = [];
    });
    afterAll(() => elsewhere.close());

    const tokenFile = (): string => {
      writeFileSync(join(dir, 'redirect-token'), 'from-file\n');
      return join(dir, 'redirect-token');
    };
    const credentialSettings: Array<[string, () => string]> = [
      ['bearer_token', () => 'bearer_token: configured'],
      ['basic_auth', () => 'basic_auth:\n  username: probe\n  password: pw'],
      ['authorization', () => 'authorization:\n  type: Token\n  credentials: configured'],
      ['headers: Authorization and Cookie', () => 'headers:\n  Authorization: Bearer from-headers\n  Cookie: session=1'],
      ['http_headers secrets and files', () => `http_headers:\n  X-Api-Key:\n    secrets: [key]\n  X-Token:\n    files: [${tokenFile()}]\n  X-Plain:\n    values: [kept]`],
    ];

    it.each(credentialSettings)('%s: sent to the target, not to another port or host, and the probe goes on', async (_name, settings) => {
      for (const other of [`http://127.0.0.1:${port(elsewhere)}/x`, `http://localhost:${port(elsewhere)}/x`]) {
        seen.length = 0;
        received = [];
        const { success } = await runProbe(withHttp(settings()), `${base}/away?to=${encodeURIComponent(other)}`);
        expect(success).toBe(true);
        const first = seen[0].headers;
        expect([first.authorization, first['x-api-key'], first['x-token']].some((value) => value !== undefined)).toBe(true);
        expect(received).toHaveLength(1);
        expect(received[0]).not.toHaveProperty('authorization');
        expect(received[0]).not.toHaveProperty('cookie');
        expect(received[0]).not.toHaveProperty('x-api-key');
        expect(received[0]).not.toHaveProperty('x-token');
        if (first['x-plain'] !== undefined) expect(received[0]['x-plain']).toBe('kept');
      }
    });

    it('user info in the target URL is dropped too; a redirect within the origin keeps every credential', async () => {
      const other = `http://127.0.0.1:${port(elsewhere)}/x`;
      await runProbe(withHttp(''), `http://probe:pw@127.0.0.1:${port(plain)}/away?to=${encodeURIComponent(other)}`);
      expect(seen[0].headers.authorization).toBe(`Basic ${Buffer.from('probe:pw').toString('base64')}`);
      expect(received[0]).not.toHaveProperty('authorization');
      seen.length = 0;
      await runProbe(withHttp('bearer_token: configured\nhttp_headers:\n  X-Api-Key:\n    secrets: [key]'), `${base}/redirect/2`);
      expect(seen.map((request) => `${request.headers.authorization} ${request.headers['x-api-key']}`)).toEqual(Array(3).fill('Bearer configured key'));
    });
  });

  it('303 turns POST into GET, 307 keeps it with its body', async () => {
    await runProbe(withHttp("method: POST\nbody: 'payload'"), `${base}/post-redirect?status=303`);
    expect(seen.map((request) => `${request.method} ${request.path} ${request.body}`)).toEqual(['POST /post-redirect payload', 'GET /echo ']);
    seen.length = 0;
    await runProbe(withHttp("method: POST\nbody: 'payload'"), `${base}/post-redirect?status=307`);
    expect(seen.map((request) => `${request.method} ${request.path} ${request.body}`)).toEqual(['POST /post-redirect payload', 'POST /echo payload']);
  });

  it('fail_if_ssl and fail_if_not_ssl judge the final request', async () => {
    expect((await runProbe(withHttp('fail_if_not_ssl: true'), `${base}/ok`)).failure).toEqual({
      reason: 'HTTP response not accepted',
      detail: 'the final response came without TLS, which fail_if_not_ssl refuses',
    });
    expect((await runProbe(withHttp('fail_if_ssl: true'), `${base}/ok`)).success).toBe(true);
  });
});

describe('http prober over TLS', () => {
  it('speaks HTTP/2 through ALPN and records the TLS metrics', async () => {
    const { success, samples } = await runProbe(tlsModule(), `${secureBase}/ok`);
    expect(success).toBe(true);
    expect(value(samples, 'probe_http_version')).toBe(2);
    expect(value(samples, 'probe_http_ssl')).toBe(1);
    expect(value(samples, 'probe_ssl_earliest_cert_expiry')).toBe(pki.serverNotAfter);
    expect(value(samples, 'probe_ssl_last_chain_expiry_timestamp_seconds')).toBe(pki.serverNotAfter);
    expect(value(samples, 'probe_tls_version_info', { version: 'TLS 1.3' })).toBe(1);
    expect(samples.find((sample) => sample.name === 'probe_ssl_last_chain_info')?.labels.subject).toBe('CN=localhost,O=probekit tests');
    expect(value(samples, 'probe_http_duration_seconds', { phase: 'tls' })).toBeGreaterThan(0);
    expect(seen[0].version).toBe('2.0');
  });

  it('enable_http2: false stays on HTTP/1.1', async () => {
    const { success, samples } = await runProbe(tlsModule('enable_http2: false'), `${secureBase}/ok`);
    expect(success).toBe(true);
    expect(value(samples, 'probe_http_version')).toBe(1.1);
    expect(seen[0].version).toBe('1.1');
  });

  it('over HTTP/2 a whole body passes against its content-length: compressed, and none after HEAD', async () => {
    for (const [yaml, path] of [
      ['compression: gzip', '/gzip'],
      ['method: HEAD', '/gzip'],
    ]) {
      const { success, samples } = await runProbe(tlsModule(yaml), `${secureBase}${path}`);
      expect({ yaml, success, version: value(samples, 'probe_http_version') }).toEqual({ yaml, success: true, version: 2 });
    }
  });

  it('POST with a JSON body over HTTP/2', async () => {
    const yaml = tlsModule('method: POST\nheaders:\n  Content-Type: application/json\nbody: \'{"hello":"world"}\'');
    expect((await runProbe(yaml, `${secureBase}/json`)).success).toBe(true);
  });

  it('an unknown CA fails unless insecure_skip_verify', async () => {
    const unknown = await runProbe(ip4, `${secureBase}/ok`);
    expect(unknown.success).toBe(false);
    expect(unknown.samples.some((sample) => sample.name === 'probe_http_ssl' && sample.value === 0)).toBe(true);
    const insecure = await runProbe(withHttp('tls_config:\n  insecure_skip_verify: true'), `${secureBase}/ok`);
    expect(insecure.success).toBe(true);
    expect(value(insecure.samples, 'probe_ssl_last_chain_expiry_timestamp_seconds')).toBe(-62135596800);
  });

  it('server_name is what the certificate is checked against', async () => {
    expect((await runProbe(tlsModule('  server_name: other.example'), `${secureBase}/ok`)).success).toBe(false);
    expect((await runProbe(tlsModule('  server_name: localhost'), `https://127.0.0.1:${port(secure as unknown as Server)}/ok`)).success).toBe(true);
  });

  it('cert_file and key_file present a client certificate', async () => {
    const yaml = tlsModule(`  cert_file: ${pki.clientCertFile}\n  key_file: ${pki.clientKeyFile}`);
    await runProbe(yaml, `${secureBase}/ok`);
    await runProbe(tlsModule(), `${secureBase}/ok`);
    // The server asks for a client certificate; authorized means it got one our CA signed.
    expect(seen.map((request) => request.clientCertificate)).toEqual([true, false]);
  });

  it('max_version caps the version offered', async () => {
    const { samples } = await runProbe(tlsModule('  max_version: TLS12'), `${secureBase}/ok`);
    expect(value(samples, 'probe_tls_version_info', { version: 'TLS 1.2' })).toBe(1);
  });

  it('min_version refuses an older server', async () => {
    const old = createSecureServer({ cert: pki.serverCert, key: pki.serverKey, allowHTTP1: true, maxVersion: 'TLSv1.2' }, handle);
    const oldPort = await listen(old);
    try {
      expect((await runProbe(tlsModule('  min_version: TLS13'), `https://localhost:${oldPort}/ok`)).success).toBe(false);
      const tls12 = await runProbe(tlsModule('  min_version: TLS12'), `https://localhost:${oldPort}/ok`);
      expect(tls12.success).toBe(true);
      expect(value(tls12.samples, 'probe_tls_version_info', { version: 'TLS 1.2' })).toBe(1);
    } finally {
      old.close();
    }
  });

  it('fail_if_ssl fails an HTTPS final request', async () => {
    expect((await runProbe(tlsModule('fail_if_ssl: true'), `${secureBase}/ok`)).failure).toEqual({
      reason: 'HTTP response not accepted',
      detail: 'the final response came over TLS, which fail_if_ssl refuses',
    });
    expect((await runProbe(tlsModule('fail_if_not_ssl: true'), `${secureBase}/ok`)).success).toBe(true);
  });
});

describe('proxies', () => {
  it('proxy_url for http: the request goes to the proxy with an absolute URL', async () => {
    const { success } = await runProbe(withHttp(`proxy_url: http://127.0.0.1:${port(proxy)}`), `${base}/ok`);
    expect(success).toBe(true);
    expect(proxied).toEqual([`GET ${base}/ok`]);
  });

  it('proxy_url for https: a CONNECT tunnel with proxy_connect_header', async () => {
    const yaml = tlsModule(`proxy_url: http://127.0.0.1:${port(proxy)}\nskip_resolve_phase_with_proxy: true\nproxy_connect_header:\n  X-Tunnel: [yes]`);
    const { success, samples } = await runProbe(yaml, `${secureBase}/ok`);
    expect(success).toBe(true);
    expect(proxied).toEqual([`CONNECT localhost:${port(secure as unknown as Server)} yes`]);
    // Skipping the resolve phase leaves the address metrics out, as upstream.
    expect(samples.some((sample) => sample.name === 'probe_ip_protocol')).toBe(false);
  });
});

describe('deadlines and misbehaving servers', () => {
  // A stalled server never answers: only the deadline can end these probes, and each says so.
  it('a stalled server: probe_success 0 at the deadline', async () => {
    const { success, failure, deadlineExpired, samples } = await runProbe(ip4, `http://127.0.0.1:${port(stalled)}/`, { timeoutMs: 500 });
    expect([success, failure?.reason, deadlineExpired]).toEqual([false, 'timed out', true]);
    expect(value(samples, 'probe_http_status_code')).toBe(0);
  });

  it('a server that stops sending the body: ends at the deadline', async () => {
    const { success, failure, deadlineExpired, samples } = await runProbe(ip4, `${base}/trickle`, { timeoutMs: 400 });
    expect([success, failure?.reason, deadlineExpired]).toEqual([false, 'timed out', true]);
    expect(value(samples, 'probe_http_status_code')).toBe(200);
  });

  it('a server that stalls the TLS handshake: ends at the deadline', async () => {
    const { success, failure, deadlineExpired } = await runProbe(withHttp('tls_config:\n  insecure_skip_verify: true'), `https://127.0.0.1:${port(stalled)}/`, { timeoutMs: 400 });
    expect([success, failure?.reason, deadlineExpired]).toEqual([false, 'timed out', true]);
  });

  it('a resetting server fails the probe', async () => {
    const { success, log } = await runProbe(ip4, `http://127.0.0.1:${port(resetting)}/`);
    expect(success).toBe(false);
    expect(log).toMatch(/ECONNRESET|socket hang up/);
  });

  it('a closed port fails the probe', async () => {
    const closed = createNetServer();
    const closedPort = await listen(closed);
    await new Promise((done) => closed.close(done));
    expect((await runProbe(ip4, `http://127.0.0.1:${closedPort}/`)).success).toBe(false);
  });
});
