/**
 * The unix prober against real unix socket servers this test starts: upstream's documented PING/PONG
 * module, the query_response dialogue it shares with tcp (expect with labels, expect_bytes, STARTTLS), TLS
 * from the start with tls_config, and sockets that are missing or silent.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { moduleProblems } from '../../../src/contract';
import { metricValue } from '../../../loopback/metrics-text';
import { startTcpTestServer, type TcpTestServer } from '../../../loopback/tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';
import { runModule, runProbe, type ProbeRun } from '../../support/probe-run';

const dir = mkdtempSync(join(tmpdir(), 'unix-probe-'));
let fixtures: TlsFixtures;
let pingPong: Server;
let plain: TcpTestServer;
let starttls: TcpTestServer;
let tls: TcpTestServer;
let silent: TcpTestServer;

const PING_PONG = join(dir, 'ping.sock');

beforeAll(async () => {
  fixtures = makeTlsFixtures();
  const certs = { cert: fixtures.serverCert, key: fixtures.serverKey };
  pingPong = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.on('data', (data) => {
      if (data.toString().trim() === 'PING') socket.write('PONG\n');
    });
  });
  await new Promise<void>((resolve) => pingPong.listen(PING_PONG, resolve));
  [plain, starttls, tls, silent] = await Promise.all([
    startTcpTestServer({ path: join(dir, 'plain.sock') }),
    startTcpTestServer({ ...certs, path: join(dir, 'starttls.sock') }),
    startTcpTestServer({ ...certs, tls: true, path: join(dir, 'tls.sock') }),
    startTcpTestServer({ silent: true, path: join(dir, 'silent.sock') }),
  ]);
});

afterAll(async () => {
  await Promise.all([plain, starttls, tls, silent].map((server) => server.close()));
  await new Promise<void>((resolve) => pingPong.close(() => resolve()));
  fixtures.cleanup();
});

function probe(path: string, unix: Record<string, unknown>, timeoutMs = 2000): Promise<ProbeRun> {
  return runModule({ prober: 'unix', unix }, path, { timeoutMs });
}

describe('unix prober', () => {
  it("passes upstream's documented unix_socket_ping module", async () => {
    const run = await runProbe(`prober: unix\ntimeout: 5s\nunix:\n  query_response:\n    - send: "PING"\n    - expect: "PONG"\n`, PING_PONG);
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_failed_due_to_regex')).toBe(0);
    expect(metricValue(run.samples, 'probe_failed_due_to_bytes')).toBe(0);
  });

  it('connects without steps, and fails on a missing socket', async () => {
    expect((await probe(join(dir, 'plain.sock'), {})).success).toBe(true);
    const missing = await probe(join(dir, 'missing.sock'), {});
    expect(missing.success).toBe(false);
    expect(missing.log).toMatch(/msg="Error dialing unix" err=".*ENOENT/);
    expect(missing.failure).toEqual({ reason: 'connection failed' });
  });

  it('runs the dialogue tcp runs: labels from captures, expect_bytes, sends', async () => {
    const labelled = await probe(join(dir, 'plain.sock'), {
      query_response: [{ expect: '^220 (\\S+) ESMTP ready id=(\\w+)$', labels: [{ name: 'host', value: '${1}' }] }, { send: 'HELLO ${1}' }, { expect: '^250 HELLO' }],
    });
    expect(labelled.success).toBe(true);
    expect(metricValue(labelled.samples, 'probe_expect_info', { host: 'probe.test' })).toBe(1);
    const bytes = await probe(join(dir, 'plain.sock'), { query_response: [{ expect_bytes: '220 other' }] });
    expect(bytes.success).toBe(false);
    expect(metricValue(bytes.samples, 'probe_failed_due_to_bytes')).toBe(1);
    const noMatch = await probe(join(dir, 'plain.sock'), { query_response: [{ send: 'QUIT' }, { expect: '^never' }] });
    expect(noMatch.success).toBe(false);
    expect(metricValue(noMatch.samples, 'probe_failed_due_to_regex')).toBe(1);
    expect([bytes.failure, noMatch.failure]).toEqual([{ reason: 'query response not matched' }, { reason: 'query response not matched' }]);
  });

  it('upgrades with starttls and speaks TLS from the start, verifying against tls_config', async () => {
    const tlsConfig = { ca_file: fixtures.caFile, server_name: 'localhost' };
    const upgraded = await probe(join(dir, 'starttls.sock'), {
      tls_config: tlsConfig,
      query_response: [{ expect: '^220 ' }, { send: 'STARTTLS' }, { expect: '^220 ready' }, { starttls: true }, { expect: '^250-secure' }],
    });
    expect(upgraded.success).toBe(true);
    expect(metricValue(upgraded.samples, 'probe_ssl_earliest_cert_expiry')).toBe(fixtures.serverNotAfter);
    const secure = await probe(join(dir, 'tls.sock'), { tls: true, tls_config: tlsConfig, query_response: [{ expect: '^220 ' }] });
    expect(secure.success).toBe(true);
    expect(metricValue(secure.samples, 'probe_tls_version_info', { version: 'TLS 1.3' })).toBe(1);
    // A socket path names no server, so without server_name the certificate cannot be verified, as upstream.
    const unnamed = await probe(join(dir, 'tls.sock'), { tls: true, tls_config: { ca_file: fixtures.caFile } });
    expect(unnamed.success).toBe(false);
    const untrusted = await probe(join(dir, 'tls.sock'), { tls: true, tls_config: { server_name: 'localhost' } });
    expect(untrusted.success).toBe(false);
  });

  it('ends at the deadline on a socket that never answers', async () => {
    const run = await probe(join(dir, 'silent.sock'), { query_response: [{ expect: '^220' }] }, 300);
    expect(run.success).toBe(false);
    expect(run.log).toContain('deadline exceeded');
    expect([run.failure?.reason, run.deadlineExpired]).toEqual(['timed out', true]);
  });

  it('loads the section as upstream does, refusing what tcp refuses', () => {
    expect(moduleProblems('m', { prober: 'unix', unix: { query_response: [{ send: 'PING' }, { expect: 'PONG' }], tls: false } })).toEqual([]);
    expect(moduleProblems('m', { prober: 'unix', unix: { query_response: [{ expect: 'a', expect_bytes: 'b' }] } })).toEqual([
      { path: ['modules', 'm', 'unix', 'query_response', 0, 'expect_bytes'], message: 'expect and expect_bytes are mutually exclusive; split them into two steps' },
    ]);
    expect(moduleProblems('m', { prober: 'unix', unix: { query_response: [{ expect: '(?=x)' }] } })[0].path).toEqual(['modules', 'm', 'unix', 'query_response', 0, 'expect']);
    expect(moduleProblems('m', { prober: 'unix', unix: { preferred_ip_protocol: 'ip4' } })[0].path).toEqual(['modules', 'm', 'unix', 'preferred_ip_protocol']);
  });
});
