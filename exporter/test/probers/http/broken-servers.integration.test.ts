/**
 * Servers that break the connection while the http prober reads a response: each used to end the whole
 * process with an 'error' event no listener took (ECONNRESET, "Parse Error: Invalid character in chunk
 * size", on the ClientRequest). Each must fail the probe, quickly, and raise nothing (an uncaught error
 * fails the test run). Every other phase and prober is in ../hostile.integration.test.ts.
 */
import { startHostileServer, type Behaviour, type HostileServer } from '../../../loopback/hostile-server';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';
import { runProbe } from '../../support/probe-run';

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n';

/** Answers `text` to the request, then resets the connection 20 ms later when `reset` says so. */
const answer =
  (text: string, reset = true): Behaviour =>
  (connection) =>
    void connection.firstData().then(() => {
      connection.stream.write(text);
      if (reset) setTimeout(() => connection.reset(), 20);
    });

const CASES: Array<[string, Behaviour]> = [
  ['a reset mid-body', answer(`${HEAD}${'x'.repeat(10)}`)],
  ['a reset right after the headers', answer(HEAD)],
  ['a reset after 100 Continue and a partial response', answer(`HTTP/1.1 100 Continue\r\n\r\n${HEAD}xx`)],
  ['a malformed chunk size on a connection kept open', answer('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n', false)],
];

const MODULE = 'prober: http\ntimeout: 5s\nhttp:\n  preferred_ip_protocol: ip4\n  tls_config:\n    insecure_skip_verify: true';

describe('the http prober against servers that break the response', () => {
  let fixtures: TlsFixtures;
  const servers: HostileServer[] = [];

  beforeAll(() => {
    fixtures = makeTlsFixtures();
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    fixtures.cleanup();
  });

  describe.each([
    ['http', undefined],
    ['https', () => ({ cert: fixtures.serverCert, key: fixtures.serverKey, alpn: ['http/1.1'] })],
  ] as const)('over %s', (scheme, tls) => {
    it.each(CASES)('%s fails the probe at once', async (_name, behaviour) => {
      const server = await startHostileServer(behaviour, { tls: tls?.() });
      servers.push(server);
      const run = await runProbe(MODULE, `${scheme}://127.0.0.1:${server.port}/`, { timeoutMs: 30_000 });
      expect(run.success).toBe(false);
      // At once: on what the server did, long before a deadline it could otherwise have waited for.
      expect(run.deadlineExpired).toBe(false);
    });
  });
});
