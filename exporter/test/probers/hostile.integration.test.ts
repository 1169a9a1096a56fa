/**
 * Hostile targets for every prober, ours and the reference exporter (Debian's 0.23) run as processes with
 * the same config and asked the same /probe: servers that reset or close at every phase, answer garbage or
 * malformed framing, stall, drip, truncate, send huge headers or redirect to other schemes. Ours must give
 * probe_success as the reference does, answer within the module's deadline, and keep answering /-/healthy
 * within a second all along; the process must outlive all of it. icmp has no hostile case here: an echo
 * reply comes from the kernel, which no loopback server can make misbehave without a network namespace.
 *
 * @ci-seconds 25
 */
import * as dnsPacket from 'dns-packet';
import { stringify } from 'yaml';
import { describeWithBinaries } from '../../../test/support/integration';
import { startHostileServer, startHostileUdpServer, type Behaviour, type DatagramBehaviour, type HostileConnection } from '../../loopback/hostile-server';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { REFERENCE_EXPORTER, startPair, type ExporterPair } from '../../loopback/reference-exporter';
import { makeTlsFixtures, type TlsFixtures } from '../../loopback/tls-fixtures';

/** Every module's timeout: a stalled case costs this much on both sides. */
const TIMEOUT_SECONDS = 1.5;
/**
 * What ending "at the deadline" allows on top of it, in the probe_duration_seconds our exporter reports: its own
 * latency on a busy machine (the test's clock is not used: it would count jest's pauses too).
 */
const SLACK_SECONDS = 1;

// ---- behaviours every TCP-based protocol meets ----

const resetAtOnce: Behaviour = (connection) => connection.reset();
const closeAtOnce: Behaviour = (connection) => connection.stream.end();
const stall: Behaviour = () => undefined;
/**
 * A reset a moment after accepting. Reset at once, a connect-only probe races the kernel: the handshake is
 * complete before the server even accepts, and the client sees success or ECONNRESET depending on whether its
 * event loop reads the connection's state before the reset lands (Go's dialer and ours alike). The delay
 * leaves the connect the time to complete, so both exporters must report it, and the reset then hits a probe
 * that has ended.
 */
const resetSoonAfterAccept: Behaviour = (connection) => void setTimeout(() => connection.reset(), 300);
/** After the client's first bytes (a request, a query, a preface): do `then`. */
const afterRequest =
  (then: (connection: HostileConnection) => void): Behaviour =>
  (connection) =>
    void connection.firstData().then(() => then(connection));
const answer = (data: Buffer | string, end: 'reset' | 'close' | 'stay'): Behaviour =>
  afterRequest((connection) => {
    connection.stream.write(data);
    if (end === 'reset') setTimeout(() => connection.reset(), 20);
    if (end === 'close') connection.stream.end();
  });
const drip = (data: string, intervalMs: number): Behaviour => afterRequest((connection) => connection.drip(data, intervalMs, () => connection.stream.end()));
const GARBAGE = Buffer.from('\u0000\u00ff\u00fe garbage \u0001\u0002\r\n\r\n\u0000', 'latin1');

// ---- HTTP/1 ----

