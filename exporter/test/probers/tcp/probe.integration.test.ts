import type { ModuleInput } from '../../../src/contract';
import { metricNames, metricValue } from '../../../loopback/metrics-text';
import { handlesLeftAfter, openHandles } from '../../../../test/support/open-handles';
import { runModule, runProbe } from '../../support/probe-run';
import { startHostileServer } from '../../../loopback/hostile-server';
import { BANNER, startTcpTestServer, type TcpTestServer } from '../../../loopback/tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';

type TcpSettings = NonNullable<ModuleInput['tcp']>;

const waitFor = async (condition: () => boolean): Promise<void> => {
  for (let tries = 0; tries < 50 && !condition(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('tcp prober', () => {
  let fixtures: TlsFixtures;
  let plain: TcpTestServer;
  let tls: TcpTestServer;
  let silent: TcpTestServer;
  let plain6: TcpTestServer;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    const certs = { cert: fixtures.serverCert, key: fixtures.serverKey };
    plain = await startTcpTestServer(certs);
    tls = await startTcpTestServer({ ...certs, tls: true });
    silent = await startTcpTestServer({ silent: true });
    plain6 = await startTcpTestServer({ host: '::1' });
  });
  afterAll(async () => {
    await Promise.all([plain.close(), tls.close(), silent.close(), plain6.close()]);
    fixtures.cleanup();
  });
  beforeEach(() => {
    plain.lines.length = 0;
    tls.lines.length = 0;
  });

  const probe = (server: TcpTestServer, tcp: TcpSettings = {}, timeoutMs = 2000, host = '127.0.0.1') =>
    runModule({ prober: 'tcp', tcp: { preferred_ip_protocol: 'ip4', ...tcp } }, `${host}:${server.port}`, { timeoutMs });

  it('connects, and fails where nothing listens', async () => {
    const run = await probe(plain);
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_ip_protocol')).toBe(4);
    // As upstream 0.28: both query_response gauges once connected, neither when the connection fails.
    expect(metricNames(run.samples)).toEqual(['probe_dns_lookup_time_seconds', 'probe_failed_due_to_bytes', 'probe_failed_due_to_regex', 'probe_ip_addr_hash', 'probe_ip_protocol']);
    const refused = await runModule({ prober: 'tcp' }, '127.0.0.1:1');
    expect(refused.success).toBe(false);
    expect(metricNames(refused.samples)).toEqual(['probe_dns_lookup_time_seconds', 'probe_ip_addr_hash', 'probe_ip_protocol']);
    expect((await runModule({ prober: 'tcp' }, '127.0.0.1')).success).toBe(false);
  });

  it('expects with a regexp and sends with its captures substituted', async () => {
    const run = await probe(plain, {
      query_response: [{ expect: '^220 (\\S+) ESMTP ready id=(?P<id>\\w+)$', send: 'HELO ${1} $id' }, { expect: '^250 HELO probe\\.test abc123$', send: 'QUIT' }, { expect: '^221 bye' }],
    });
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_failed_due_to_regex')).toBe(0);
    expect(plain.lines).toEqual(['HELO probe.test abc123', 'QUIT']);
  });

  it('fails when the expected line never comes, and says it was the regexp', async () => {
    const run = await probe(plain, { query_response: [{ expect: '^SSH-2\\.0' }] }, 500);
    expect(run.success).toBe(false);
    // The server keeps the connection open without a matching line: the deadline ends the wait.
    expect(run.log).toContain('deadline exceeded');
    const closed = await probe(plain, { query_response: [{ send: 'QUIT' }, { expect: '^never' }] });
    expect(closed.success).toBe(false);
    expect(metricValue(closed.samples, 'probe_failed_due_to_regex')).toBe(1);
  });

  it('compares expect_bytes with the next bytes', async () => {
    const good = await probe(plain, { query_response: [{ expect_bytes: '220 probe' }] });
    expect(good.success).toBe(true);
    expect(metricValue(good.samples, 'probe_failed_due_to_bytes')).toBe(0);
    const bad = await probe(plain, { query_response: [{ expect_bytes: '220 other' }] });
    expect(bad.success).toBe(false);
    expect(metricValue(bad.samples, 'probe_failed_due_to_bytes')).toBe(1);
  });

  it("sends and expects !!binary bytes, as upstream's PostgreSQL example does", async () => {
    const yaml = (steps: string) => `prober: tcp\ntcp:\n  preferred_ip_protocol: ip4\n  query_response:\n${steps}`;
    // MjIwIHBy is "220 pr"; AAECAw== is the bytes 0, 1, 2, 3.
    const good = await runProbe(yaml('  - expect_bytes: !!binary MjIwIHBy\n  - send: !!binary AAECAw==\n'), `127.0.0.1:${plain.port}`);
    expect(good.success).toBe(true);
    await waitFor(() => plain.lines.length > 0);
    expect(plain.lines).toEqual(['\u0000\u0001\u0002\u0003']);
    const bad = await runProbe(yaml('  - expect_bytes: !!binary AAECAw==\n'), `127.0.0.1:${plain.port}`);
    expect(bad.success).toBe(false);
    expect(metricValue(bad.samples, 'probe_failed_due_to_bytes')).toBe(1);
  });

  it('labels probe_expect_info with captured values', async () => {
    const run = await probe(plain, {
      query_response: [
        {
          expect: '^220 (\\S+) ESMTP ready id=(\\w+)$',
          labels: [
            { name: 'host', value: '${1}' },
            { name: 'session', value: 'id-${2}' },
          ],
        },
      ],
    });
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_expect_info', { host: 'probe.test', session: 'id-abc123' })).toBe(1);
  });

  it('dials TLS with tls and tls_config, and reports the certificate', async () => {
    const run = await probe(tls, { tls: true, tls_config: { ca_file: fixtures.caFile }, query_response: [{ expect: '^220 ' }] });
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_ssl_earliest_cert_expiry')).toBe(fixtures.serverNotAfter);
    expect(metricValue(run.samples, 'probe_ssl_last_chain_expiry_timestamp_seconds')).toBe(fixtures.serverNotAfter);
    expect(metricValue(run.samples, 'probe_tls_version_info', { version: 'TLS 1.3' })).toBe(1);
    // As upstream's tcp prober: no cipher metric.
    expect(metricNames(run.samples)).not.toContain('probe_tls_cipher_info');
    // Unknown CA, a server_name the certificate lacks, and plain TCP to a TLS port all fail.
    expect((await probe(tls, { tls: true })).success).toBe(false);
    expect((await probe(tls, { tls: true, tls_config: { ca_file: fixtures.caFile, server_name: 'other.test' } })).success).toBe(false);
    expect((await probe(tls, { query_response: [{ expect: '^220 ' }] }, 300)).success).toBe(false);
    expect((await probe(tls, { tls: true, tls_config: { insecure_skip_verify: true } })).success).toBe(true);
    expect((await probe(tls, { tls: true, tls_config: { ca_file: fixtures.caFile, max_version: 'TLS12' } })).samples).toContainEqual(
      expect.objectContaining({ name: 'probe_tls_version_info', labels: { version: 'TLS 1.2' } }),
    );
  });

  it('upgrades with starttls and goes on over TLS', async () => {
    const run = await probe(plain, {
      tls_config: { ca_file: fixtures.caFile },
      query_response: [{ expect: '^220 ', send: 'STARTTLS' }, { expect: '^220 ready', starttls: true }, { expect: '^250-secure', send: 'EHLO probe' }, { expect: '^250 EHLO probe$' }],
    });
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_ssl_earliest_cert_expiry')).toBe(fixtures.serverNotAfter);
    expect(plain.lines).toEqual(['STARTTLS', 'EHLO probe']);
    const untrusted = await probe(plain, { query_response: [{ send: 'STARTTLS' }, { expect: '^220 ready', starttls: true }] });
    expect(untrusted.success).toBe(false);
  });

  it('connects from source_ip_address', async () => {
    plain.remoteAddresses.length = 0;
    expect((await probe(plain, { source_ip_address: '127.0.0.2' })).success).toBe(true);
    await waitFor(() => plain.remoteAddresses.length > 0);
    expect(plain.remoteAddresses).toEqual(['127.0.0.2']);
  });

  it('follows preferred_ip_protocol and ip_protocol_fallback', async () => {
    const fallback = await probe(plain, { preferred_ip_protocol: 'ip6', ip_protocol_fallback: true }, 2000, 'localhost');
    expect(fallback.success).toBe(true);
    expect(metricValue(fallback.samples, 'probe_ip_protocol')).toBe(4);
    expect((await probe(plain, { preferred_ip_protocol: 'ip6', ip_protocol_fallback: false }, 2000, 'localhost')).success).toBe(false);
    const v6 = await probe(plain6, { preferred_ip_protocol: 'ip6' }, 2000, '[::1]');
    expect(v6.success).toBe(true);
    expect(metricValue(v6.samples, 'probe_ip_protocol')).toBe(6);
  });

  it.each<[string, TcpSettings]>([
    ['a silent server', { query_response: [{ expect: '^220' }] }],
    ['a silent TLS handshake', { tls: true, tls_config: { insecure_skip_verify: true } }],
  ])('gives up on %s at the deadline and leaves no connection open', async (_name, tcp) => {
    const before = openHandles();
    const run = await probe(silent, tcp, 500);
    // The server never answers: only the deadline can end the probe, and it says so.
    expect([run.success, run.failure?.reason, run.deadlineExpired]).toEqual([false, 'timed out', true]);
    await waitFor(() => silent.openConnections() === 0);
    expect(silent.openConnections()).toBe(0);
    expect(await handlesLeftAfter(before)).toEqual([]);
  });

  it('reads the banner line by line, whatever the chunking', async () => {
    const chunked = await startTcpTestServer({ banner: Buffer.from(`noise\r\n${BANNER}\r\n`) });
    try {
      expect((await probe(chunked, { query_response: [{ expect: 'id=abc123$' }] })).success).toBe(true);
    } finally {
      await chunked.close();
    }
  });

  it.each([
    ['a line of 65,535 bytes is read', Buffer.concat([Buffer.alloc(65_535, 'a'), Buffer.from('\n')]), true],
    ['a line of 65,536 bytes fails at once', Buffer.concat([Buffer.alloc(65_536, 'a'), Buffer.from('\n')]), false],
    ['a line of 100 KB fails at once', Buffer.concat([Buffer.alloc(100_000, 'a'), Buffer.from('\n')]), false],
    ['64 KiB without a newline, then silence, fails at once', Buffer.alloc(65_536, 'a'), false],
  ])("as Go's bufio.Scanner (64 KiB): %s", async (_name, banner, success) => {
    const server = await startHostileServer(({ stream }) => stream.write(banner));
    try {
      const run = await runModule({ prober: 'tcp', tcp: { preferred_ip_protocol: 'ip4', query_response: [{ expect: '^a+$' }] } }, `127.0.0.1:${server.port}`, { timeoutMs: 30_000 });
      expect(run.success).toBe(success);
      // The reference answers each of these at once; the deadline is never what decides.
      expect(run.deadlineExpired).toBe(false);
    } finally {
      await server.close();
    }
  });
});
