/**
 * Differential test: the reference blackbox_exporter 0.23.0 and ours, same config, same local targets,
 * compared case by case on probe_success, status code, HTTP version, SSL flag, redirect count and the set
 * of metric names.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { SCRAPE_TIMEOUT_HEADER } from '../../../src/contract/endpoints';
import { describeWithBinaries } from '../../../../test/support/integration';
import { metricNames, metricValue, type Sample } from '../../../loopback/metrics-text';
import { REFERENCE_EXPORTER, startPair, type ExporterPair } from '../../../loopback/reference-exporter';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';
import { documentedModulesYaml } from '../../support/documented-modules';
import { asReference } from '../../support/newer-than-reference';

const COMPARED = [
  'probe_success',
  'probe_http_status_code',
  'probe_http_version',
  'probe_http_ssl',
  'probe_http_redirects',
  'probe_failed_due_to_regex',
  'probe_ip_protocol',
  'probe_ip_addr_hash',
  'probe_http_content_length',
  'probe_http_uncompressed_body_length',
  'probe_http_last_modified_timestamp_seconds',
  'probe_ssl_earliest_cert_expiry',
  'probe_ssl_last_chain_expiry_timestamp_seconds',
];

/** Info metrics: their labels are the value. */
const COMPARED_LABELS = ['probe_tls_version_info', 'probe_ssl_last_chain_info'];

const pick = (samples: Sample[]) => ({
  ...Object.fromEntries(COMPARED.map((name) => [name, metricValue(samples, name)])),
  ...Object.fromEntries(COMPARED_LABELS.map((name) => [name, samples.find((sample) => sample.name === name)?.labels])),
});

function handler(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://x');
  const redirect = /^\/redirect\/(\d+)$/.exec(url.pathname);
  if (redirect) {
    const left = Number(redirect[1]);
    response.writeHead(302, { Location: left > 1 ? `/redirect/${left - 1}` : '/ok' });
    return void response.end();
  }
  switch (url.pathname) {
    case '/ok':
      return void response.end('hello world');
    case '/ftp':
      // To the same server and port: a client that followed it as plain HTTP would get 200.
      response.writeHead(302, { Location: `ftp://${request.headers.host}/ok` });
      return void response.end();
    case '/big-headers':
      // 40 KiB of headers in 320 fields: legal, past Node's default limits (16 KiB; 128 fields over HTTP/2), well within Go's 10 MB.
      for (let index = 0; index < 320; index += 1) response.setHeader(`X-Filler-${index}`, 'x'.repeat(128));
      return void response.end('hello world');
    case '/loop':
      response.writeHead(301, { Location: '/loop' });
      return void response.end();
    case '/json': {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk));
      request.on('end', () => {
        response.statusCode = request.method === 'POST' && body === '{"probe":true}' && request.headers['content-type'] === 'application/json' ? 200 : 400;
        response.end();
      });
      return;
    }
    case '/auth':
      response.statusCode = request.headers.authentication === 'Bearer test-token' && request.headers['accept-language'] === 'en-US' ? 200 : 401;
      return void response.end();
    case '/gzip': {
      const body = gzipSync(Buffer.from('compressed hello '.repeat(50)));
      response.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      return void response.end(body);
    }
    case '/headers':
      response.writeHead(200, { 'Set-Cookie': 'session=1', 'Last-Modified': 'Wed, 21 Oct 2015 07:28:00 GMT' });
      return void response.end('hello world');
    case '/stall':
      return;
    default:
      response.statusCode = 404;
      return void response.end('not here');
  }
}

