/**
 * Differential test of the tcp, dns, icmp and grpc probers against the reference blackbox_exporter
 * (Debian's 0.23.0): both exporters run with the same config and are asked the same /probe for the same
 * targets (servers this test starts on loopback); probe_success, the metric names and every value that
 * does not measure time must be equal, case by case, once what 0.24 to 0.28 changed is set aside
 * (../support/newer-than-reference.ts).
 */
import { stringify } from 'yaml';
import type { ConfigInput } from '../../src/contract';
import { describeWithBinaries } from '../../../test/support/integration';
import { upstreamSamples, type Sample } from '../../loopback/metrics-text';
import { REFERENCE_EXPORTER, startPair, type ExporterPair } from '../../loopback/reference-exporter';
import { rawSocketsAllowed } from '../support/icmp-privileges';
import { startDnsTestServer, ZONE, type DnsTestServer } from '../../loopback/dns-test-server';
import { startGrpcHealthServer, type GrpcHealthServer } from '../../loopback/grpc-health-server';
import { startTcpTestServer, type TcpTestServer } from '../../loopback/tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from '../../loopback/tls-fixtures';
import { asNewer, asReference } from '../support/newer-than-reference';

/** Samples that measure time differ from run to run; everything else must be equal. */
const TIMED = /duration_seconds|lookup_time_seconds/;

/** One line per sample, sorted: what the two exporters are compared on (our additive metrics set aside). */
function comparable(samples: readonly Sample[]): string[] {
  return upstreamSamples(samples)
    .filter((sample) => !TIMED.test(sample.name))
    .map((sample) => `${sample.name}${JSON.stringify(Object.fromEntries(Object.entries(sample.labels).sort()))} ${sample.value}`)
    .sort();
}

