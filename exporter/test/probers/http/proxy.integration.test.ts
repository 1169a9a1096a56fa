/**
 * proxy_from_environment, no_proxy and proxy_connect_header against a forward proxy this test starts. The
 * proxy sends every request, whatever host it names, to a loopback server, so targets can carry names
 * (probe.test) that nothing resolves: with skip_resolve_phase_with_proxy the exporter never looks them up.
 * Go's rules decide what goes through the proxy: never localhost or a loopback address once no_proxy or the
 * environment is involved, and never what NO_PROXY lists.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { compileProxy, type ProxyFields } from '../../../src/probers/http/proxy';
import type { CompileContext } from '../../../src/probers/definition';
import { moduleProblems } from '../../../src/contract';
import { metricValue } from '../../../loopback/metrics-text';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';
import { runProbe } from '../../support/probe-run';

let fixtures: TlsFixtures;
let origin: Server;
let secureOrigin: Server;
let proxy: Server;
let proxied: string[];
let direct: string[];
const sockets = new Set<Socket>();
const ENVIRONMENT = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
const savedEnvironment: Record<string, string | undefined> = {};

const port = (server: Server): number => (server.address() as AddressInfo).port;

beforeAll(async () => {
  fixtures = makeTlsFixtures();
  proxied = [];
  direct = [];
  origin = createServer((request, response) => {
    // Requests the proxy forwards carry its mark; others came straight to the origin.
    if (request.headers['x-forwarded-by'] !== 'test-proxy') direct.push(`${request.method} ${request.url}`);
    response.end('origin');
  });
  secureOrigin = createHttpsServer({ cert: fixtures.serverCert, key: fixtures.serverKey }, (_request, response) => response.end('secure origin'));
  proxy = createServer((request, response) => {
    proxied.push(`${request.method} ${request.url}`);
    const target = new URL(request.url ?? '');
    const forwarded = httpRequest(
      { host: '127.0.0.1', port: port(origin), path: target.pathname, method: request.method, headers: { ...request.headers, 'x-forwarded-by': 'test-proxy' } },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
      },
    );
    request.pipe(forwarded);
  });
  proxy.on('connect', (request: IncomingMessage, client: Socket) => {
    proxied.push(`CONNECT ${request.url} ${request.headers['x-tunnel'] ?? ''}`.trim());
    const upstream = netConnect(port(secureOrigin), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  for (const server of [origin, secureOrigin, proxy]) {
    server.on('connection', (socket: Socket) => sockets.add(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  }
  for (const name of ENVIRONMENT) savedEnvironment[name] = process.env[name];
});

afterEach(() => {
  for (const name of ENVIRONMENT) {
    if (savedEnvironment[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnvironment[name];
  }
  proxied.length = 0;
  direct.length = 0;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all([origin, secureOrigin, proxy].map((server) => new Promise((done) => server.close(done))));
  fixtures.cleanup();
});

const proxiedModule = (lines: string): string => `prober: http\nhttp:\n  preferred_ip_protocol: ip4\n  skip_resolve_phase_with_proxy: true\n${lines.replace(/^/gm, '  ')}\n`;

describe('proxy_from_environment', () => {
  it('sends http requests through HTTP_PROXY and https ones through HTTPS_PROXY with proxy_connect_header', async () => {
    process.env.HTTP_PROXY = `127.0.0.1:${port(proxy)}`;
    process.env.HTTPS_PROXY = `http://127.0.0.1:${port(proxy)}`;
    const plain = await runProbe(proxiedModule('proxy_from_environment: true'), 'http://probe.test/health');
    expect(plain.success).toBe(true);
    expect(proxied).toEqual(['GET http://probe.test/health']);
    const tls = await runProbe(
      proxiedModule(`proxy_from_environment: true\nproxy_connect_header:\n  X-Tunnel: [env]\ntls_config:\n  ca_file: ${fixtures.caFile}\n  server_name: localhost`),
      'https://probe.test/',
    );
    expect(tls.success).toBe(true);
    expect(metricValue(tls.samples, 'probe_http_ssl')).toBe(1);
    expect(proxied).toEqual(['GET http://probe.test/health', 'CONNECT probe.test:443 env']);
  });

  it('goes direct to loopback addresses and to what NO_PROXY lists, as Go does', async () => {
    process.env.http_proxy = `http://127.0.0.1:${port(proxy)}`;
    process.env.NO_PROXY = 'probe.test';
    const loopback = await runProbe(proxiedModule('proxy_from_environment: true'), `http://127.0.0.1:${port(origin)}/direct`);
    expect(loopback.success).toBe(true);
    expect(proxied).toEqual([]);
    expect(direct).toEqual(['GET /direct']);
  });

  it('probes without a proxy when the environment names none', async () => {
    for (const name of ENVIRONMENT) delete process.env[name];
    const run = await runProbe(proxiedModule('proxy_from_environment: true'), `http://127.0.0.1:${port(origin)}/plain`);
    expect(run.success).toBe(true);
    expect(direct).toEqual(['GET /plain']);
  });
});

describe('no_proxy', () => {
  it('proxies what it does not list; with it set, loopback goes direct, without it everything is proxied', async () => {
    const withNoProxy = proxiedModule(`proxy_url: http://127.0.0.1:${port(proxy)}\nno_proxy: internal.example,10.0.0.0/8`);
    expect((await runProbe(withNoProxy, 'http://probe.test/a')).success).toBe(true);
    expect((await runProbe(withNoProxy, `http://127.0.0.1:${port(origin)}/b`)).success).toBe(true);
    expect(proxied).toEqual(['GET http://probe.test/a']);
    expect(direct).toEqual(['GET /b']);
    const withoutNoProxy = proxiedModule(`proxy_url: http://127.0.0.1:${port(proxy)}`);
    expect((await runProbe(withoutNoProxy, `http://127.0.0.1:${port(origin)}/c`)).success).toBe(true);
    expect(proxied).toEqual(['GET http://probe.test/a', `GET http://127.0.0.1:${port(origin)}/c`]);
  });

  it("matches hosts, domains, IPs and ranges by Go's httpproxy rules", () => {
    const problems: string[] = [];
    const context: CompileContext = { pattern: () => ({}) as never, cel: () => ({}) as never, problem: (_path, message) => problems.push(message) };
    const choice = (fields: ProxyFields) => compileProxy(fields, context)!;
    const rules = choice({ proxy_url: 'http://proxy.example:3128', no_proxy: 'example.com, .sub.example.org, *.wild.example, 192.0.2.1, 198.51.100.0/24, svc.example:8443' });
    const proxiedFor = (url: string): boolean => rules.forUrl(new URL(url)) !== undefined;
    expect(proxiedFor('http://example.com/')).toBe(false);
    expect(proxiedFor('http://api.example.com/')).toBe(false);
    expect(proxiedFor('http://notexample.com/')).toBe(true);
    expect(proxiedFor('http://sub.example.org/')).toBe(true);
    expect(proxiedFor('http://a.sub.example.org/')).toBe(false);
    expect(proxiedFor('http://wild.example/')).toBe(true);
    expect(proxiedFor('http://x.wild.example/')).toBe(false);
    expect(proxiedFor('http://192.0.2.1/')).toBe(false);
    expect(proxiedFor('http://192.0.2.2/')).toBe(true);
    expect(proxiedFor('http://198.51.100.77/')).toBe(false);
    expect(proxiedFor('https://svc.example:8443/')).toBe(false);
    expect(proxiedFor('https://svc.example/')).toBe(true);
    expect(proxiedFor('http://localhost:9115/')).toBe(false);
    expect(proxiedFor('http://[::1]:9115/')).toBe(false);
    expect(choice({ proxy_url: 'http://proxy.example:3128', no_proxy: '*' }).forUrl(new URL('http://anything.example/'))).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('refuses the combinations prometheus/common refuses', () => {
    const messages = (http: Record<string, unknown>) => moduleProblems('m', { prober: 'http', http }).map((problem) => `${problem.path.join('.')}: ${problem.message}`);
    expect(messages({ no_proxy: 'a.example' })).toEqual(['modules.m.http.no_proxy: no_proxy needs proxy_url']);
    expect(messages({ proxy_from_environment: true, proxy_url: 'http://p.example:3128' })).toEqual(['modules.m.http.proxy_url: set proxy_url or proxy_from_environment, not both']);
    expect(messages({ proxy_from_environment: true, no_proxy: 'a.example' })).toEqual(['modules.m.http.no_proxy: no_proxy does not apply with proxy_from_environment (NO_PROXY does); remove it']);
    expect(messages({ proxy_connect_header: { 'X-A': ['b'] } })).toEqual(['modules.m.http.proxy_connect_header: proxy_connect_header needs proxy_url or proxy_from_environment']);
    expect(messages({ proxy_from_environment: true, proxy_connect_header: { 'X-A': ['b'] } })).toEqual([]);
  });
});