const CONFIG = `modules:
${documentedModulesYaml({ authentication: 'Bearer test-token', acceptLanguage: 'en-US', postBody: '{"probe":true}' })}  no_redirects:
    prober: http
    http:
      preferred_ip_protocol: ip4
      no_follow_redirects: true
  http1_only:
    prober: http
    http:
      preferred_ip_protocol: ip4
      enable_http2: false
      tls_config:
        insecure_skip_verify: true
  must_be_ssl:
    prober: http
    http:
      preferred_ip_protocol: ip4
      fail_if_not_ssl: true
  must_not_be_ssl:
    prober: http
    http:
      preferred_ip_protocol: ip4
      fail_if_ssl: true
      tls_config:
        insecure_skip_verify: true
  body_regexp:
    prober: http
    http:
      preferred_ip_protocol: ip4
      fail_if_body_matches_regexp: ["(?i)HELLO"]
  body_not_regexp:
    prober: http
    http:
      preferred_ip_protocol: ip4
      fail_if_body_not_matches_regexp: ["world$"]
  header_regexp:
    prober: http
    http:
      preferred_ip_protocol: ip4
      fail_if_header_matches:
        - header: Set-Cookie
          regexp: 'session'
  header_missing:
    prober: http
    http:
      preferred_ip_protocol: ip4
      fail_if_header_not_matches:
        - header: X-Absent
          regexp: '.*'
  gzip:
    prober: http
    http:
      preferred_ip_protocol: ip4
      compression: gzip
  gzip_limited:
    prober: http
    http:
      preferred_ip_protocol: ip4
      compression: gzip
      body_size_limit: 100B
  gzip_limited_regexp:
    prober: http
    http:
      preferred_ip_protocol: ip4
      compression: gzip
      body_size_limit: 100B
      fail_if_body_not_matches_regexp: ["compressed"]
  limited:
    prober: http
    http:
      preferred_ip_protocol: ip4
      body_size_limit: 10B
  status_404:
    prober: http
    http:
      preferred_ip_protocol: ip4
      valid_status_codes: [404]
  only_http2:
    prober: http
    http:
      preferred_ip_protocol: ip4
      valid_http_versions: ["HTTP/2.0"]
      tls_config:
        insecure_skip_verify: true
  verify_tls:
    prober: http
    http:
      preferred_ip_protocol: ip4
  short:
    prober: http
    timeout: 1s
    http:
      preferred_ip_protocol: ip4
  default_ip:
    prober: http
`;

describeWithBinaries([REFERENCE_EXPORTER])('differential: reference blackbox_exporter 0.23.0 vs ours (http)', () => {
  let pki: TlsFixtures;
  let plain: Server;
  let secure: Http2SecureServer;
  let closedPort: number;
  let pair: ExporterPair;
  let http: string;
  let https: string;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    pki = makeTlsFixtures();
    plain = createServer(handler).listen(0, '127.0.0.1');
    secure = createSecureServer({ cert: pki.serverCert, key: pki.serverKey, allowHTTP1: true }, handler as never).listen(0, '127.0.0.1');
    const closed: NetServer = createNetServer().listen(0, '127.0.0.1');
    await Promise.all([once(plain, 'listening'), once(secure, 'listening'), once(closed, 'listening')]);
    plain.on('connection', (socket) => sockets.add(socket));
    secure.on('connection', (socket: Socket) => sockets.add(socket));
    closedPort = (closed.address() as AddressInfo).port;
    closed.close();
    http = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    https = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    pair = await startPair(CONFIG);
  });

  afterAll(async () => {
    await pair?.stop();
    for (const socket of sockets) socket.destroy();
    plain?.close();
    secure?.close();
    pki?.cleanup();
  });

  const cases: Array<[string, string, () => string]> = [
    ['http_2xx on HTTP/1.1', 'http_2xx', () => `${http}/ok`],
    ['http_2xx on HTTP/2 over TLS', 'http_2xx', () => `${https}/ok`],
    ['http_2xx on a 404', 'http_2xx', () => `${http}/missing`],
    ['http_2xx through a redirect chain', 'http_2xx', () => `${http}/redirect/3`],
    ['http_2xx through a redirect chain over TLS', 'http_2xx', () => `${https}/redirect/2`],
    ['http_2xx in a redirect loop', 'http_2xx', () => `${http}/loop`],
    ['http_2xx redirected to ftp://', 'http_2xx', () => `${http}/ftp`],
    ['http_2xx with 40 KiB of response headers', 'http_2xx', () => `${http}/big-headers`],
    ['http_2xx with 40 KiB of response headers over HTTP/2', 'http_2xx', () => `${https}/big-headers`],
    ['http_2xx on a closed port', 'http_2xx', () => `http://127.0.0.1:${closedPort}/`],
    ['http_2xx on a bare host:port target', 'http_2xx', () => `${http.replace('http://', '')}/ok`],
    ['http_2xx_with_header sends the headers', 'http_2xx_with_header', () => `${http}/auth`],
    ['http_2xx_with_header over TLS', 'http_2xx_with_header', () => `${https}/auth`],
    ['http_2xx without the headers is refused', 'http_2xx', () => `${http}/auth`],
    ['http_post_2xx sends the JSON body', 'http_post_2xx', () => `${http}/json`],
    ['http_post_2xx over HTTP/2', 'http_post_2xx', () => `${https}/json`],
    ['no_follow_redirects', 'no_redirects', () => `${http}/redirect/2`],
    ['enable_http2 false', 'http1_only', () => `${https}/ok`],
    ['fail_if_not_ssl on http', 'must_be_ssl', () => `${http}/ok`],
    ['fail_if_ssl on https', 'must_not_be_ssl', () => `${https}/ok`],
    ['body regexp matches', 'body_regexp', () => `${http}/ok`],
    ['body regexp not matched', 'body_not_regexp', () => `${http}/ok`],
    ['header regexp matches', 'header_regexp', () => `${http}/headers`],
    ['required header missing', 'header_missing', () => `${http}/headers`],
    ['gzip compression', 'gzip', () => `${http}/gzip`],
    ['a gzip body past body_size_limit', 'gzip_limited', () => `${http}/gzip`],
    ['a gzip body past body_size_limit, with a body regexp', 'gzip_limited_regexp', () => `${http}/gzip`],
    ['a body past body_size_limit', 'limited', () => `${http}/ok`],
    ['valid_status_codes 404', 'status_404', () => `${http}/missing`],
    ['valid_http_versions HTTP/2.0 on HTTP/1.1', 'only_http2', () => `${http}/ok`],
    ['unknown CA with verification', 'verify_tls', () => `${https}/ok`],
    ['stalled server', 'short', () => `${http}/stall`],
    ['default ip6 with fallback to ip4', 'default_ip', () => `http://localhost:${(plain.address() as AddressInfo).port}/ok`],
  ];

  it.each(cases)('%s', async (_name, module, target) => {
    const { reference, ours } = await pair.probeBoth({ module, target: target() });
    expect(ours.status).toBe(reference.status);
    expect(metricValue(reference.samples, 'probe_success')).toBeDefined();
    expect(pick(asReference(ours.samples))).toEqual(pick(reference.samples));
    expect(metricNames(asReference(ours.samples))).toEqual(metricNames(reference.samples));
  });

  it('answers unknown modules and missing targets as the reference does', async () => {
    for (const request of [
      { module: 'nope', target: http },
      { module: 'http_2xx', target: '' },
    ]) {
      const { reference, ours } = await pair.probeBoth(request);
      expect(ours.status).toBe(reference.status);
    }
  });

  it("reads the scrape timeout header as Go's strconv.ParseFloat does", async () => {
    const values = ['Infinity', '-inf', 'NaN', '+nan', '1e309', '0x10', '0x1p-2', ' 5 ', '1_0', '1__0', '.5', '5.', '1e3', '+3', '-1', '0', 'abc', ''];
    const statuses = async (headerValue: string) => {
      const { reference, ours } = await pair.probeBoth({ module: 'http_2xx', target: `${http}/ok`, headers: { [SCRAPE_TIMEOUT_HEADER]: headerValue } });
      return { value: headerValue, reference: reference.status, ours: ours.status };
    };
    const answers = await Promise.all(values.map(statuses));
    expect(answers.filter((answer) => answer.ours !== answer.reference)).toEqual([]);
    // Both kinds were there: accepted values and refused ones.
    expect(new Set(answers.map((answer) => answer.reference))).toEqual(new Set([200, 500]));
  });
});

