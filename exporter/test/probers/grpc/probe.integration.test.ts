import type { ModuleInput } from '../../../src/contract';
import { metricNames, metricValue } from '../../../loopback/metrics-text';
import { handlesLeftAfter, openHandles } from '../../../../test/support/open-handles';
import { runModule } from '../../support/probe-run';
import { startGrpcHealthServer, type GrpcHealthServer } from '../../../loopback/grpc-health-server';
import { startTcpTestServer, type TcpTestServer } from '../../../loopback/tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';

type GrpcSettings = NonNullable<ModuleInput['grpc']>;

describe('grpc prober', () => {
  let fixtures: TlsFixtures;
  let plain: GrpcHealthServer;
  let secure: GrpcHealthServer;
  let plain6: GrpcHealthServer;
  let silent: TcpTestServer;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    plain = await startGrpcHealthServer();
    secure = await startGrpcHealthServer({ tls: { cert: fixtures.serverCert, key: fixtures.serverKey } });
    plain6 = await startGrpcHealthServer({ host: '::1' });
    silent = await startTcpTestServer({ silent: true });
  });
  afterAll(async () => {
    await Promise.all([plain.close(), secure.close(), plain6.close(), silent.close()]);
    fixtures.cleanup();
  });

  const probe = (target: string, grpc: GrpcSettings = {}, timeoutMs = 2000) => runModule({ prober: 'grpc', grpc: { preferred_ip_protocol: 'ip4', ...grpc } }, target, { timeoutMs });

  const servingStatus = (samples: Awaited<ReturnType<typeof probe>>['samples']) =>
    Object.fromEntries(samples.filter((sample) => sample.name === 'probe_grpc_healthcheck_response').map((sample) => [sample.labels.serving_status, sample.value]));

  it('succeeds on SERVING and reports status, code, phases and no TLS', async () => {
    const run = await probe(`127.0.0.1:${plain.port}`);
    expect(run.success).toBe(true);
    expect(servingStatus(run.samples)).toEqual({ UNKNOWN: 0, SERVING: 1, NOT_SERVING: 0, SERVICE_UNKNOWN: 0 });
    expect(metricValue(run.samples, 'probe_grpc_status_code')).toBe(0);
    expect(metricValue(run.samples, 'probe_grpc_ssl')).toBe(0);
    expect(metricValue(run.samples, 'probe_grpc_duration_seconds', { phase: 'check' })).toBeGreaterThan(0);
    expect(metricValue(run.samples, 'probe_grpc_duration_seconds', { phase: 'resolve' })).toBeGreaterThanOrEqual(0);
    expect(metricValue(run.samples, 'probe_ip_protocol')).toBe(4);
    expect(plain.services.at(-1)).toBe('');
    // The server sees the target's name, not the address the probe chose.
    expect(plain.authorities.at(-1)).toBe(`127.0.0.1:${plain.port}`);
  });

  it('asks about the configured service', async () => {
    const down = await probe(`127.0.0.1:${plain.port}`, { service: 'down' });
    expect(down.success).toBe(false);
    expect(servingStatus(down.samples)).toMatchObject({ SERVING: 0, NOT_SERVING: 1 });
    expect(metricValue(down.samples, 'probe_grpc_status_code')).toBe(0);
    const unknown = await probe(`127.0.0.1:${plain.port}`, { service: 'nope' });
    expect(unknown.success).toBe(false);
    expect(metricValue(unknown.samples, 'probe_grpc_status_code')).toBe(5);
    expect(Object.values(servingStatus(unknown.samples))).toEqual([0, 0, 0, 0]);
    expect((await probe(`http://127.0.0.1:${plain.port}`, { service: 'up' })).success).toBe(true);
    expect(plain.services.slice(-3)).toEqual(['down', 'nope', 'up']);
  });

  it('sends metadata with the check, as upstream 0.28 does', async () => {
    const refused = await probe(`127.0.0.1:${plain.port}`, { service: 'secured' });
    expect(refused.success).toBe(false);
    expect(metricValue(refused.samples, 'probe_grpc_status_code')).toBe(16);
    const run = await probe(`127.0.0.1:${plain.port}`, {
      service: 'secured',
      metadata: { Authorization: ['Bearer probe-token'], 'x-tenant': ['a', 'b'], 'trace-bin': ['\u0001\u0002'], 'user-agent': ['ignored, as grpc-go ignores it'] },
    });
    expect(run.success).toBe(true);
    const sent = plain.metadata.at(-1)!;
    expect(sent.authorization).toEqual(['Bearer probe-token']);
    // Two values of one key arrive as one list, as a server reads a repeated header.
    expect(sent['x-tenant']).toEqual(['a, b']);
    // A -bin key travels base64-encoded; the server decodes it back to the bytes.
    expect(sent['trace-bin']).toEqual([Buffer.from([1, 2])]);
    expect(String(sent['user-agent'])).not.toContain('ignored');
  });

  it('uses TLS with tls and tls_config, and reports the certificate', async () => {
    const target = `localhost:${secure.port}`;
    const run = await probe(target, { tls: true, tls_config: { ca_file: fixtures.caFile } });
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_grpc_ssl')).toBe(1);
    expect(metricValue(run.samples, 'probe_ssl_earliest_cert_expiry')).toBe(fixtures.serverNotAfter);
    expect(metricValue(run.samples, 'probe_tls_version_info', { version: 'TLS 1.3' })).toBe(1);
    expect(secure.authorities.at(-1)).toBe(target);
    // As upstream's grpc prober: neither the last chain expiry nor the cipher.
    expect(metricNames(run.samples).filter((name) => /^probe_(ssl|tls)_/.test(name))).toEqual(['probe_ssl_earliest_cert_expiry', 'probe_ssl_last_chain_info', 'probe_tls_version_info']);
    const untrusted = await probe(target, { tls: true });
    expect(untrusted.success).toBe(false);
    expect(metricValue(untrusted.samples, 'probe_grpc_status_code')).toBe(14);
    expect((await probe(target, { tls: true, tls_config: { ca_file: fixtures.caFile, server_name: 'other.test' } })).success).toBe(false);
    expect((await probe(target, { tls: true, tls_config: { insecure_skip_verify: true } })).success).toBe(true);
    // Plain gRPC to the TLS port fails.
    expect((await probe(target, {}, 500)).success).toBe(false);
  });

  it('connects no more once the probe is over, also after a failed handshake', async () => {
    // A TLS server whose certificate the probe does not trust: grpc-js would retry after its backoff (1 s).
    const untrusted = await startTcpTestServer({ cert: fixtures.serverCert, key: fixtures.serverKey, tls: true });
    try {
      const runs = await Promise.all(Array.from({ length: 5 }, () => probe(`localhost:${untrusted.port}`, { tls: true })));
      expect(runs.map((run) => run.success)).toEqual([false, false, false, false, false]);
      expect(untrusted.acceptedConnections()).toBe(5);
      await new Promise((resolve) => setTimeout(resolve, 1800));
      expect(untrusted.acceptedConnections()).toBe(5);
    } finally {
      await untrusted.close();
    }
  });

  it('follows preferred_ip_protocol and ip_protocol_fallback', async () => {
    const fallback = await probe(`localhost:${plain.port}`, { preferred_ip_protocol: 'ip6', ip_protocol_fallback: true });
    expect(fallback.success).toBe(true);
    expect(metricValue(fallback.samples, 'probe_ip_protocol')).toBe(4);
    expect((await probe(`localhost:${plain.port}`, { preferred_ip_protocol: 'ip6', ip_protocol_fallback: false })).success).toBe(false);
    const v6 = await probe(`[::1]:${plain6.port}`, { preferred_ip_protocol: 'ip6' });
    expect(v6.success).toBe(true);
    expect(metricValue(v6.samples, 'probe_ip_protocol')).toBe(6);
  });

  it('fails fast when nothing listens', async () => {
    const run = await probe('127.0.0.1:1', {}, 30_000);
    expect(run.success).toBe(false);
    expect(metricValue(run.samples, 'probe_grpc_status_code')).toBe(14);
    expect(run.deadlineExpired).toBe(false);
    expect(metricNames(run.samples)).toContain('probe_ssl_earliest_cert_expiry');
  });

  it('gives up on a server that never answers at the deadline and leaves nothing open', async () => {
    const before = openHandles();
    const run = await probe(`127.0.0.1:${silent.port}`, {}, 500);
    expect(run.success).toBe(false);
    expect(metricValue(run.samples, 'probe_grpc_status_code')).toBe(4);
    // The server never answers: only the deadline can end the probe, and it says so.
    expect([run.deadlineExpired, run.failure?.reason]).toEqual([true, 'timed out']);
    for (let tries = 0; tries < 50 && silent.openConnections() > 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(silent.openConnections()).toBe(0);
    expect(await handlesLeftAfter(before)).toEqual([]);
  });
});
