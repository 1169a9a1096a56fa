/**
 * Many probes of each kind, answered and failed, leave the process's open descriptors where they began:
 * no socket, TLS session, gRPC channel or ICMP socket outlives its probe.
 */
import type { ModuleInput } from '../../src/contract';
import { startDnsTestServer, ZONE, type DnsTestServer } from '../../loopback/dns-test-server';
import { startGrpcHealthServer, type GrpcHealthServer } from '../../loopback/grpc-health-server';
import { rawSocketsAllowed } from '../support/icmp-privileges';
import { openDescriptors, settledAt } from '../../../test/support/open-handles';
import { runModule } from '../support/probe-run';
import { startTcpTestServer, type TcpTestServer } from '../../loopback/tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from '../../loopback/tls-fixtures';

describe('tcp, dns, icmp and grpc probes leave no descriptor behind', () => {
  let fixtures: TlsFixtures;
  let dns: DnsTestServer;
  let tls: TcpTestServer;
  let grpc: GrpcHealthServer;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    [dns, tls, grpc] = await Promise.all([
      startDnsTestServer(),
      startTcpTestServer({ cert: fixtures.serverCert, key: fixtures.serverKey, tls: true }),
      startGrpcHealthServer({ tls: { cert: fixtures.serverCert, key: fixtures.serverKey } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([dns.close(), tls.close(), grpc.close()]);
    fixtures.cleanup();
  });

  const cases = (): Array<[string, ModuleInput, string, boolean]> => [
    ['dns over udp', { prober: 'dns', dns: { query_name: `www.${ZONE}`, query_type: 'A' } }, `127.0.0.1:${dns.port}`, true],
    ['dns over tcp', { prober: 'dns', dns: { query_name: `missing.${ZONE}`, transport_protocol: 'tcp' } }, `127.0.0.1:${dns.port}`, false],
    ['tcp with TLS', { prober: 'tcp', tcp: { tls: true, tls_config: { ca_file: fixtures.caFile }, query_response: [{ expect: '^220 ', send: 'QUIT' }] } }, `localhost:${tls.port}`, true],
    ['tcp refused', { prober: 'tcp' }, '127.0.0.1:1', false],
    ['grpc with TLS', { prober: 'grpc', grpc: { tls: true, tls_config: { ca_file: fixtures.caFile } } }, `localhost:${grpc.port}`, true],
    ['grpc untrusted', { prober: 'grpc', grpc: { tls: true } }, `localhost:${grpc.port}`, false],
    ...(rawSocketsAllowed() ? ([['icmp', { prober: 'icmp' }, '127.0.0.1', true]] as Array<[string, ModuleInput, string, boolean]>) : []),
  ];

  it('200 probes of each kind, in batches of 20', async () => {
    for (const [name, module, target, success] of cases()) {
      // One probe first, so that lazily opened files (the ICMP addon, certificates) are not counted.
      expect([name, (await runModule(module, target)).success]).toEqual([name, success]);
      const before = openDescriptors();
      for (let batch = 0; batch < 10; batch += 1) {
        const runs = await Promise.all(Array.from({ length: 20 }, () => runModule(module, target)));
        expect([name, runs.filter((run) => run.success === success).length]).toEqual([name, 20]);
      }
      const after = await settledAt(before);
      // Fewer is fine: the previous case's server-side sockets may still have been closing at `before`.
      expect([name, after <= before ? 'no more descriptors' : `${after - before} more descriptors`]).toEqual([name, 'no more descriptors']);
    }
  }, 120_000);
});