describeWithBinaries([REFERENCE_EXPORTER])('differential: certificate expiries when the CA expires first', () => {
  let pki: TlsFixtures;
  const servers: Http2SecureServer[] = [];
  let pair: ExporterPair;

  beforeAll(async () => {
    pki = makeTlsFixtures({ caDays: 30, serverDays: 60 });
    pair = await startPair(`modules:
  with_ca:
    prober: http
    http:
      preferred_ip_protocol: ip4
      tls_config:
        ca_file: ${pki.caFile}
`);
  });

  afterAll(async () => {
    await pair?.stop();
    for (const server of servers) server.close();
    pki?.cleanup();
  });

  async function serving(certificates: string): Promise<string> {
    const server = createSecureServer({ cert: certificates, key: pki.serverKey, allowHTTP1: true }, handler as never).listen(0, '127.0.0.1');
    servers.push(server);
    await once(server, 'listening');
    return `https://localhost:${(server.address() as AddressInfo).port}/ok`;
  }

  it.each([
    ['the server sends its certificate alone', () => pki.serverCert],
    ['the server sends the CA too', () => `${pki.serverCert}${pki.ca}`],
  ])('%s', async (_name, certificates) => {
    const { reference, ours } = await pair.probeBoth({ module: 'with_ca', target: await serving(certificates()) });
    expect(metricValue(ours.samples, 'probe_success')).toBe(1);
    expect(pick(asReference(ours.samples))).toEqual(pick(reference.samples));
  });
});