describeWithBinaries([REFERENCE_EXPORTER])('tcp, dns, icmp and grpc probers against the reference exporter', () => {
  let fixtures: TlsFixtures;
  let dns: DnsTestServer;
  let smtp: TcpTestServer;
  let tlsLine: TcpTestServer;
  /** Serves a certificate that names its host (localhost) in the common name alone, no alternative names. */
  let commonNameOnly: TlsFixtures;
  let commonNameLine: TcpTestServer;
  let grpc: GrpcHealthServer;
  let grpcTls: GrpcHealthServer;
  let exporters: ExporterPair;
  let config: ConfigInput;
  let cases: Array<[string, string, string]>;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    commonNameOnly = makeTlsFixtures({ serverNames: [] });
    const certs = { cert: fixtures.serverCert, key: fixtures.serverKey };
    [dns, smtp, tlsLine, grpc, grpcTls, commonNameLine] = await Promise.all([
      startDnsTestServer({ tls: certs }),
      startTcpTestServer(certs),
      startTcpTestServer({ ...certs, tls: true }),
      startGrpcHealthServer(),
      startGrpcHealthServer({ tls: certs }),
      startTcpTestServer({ cert: commonNameOnly.serverCert, key: commonNameOnly.serverKey, tls: true }),
    ]);
    const ca = { ca_file: fixtures.caFile };
    const dnsModule = (settings: Record<string, unknown>) => ({
      prober: 'dns' as const,
      timeout: '3s',
      dns: { preferred_ip_protocol: 'ip4' as const, query_name: `www.${ZONE}`, query_type: 'A' as const, ...settings },
    });
    const tcpModule = (settings: Record<string, unknown>) => ({ prober: 'tcp' as const, timeout: '3s', tcp: { preferred_ip_protocol: 'ip4' as const, ...settings } });
    const grpcModule = (settings: Record<string, unknown>) => ({ prober: 'grpc' as const, timeout: '3s', grpc: { preferred_ip_protocol: 'ip4' as const, ...settings } });
    config = {
      modules: {
        dns_a: dnsModule({}),
        dns_a_tcp: dnsModule({ transport_protocol: 'tcp' }),
        dns_no_recursion: dnsModule({ recursion_desired: false }),
        dns_soa: dnsModule({ query_name: ZONE, query_type: 'SOA' }),
        dns_any: dnsModule({ query_name: ZONE, query_type: 'ANY' }),
        dns_mx_srv_txt: dnsModule({ query_name: ZONE, query_type: 'TXT', validate_answer_rrs: { fail_if_not_matches_regexp: [`^${ZONE}\\.\\t300\\tIN\\tTXT\\t"v=spf1 -all" "say \\\\"hi\\\\""$`] } }),
        dns_mx: dnsModule({ query_name: ZONE, query_type: 'MX', validate_answer_rrs: { fail_if_none_matches_regexp: [`\\tMX\\t10 mail\\.${ZONE}\\.$`] } }),
        dns_srv: dnsModule({ query_name: `_sip._tcp.${ZONE}`, query_type: 'SRV', validate_answer_rrs: { fail_if_not_matches_regexp: [`\\tSRV\\t10 60 5060 sip\\.${ZONE}\\.$`] } }),
        dns_nxdomain: dnsModule({ query_name: `missing.${ZONE}` }),
        dns_nxdomain_valid: dnsModule({ query_name: `missing.${ZONE}`, valid_rcodes: ['NXDOMAIN'] }),
        dns_truncated: dnsModule({ query_name: `big.${ZONE}`, query_type: 'TXT' }),
        dns_truncated_tcp: dnsModule({ query_name: `big.${ZONE}`, query_type: 'TXT', transport_protocol: 'tcp' }),
        dns_all_match: dnsModule({ validate_answer_rrs: { fail_if_all_match_regexp: ['192\\.0\\.2\\.10$'] } }),
        dns_all_match_every: dnsModule({ validate_answer_rrs: { fail_if_all_match_regexp: ['\\tIN\\tA\\t'] } }),
        dns_matches: dnsModule({ validate_answer_rrs: { fail_if_matches_regexp: ['192\\.0\\.2\\.11$'] } }),
        dns_authority: dnsModule({ validate_authority_rrs: { fail_if_not_matches_regexp: [`\\tNS\\tns1\\.${ZONE}\\.$`] } }),
        dns_additional: dnsModule({ validate_additional_rrs: { fail_if_none_matches_regexp: ['192\\.0\\.2\\.99'] } }),
        dns_chaos: dnsModule({ query_name: 'version.bind', query_type: 'TXT', query_class: 'CH' }),
        dns_tls: dnsModule({ transport_protocol: 'tcp', dns_over_tls: true, tls_config: ca }),
        dns_tls_untrusted: dnsModule({ transport_protocol: 'tcp', dns_over_tls: true }),
        tcp_connect: tcpModule({}),
        tcp_dialogue: tcpModule({
          query_response: [
            { expect: '^220 (\\S+) ESMTP ready id=(\\w+)$', send: 'HELO ${1} ${2}' },
            { expect: '^250 HELO probe\\.test abc123$', send: 'QUIT' },
          ],
        }),
        // Bytes written as !!binary in the YAML, as upstream's PostgreSQL example writes its SSLRequest.
        tcp_binary_send: tcpModule({ query_response: [{ expect: '^220 ', send: new Uint8Array(Buffer.from('HELO bytes')) }, { expect: '^250 HELO bytes$' }] }),
        tcp_regexp_fails: tcpModule({ query_response: [{ send: 'QUIT' }, { expect: '^never$' }] }),
        tcp_starttls: tcpModule({ tls_config: ca, query_response: [{ expect: '^220 ', send: 'STARTTLS' }, { expect: '^220 ready', starttls: true }, { expect: '^250-secure' }] }),
        tcp_tls: tcpModule({ tls: true, tls_config: ca, query_response: [{ expect: '^220 ' }] }),
        tcp_tls_untrusted: tcpModule({ tls: true }),
        tcp_tls_common_name_only: tcpModule({ tls: true, tls_config: { ca_file: commonNameOnly.caFile }, query_response: [{ expect: '^220 ' }] }),
        grpc_serving: grpcModule({}),
        grpc_not_serving: grpcModule({ service: 'down' }),
        grpc_unknown_service: grpcModule({ service: 'nope' }),
        grpc_tls: grpcModule({ tls: true, tls_config: ca }),
        icmp_v4: { prober: 'icmp', timeout: '3s', icmp: { preferred_ip_protocol: 'ip4' } },
        icmp_v6: { prober: 'icmp', timeout: '3s', icmp: { preferred_ip_protocol: 'ip6' } },
        icmp_sized: { prober: 'icmp', timeout: '3s', icmp: { preferred_ip_protocol: 'ip4', payload_size: 1000, ttl: 10 } },
      },
    };
    const dnsTarget = `127.0.0.1:${dns.port}`;
    const smtpTarget = `localhost:${smtp.port}`;
    cases = [
      ...Object.keys(config.modules)
        .filter((name) => name.startsWith('dns_') && !name.startsWith('dns_tls'))
        .map((name): [string, string, string] => [name, name, dnsTarget]),
      ['dns_tls', 'dns_tls', `localhost:${dns.tlsPort}`],
      ['dns_tls_untrusted', 'dns_tls_untrusted', `localhost:${dns.tlsPort}`],
      ['dns_refused', 'dns_a_tcp', '127.0.0.1:1'],
      ['tcp_connect', 'tcp_connect', smtpTarget],
      ['tcp_refused', 'tcp_connect', '127.0.0.1:1'],
      ['tcp_dialogue', 'tcp_dialogue', smtpTarget],
      ['tcp_binary_send', 'tcp_binary_send', smtpTarget],
      ['tcp_regexp_fails', 'tcp_regexp_fails', smtpTarget],
      ['tcp_starttls', 'tcp_starttls', smtpTarget],
      ['tcp_tls', 'tcp_tls', `localhost:${tlsLine.port}`],
      ['tcp_tls_untrusted', 'tcp_tls_untrusted', `localhost:${tlsLine.port}`],
      ['tcp_tls_common_name_only', 'tcp_tls_common_name_only', `localhost:${commonNameLine.port}`],
      ['grpc_serving', 'grpc_serving', `localhost:${grpc.port}`],
      ['grpc_not_serving', 'grpc_not_serving', `localhost:${grpc.port}`],
      ['grpc_unknown_service', 'grpc_unknown_service', `localhost:${grpc.port}`],
      ['grpc_tls', 'grpc_tls', `localhost:${grpcTls.port}`],
      ['grpc_refused', 'grpc_serving', '127.0.0.1:1'],
      ...(rawSocketsAllowed()
        ? ([
            ['icmp_v4', 'icmp_v4', '127.0.0.1'],
            ['icmp_v6', 'icmp_v6', '::1'],
            ['icmp_sized', 'icmp_sized', 'localhost'],
          ] as Array<[string, string, string]>)
        : []),
    ];
    // Bytes (Uint8Array) are written as !!binary, which both exporters read.
    exporters = await startPair(stringify(config, { customTags: ['binary'] }));
  });

  afterAll(async () => {
    await exporters?.stop();
    await Promise.all([dns?.close(), smtp?.close(), tlsLine?.close(), grpc?.close(), grpcTls?.close(), commonNameLine?.close()]);
    fixtures?.cleanup();
    commonNameOnly?.cleanup();
  });

  it('gives the same results on every shared case', async () => {
    const differences: string[] = [];
    const outcomes: number[] = [];
    for (const [name, module, target] of cases) {
      const { reference, ours } = await exporters.probeBoth({ module, target });
      for (const [side, result] of [
        ['reference', reference],
        ['ours', ours],
      ] as const) {
        if (result.status !== 200 || !result.samples.some((sample) => sample.name === 'probe_success')) {
          differences.push(`${name}: ${side} answered ${result.status} without probe_success: ${result.text.slice(0, 200)}`);
        }
      }
      outcomes.push(reference.samples.find((sample) => sample.name === 'probe_success')?.value ?? -1);
      const [left, right] = [comparable(asNewer(reference.samples, ours.samples)), comparable(asReference(ours.samples))];
      const onlyTheirs = left.filter((line) => !right.includes(line));
      const onlyOurs = right.filter((line) => !left.includes(line));
      if (onlyTheirs.length + onlyOurs.length > 0) {
        differences.push(`${name} (${module} -> ${target}):\n  reference only: ${onlyTheirs.join(' | ')}\n  ours only: ${onlyOurs.join(' | ')}`);
      }
    }
    expect(differences).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(30);
    // Both sides really probed: the cases include successes and failures.
    expect(outcomes).toContain(1);
    expect(outcomes).toContain(0);
  });
});