const HEAD_1000 = 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n';
const headerBytes = (bytes: number): string => {
  const lines: string[] = [];
  for (let index = 0; lines.length * 1024 < bytes; index += 1) lines.push(`X-Filler-${index}: ${'x'.repeat(1000)}`);
  return lines.join('\r\n');
};
const http1Cases = (): Array<[string, Behaviour]> => [
  ['a reset on accept', resetAtOnce],
  ['a close on accept', closeAtOnce],
  ['a reset after the request', afterRequest((connection) => connection.reset())],
  ['a close after the request', afterRequest((connection) => connection.stream.end())],
  ['garbage for a response', answer(GARBAGE, 'close')],
  ['a response without a status line', answer('hello\n', 'close')],
  ['an invalid status code', answer('HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n', 'close')],
  ['a header line without a colon', answer('HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 0\r\n\r\n', 'close')],
  ['two different Content-Lengths', answer('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc', 'close')],
  ['a reset mid-head', answer('HTTP/1.1 200 OK\r\nContent-Le', 'reset')],
  ['a close mid-head', answer('HTTP/1.1 200 OK\r\nContent-Le', 'close')],
  ['a reset right after the head', answer(HEAD_1000, 'reset')],
  ['a reset mid-body', answer(`${HEAD_1000}${'x'.repeat(10)}`, 'reset')],
  ['a body cut short', answer(`${HEAD_1000}${'x'.repeat(10)}`, 'close')],
  ['a reset after 100 Continue and a partial response', answer(`HTTP/1.1 100 Continue\r\n\r\n${HEAD_1000}xx`, 'reset')],
  ['a malformed chunk size on a connection kept open', answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n', 'stay')],
  ['a chunked body cut short', answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel', 'close')],
  ['a body without a length, ended by close', answer('HTTP/1.1 200 OK\r\n\r\nhello', 'close')],
  ['a stall after the request', stall],
  ['a stall mid-head', answer('HTTP/1.1 200 OK\r\n', 'stay')],
  ['a stall mid-body', answer(`${HEAD_1000}xx`, 'stay')],
  ['a head dripped past the deadline', drip(`HTTP/1.1 200 OK\r\n${'X-Slow: 1\r\n'.repeat(20)}Content-Length: 0\r\n\r\n`, 20)],
  ['1 MB of headers', answer(`HTTP/1.1 200 OK\r\n${headerBytes(1 << 20)}\r\nContent-Length: 2\r\n\r\nok`, 'close')],
  ['11 MB of headers', answer(`HTTP/1.1 200 OK\r\n${headerBytes(11 << 20)}\r\nContent-Length: 2\r\n\r\nok`, 'close')],
  ...['ftp://127.0.0.1/', 'file:///etc/passwd', 'gopher://127.0.0.1/', 'javascript:alert(1)', 'http://[::1'].map((location): [string, Behaviour] => [
    `a redirect to ${location}`,
    answer(`HTTP/1.1 302 Found\r\nLocation: ${location}\r\nContent-Length: 0\r\n\r\n`, 'close'),
  ]),
];

// ---- HTTP/2 (TLS, ALPN h2) and gRPC (h2c) ----

/** An HTTP/2 frame: 24-bit length, type, flags, 31-bit stream id, payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type, 3);
  header.writeUInt8(flags, 4);
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}
const SETTINGS = frame(4, 0, 0);
const SETTINGS_ACK = frame(4, 1, 0);
const GOAWAY = frame(7, 0, 0, Buffer.from([0, 0, 0, 0, 0, 0, 0, 2]));
const RST_STREAM = frame(3, 0, 1, Buffer.from([0, 0, 0, 2]));
/** A HEADERS frame for stream 1 whose HPACK block refers to a table entry that does not exist. */
const BAD_HPACK = frame(1, 4, 1, Buffer.from([0xff, 0xff, 0x7f]));
/** A HEADERS frame for stream 1 with `:status: 200` (static table entry 8), ending the headers. */
const STATUS_200 = frame(1, 4, 1, Buffer.from([0x88]));
/** A HEADERS frame for stream 1 with `:status: 200` and `content-length: 1000` (static table entry 28, the value literal). */
const STATUS_200_LENGTH_1000 = frame(1, 4, 1, Buffer.concat([Buffer.from([0x88, 0x5c, 0x04]), Buffer.from('1000')]));
/** The first bytes of a body, then GOAWAY: the server goes away before the body reaches its content-length. */
const BODY_CUT_BY_GOAWAY = Buffer.concat([SETTINGS, SETTINGS_ACK, STATUS_200_LENGTH_1000, frame(0, 0, 1, Buffer.from('par')), GOAWAY]);
const http2Cases = (): Array<[string, Behaviour]> => [
  ['a reset on accept', resetAtOnce],
  ['a close on accept', closeAtOnce],
  ['garbage for a preface', answer(GARBAGE, 'close')],
  ['SETTINGS, then a reset', answer(Buffer.concat([SETTINGS, SETTINGS_ACK]), 'reset')],
  ['SETTINGS, then a stall', answer(Buffer.concat([SETTINGS, SETTINGS_ACK]), 'stay')],
  ['GOAWAY at once', answer(Buffer.concat([SETTINGS, GOAWAY]), 'stay')],
  ['RST_STREAM for the request', answer(Buffer.concat([SETTINGS, SETTINGS_ACK, RST_STREAM]), 'stay')],
  ['a header block HPACK cannot decode', answer(Buffer.concat([SETTINGS, SETTINGS_ACK, BAD_HPACK]), 'stay')],
  ['a head, then a reset mid-body', answer(Buffer.concat([SETTINGS, SETTINGS_ACK, STATUS_200, frame(0, 0, 1, Buffer.from('par'))]), 'reset')],
  ['a head, then a stall', answer(Buffer.concat([SETTINGS, SETTINGS_ACK, STATUS_200]), 'stay')],
  ['an HTTP/1.1 answer', answer('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n', 'close')],
  ['a stall', stall],
];

// ---- tcp ----

const tcpCases = (): Array<[string, string, Behaviour]> => [
  ['connect only: a reset just after accept', 'tcp_connect', resetSoonAfterAccept],
  ['connect only: a close on accept', 'tcp_connect', closeAtOnce],
  ['a reset before the line', 'tcp_expect', resetAtOnce],
  ['a close before the line', 'tcp_expect', closeAtOnce],
  ['garbage lines', 'tcp_expect', (connection) => connection.stream.end(GARBAGE)],
  ['a NUL inside the line', 'tcp_expect', (connection) => connection.stream.end('o\u0000k\n')],
  ['the line without its newline, then a close', 'tcp_expect', (connection) => connection.stream.end('ok')],
  ['the line, then a reset', 'tcp_expect', (connection) => connection.stream.write('ok\n', () => setTimeout(() => connection.reset(), 20))],
  ['a stall', 'tcp_expect', stall],
  ['the line dripped within the deadline', 'tcp_expect', (connection) => connection.drip('ok\n', 50)],
  ['a line dripped past the deadline', 'tcp_expect', (connection) => connection.drip(`${'o'.repeat(100)}k\n`, 20)],
  ['a line of 100 KB', 'tcp_expect', (connection) => connection.stream.write(`${'o'.repeat(100_000)}k\n`)],
  ['64 KiB without a newline, then a stall', 'tcp_expect', (connection) => connection.stream.write('o'.repeat(65_536))],
  ['TLS: a reset during the handshake', 'tcp_tls', afterRequest((connection) => connection.reset())],
  ['TLS: garbage for a ServerHello', 'tcp_tls', answer(GARBAGE, 'close')],
  ['TLS: a stall during the handshake', 'tcp_tls', stall],
];

// ---- dns ----

/** An answer to `query` (its id and question), with `mutate` applied to the encoded bytes. */
function dnsAnswer(query: Buffer, mutate: (encoded: Buffer) => Buffer = (encoded) => encoded, flags = 0): Buffer {
  const decoded = dnsPacket.decode(query);
  const encoded = dnsPacket.encode({
    id: decoded.id,
    type: 'response',
    flags: dnsPacket.RECURSION_DESIRED | flags,
    questions: decoded.questions,
    answers: [{ name: decoded.questions?.[0]?.name ?? 'probe.test', type: 'A', class: 'IN', ttl: 60, data: '192.0.2.1' }],
  });
  return mutate(encoded);
}
const dnsUdpCases = (): Array<[string, DatagramBehaviour]> => [
  ['no answer', () => undefined],
  ['an empty datagram', (_query, reply) => reply(Buffer.alloc(0))],
  ['garbage', (_query, reply) => reply(GARBAGE)],
  ['a good answer', (query, reply) => reply(dnsAnswer(query))],
  ['an answer cut short', (query, reply) => reply(dnsAnswer(query, (encoded) => encoded.subarray(0, encoded.length - 3)))],
  ['an answer with another id', (query, reply) => reply(dnsAnswer(query, (encoded) => Buffer.concat([Buffer.from([encoded[0] ^ 0xff, encoded[1]]), encoded.subarray(2)])))],
  ['an answer with the truncated bit', (query, reply) => reply(dnsAnswer(query, undefined, dnsPacket.TRUNCATED_RESPONSE))],
  ['the answer twice', (query, reply) => [0, 1].forEach(() => reply(dnsAnswer(query)))],
];
const lengthPrefixed = (message: Buffer, declared = message.length): Buffer => Buffer.concat([Buffer.from([declared >> 8, declared & 0xff]), message]);
const dnsTcpCases = (): Array<[string, Behaviour]> => [
  ['a reset on accept', resetAtOnce],
  ['a close on accept', closeAtOnce],
  ['a reset after the query', afterRequest((connection) => connection.reset())],
  ['garbage', answer(GARBAGE, 'close')],
  ['a length of 0', answer(Buffer.from([0, 0]), 'close')],
  ['a message shorter than its length, then a close', afterRequest((connection) => connection.stream.end(lengthPrefixed(Buffer.alloc(10), 100)))],
  ['a message shorter than its length, then a stall', afterRequest((connection) => connection.stream.write(lengthPrefixed(Buffer.alloc(10), 100)))],
  ['a good answer', (connection) => void connection.firstData().then((query) => connection.stream.write(lengthPrefixed(dnsAnswer(query.subarray(2)))))],
  ['a good answer dripped past the deadline', (connection) => void connection.firstData().then((query) => connection.drip(lengthPrefixed(dnsAnswer(query.subarray(2))).toString('latin1'), 100))],
  ['a stall', stall],
];

interface Outcome {
  readonly reference: number | 'no answer' | undefined;
  readonly ours: number | undefined;
  /** probe_duration_seconds, as our exporter reports it. */
  readonly oursSeconds: number | undefined;
  readonly oursStatus: number;
}

describeWithBinaries([REFERENCE_EXPORTER])('hostile targets, every prober, against the reference exporter', () => {
  let fixtures: TlsFixtures;
  let exporters: ExporterPair;
  let healthPolls = 0;
  const healthFailures: string[] = [];
  let polling = true;
  let poller: Promise<void>;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    const ip4 = { preferred_ip_protocol: 'ip4' };
    const module = (prober: string, section: Record<string, unknown> = {}) => ({ prober, timeout: `${TIMEOUT_SECONDS}s`, [prober]: { ...ip4, ...section } });
    exporters = await startPair(
      stringify({
        modules: {
          http_2xx: module('http', { tls_config: { insecure_skip_verify: true } }),
          tcp_connect: module('tcp'),
          tcp_expect: module('tcp', { query_response: [{ expect: '^ok$' }] }),
          tcp_tls: module('tcp', { tls: true, tls_config: { insecure_skip_verify: true } }),
          dns_udp: module('dns', { query_name: 'probe.test' }),
          dns_tcp: module('dns', { query_name: 'probe.test', transport_protocol: 'tcp' }),
          grpc: module('grpc'),
          grpc_tls: module('grpc', { tls: true, tls_config: { insecure_skip_verify: true } }),
        },
      }),
    );
    // A scrape starts the exporter's measure of its event loop afresh (prom-client resets it at each collection): the
    // one at the end then covers the cases, not the start-up.
    await fetch(`${exporters.ours.baseUrl}/metrics`).then((response) => response.text());
    // /-/healthy, all along: never an error (how long its event loop was held is its own metric, checked at the end).
    poller = (async () => {
      while (polling) {
        try {
          const response = await fetch(`${exporters.ours.baseUrl}/-/healthy`, { signal: AbortSignal.timeout(5000) });
          if (!response.ok) healthFailures.push(`status ${response.status}`);
        } catch (error) {
          healthFailures.push((error as Error).message);
        }
        healthPolls += 1;
        await new Promise((done) => setTimeout(done, 100));
      }
    })();
  });

  afterAll(async () => {
    polling = false;
    await poller;
    await exporters?.stop();
    fixtures?.cleanup();
  });

  /** The reference's probe_success, or 'no answer' when it has not answered well after the deadline. */
  async function referenceSuccess(module: string, target: string): Promise<number | 'no answer' | undefined> {
    const query = new URLSearchParams({ module, target });
    try {
      const response = await fetch(`${exporters.reference.baseUrl}/probe?${query}`, { signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000 + 3000) });
      return metricValue(parseMetrics(await response.text()), 'probe_success');
    } catch {
      return 'no answer';
    }
  }

  async function probeBoth(module: string, target: string): Promise<Outcome> {
    const [reference, ours] = await Promise.all([referenceSuccess(module, target), exporters.ours.probe({ module, target })]);
    return { reference, ours: metricValue(ours.samples, 'probe_success'), oursSeconds: metricValue(ours.samples, 'probe_duration_seconds'), oursStatus: ours.status };
  }

  /**
   * probe_success as the reference gives it, within the deadline. Where the reference never answers (0.23's
   * grpc prober waits on a server that stalls mid-call without any deadline), a scrape gets nothing, which
   * Prometheus records as a failure: ours must answer 0, in time.
   */
  function expectAsReference(outcome: Outcome): void {
    expect(outcome.oursStatus).toBe(200);
    expect(outcome.reference).toBeDefined();
    expect(outcome.ours).toBe(outcome.reference === 'no answer' ? 0 : outcome.reference);
    expect(outcome.oursSeconds).toBeLessThan(TIMEOUT_SECONDS + SLACK_SECONDS);
  }

  /** Probes the server `starting` starts, with `module`, at the target `at` its port, then closes it. */
  async function probeHostile(starting: Promise<{ readonly port: number; close(): Promise<void> }>, module: string, at: (port: number) => string): Promise<void> {
    const server = await starting;
    try {
      expectAsReference(await probeBoth(module, at(server.port)));
    } finally {
      await server.close();
    }
  }

  // The cases run a few at a time (jest's maxConcurrency, 5): each has a server of its own, and a stalled one costs
  // its deadline (1.5 s) on both sides, so one at a time the file took 90 s. The /-/healthy check comes after them all.
  const tls = (alpn: string[]) => () => ({ cert: fixtures.serverCert, key: fixtures.serverKey, alpn });

  describe.each([
    ['http', undefined],
    ['https', tls(['http/1.1'])],
  ] as const)('http over %s', (scheme, tlsOptions) => {
    it.concurrent.each(http1Cases())('%s', async (_name, behaviour) => {
      await probeHostile(startHostileServer(behaviour, { tls: tlsOptions?.() }), 'http_2xx', (port) => `${scheme}://127.0.0.1:${port}/`);
    });
  });

  it.concurrent.each([
    ['a reset during the handshake', afterRequest((connection) => connection.reset())],
    ['garbage for a ServerHello', answer(GARBAGE, 'close')],
    ['a plain HTTP answer', answer('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', 'close')],
    ['a stall during the handshake', stall],
  ] as Array<[string, Behaviour]>)('https: %s', async (_name, behaviour) => {
    await probeHostile(startHostileServer(behaviour), 'http_2xx', (port) => `https://127.0.0.1:${port}/`);
  });

  it.concurrent.each([
    ...http2Cases(),
    ['part of a body declaring 1000 bytes, then GOAWAY and a close', answer(BODY_CUT_BY_GOAWAY, 'close')],
    ['part of a body declaring 1000 bytes, then GOAWAY and a stall', answer(BODY_CUT_BY_GOAWAY, 'stay')],
    ['part of a body declaring 1000 bytes, then a close', answer(Buffer.concat([SETTINGS, SETTINGS_ACK, STATUS_200_LENGTH_1000, frame(0, 0, 1, Buffer.from('par'))]), 'close')],
  ] as Array<[string, Behaviour]>)('https over HTTP/2: %s', async (_name, behaviour) => {
    await probeHostile(startHostileServer(behaviour, { tls: tls(['h2'])() }), 'http_2xx', (port) => `https://127.0.0.1:${port}/`);
  });

  it.concurrent.each(tcpCases())('tcp: %s (%s)', async (_name, module, behaviour) => {
    await probeHostile(startHostileServer(behaviour), module, (port) => `127.0.0.1:${port}`);
  });

  it.concurrent.each(dnsUdpCases())('dns over udp: %s', async (_name, behaviour) => {
    await probeHostile(startHostileUdpServer(behaviour), 'dns_udp', (port) => `127.0.0.1:${port}`);
  });

  it.concurrent.each(dnsTcpCases())('dns over tcp: %s', async (_name, behaviour) => {
    await probeHostile(startHostileServer(behaviour), 'dns_tcp', (port) => `127.0.0.1:${port}`);
  });

  it.concurrent.each(http2Cases())('grpc: %s', async (_name, behaviour) => {
    await probeHostile(startHostileServer(behaviour), 'grpc', (port) => `127.0.0.1:${port}`);
  });

  it.concurrent.each(http2Cases())('grpc over TLS: %s', async (_name, behaviour) => {
    await probeHostile(startHostileServer(behaviour, { tls: tls(['h2'])() }), 'grpc_tls', (port) => `127.0.0.1:${port}`);
  });

  it('kept answering /-/healthy throughout, its event loop never held a second, and is still running', async () => {
    expect(healthPolls).toBeGreaterThan(10);
    expect(healthFailures).toEqual([]);
    // The exporter's own measure (prom-client's, the longest delay of its event loop since the scrape before the
    // cases), not the round trips of the test's requests, which count jest's pauses. It is held to the promise the
    // exporter makes, each probe's deadline with the slack every case above allows: a loop held longer would have
    // kept a concurrent probe past its deadline. A check that held the loop (a backtracking regexp, a CEL
    // expression quadratic in the body) holds it for seconds to minutes.
    const lag = metricValue(parseMetrics(await (await fetch(`${exporters.ours.baseUrl}/metrics`)).text()), 'nodejs_eventloop_lag_max_seconds');
    expect(lag).toBeLessThan(TIMEOUT_SECONDS + SLACK_SECONDS);
    expect((await fetch(`${exporters.ours.baseUrl}/-/healthy`)).ok).toBe(true);
  });
});
