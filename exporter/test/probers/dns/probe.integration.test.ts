import * as dnsPacket from 'dns-packet';
import type { ModuleInput } from '../../../src/contract';
import { metricNames, metricValue } from '../../../loopback/metrics-text';
import { handlesLeftAfter, openHandles } from '../../../../test/support/open-handles';
import { runModule } from '../../support/probe-run';
import { SOA_SERIAL, ZONE, startDnsTestServer, type DnsTestServer } from '../../../loopback/dns-test-server';
import { startHostileUdpServer } from '../../../loopback/hostile-server';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';

type DnsSettings = NonNullable<ModuleInput['dns']>;

const dnsModule = (dns: Partial<DnsSettings>, timeout = '2s'): ModuleInput => ({
  prober: 'dns',
  timeout,
  dns: { query_name: `www.${ZONE}`, query_type: 'A', preferred_ip_protocol: 'ip4', ...dns },
});

describe('dns prober', () => {
  let fixtures: TlsFixtures;
  let server: DnsTestServer;
  let server6: DnsTestServer;
  let target: string;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    server = await startDnsTestServer({ tls: { cert: fixtures.serverCert, key: fixtures.serverKey } });
    server6 = await startDnsTestServer({ host: '::1' });
    target = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
    await server6.close();
    fixtures.cleanup();
  });
  beforeEach(() => {
    server.queries.length = 0;
  });

  const probe = (dns: Partial<DnsSettings>, to = target, timeoutMs = 2000) => runModule(dnsModule(dns), to, { timeoutMs });

  it('answers an A query over UDP with the counts and phases upstream reports', async () => {
    const run = await probe({});
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_dns_answer_rrs')).toBe(2);
    expect(metricValue(run.samples, 'probe_dns_authority_rrs')).toBe(1);
    expect(metricValue(run.samples, 'probe_dns_additional_rrs')).toBe(1);
    expect(metricValue(run.samples, 'probe_dns_query_succeeded')).toBe(1);
    expect(metricValue(run.samples, 'probe_ip_protocol')).toBe(4);
    for (const phase of ['resolve', 'connect', 'request']) {
      expect(metricValue(run.samples, 'probe_dns_duration_seconds', { phase })).toBeGreaterThanOrEqual(0);
    }
    expect(metricValue(run.samples, 'probe_dns_duration_seconds', { phase: 'request' })).toBeGreaterThan(0);
    expect(metricNames(run.samples)).not.toContain('probe_dns_serial');
    expect(server.queries).toEqual([expect.objectContaining({ transport: 'udp', type: 'A', class: 'IN', recursionDesired: true })]);
  });

  it('asks each query type it is given', async () => {
    const expected: Record<string, number> = { AAAA: 1, MX: 1, TXT: 1, SOA: 1, NS: 1, CNAME: 1 };
    for (const [type, answers] of Object.entries(expected)) {
      const name = type === 'AAAA' ? `www.${ZONE}` : type === 'CNAME' ? `alias.${ZONE}` : ZONE;
      const run = await probe({ query_name: name, query_type: type as DnsSettings['query_type'] });
      expect([type, run.success, metricValue(run.samples, 'probe_dns_answer_rrs')]).toEqual([type, true, answers]);
    }
    expect((await probe({ query_name: `_sip._tcp.${ZONE}`, query_type: 'SRV' })).success).toBe(true);
    expect((await probe({ query_name: '10.2.0.192.in-addr.arpa', query_type: 'PTR' })).success).toBe(true);
    const any = await probe({ query_name: ZONE, query_type: 'ANY' });
    expect(metricValue(any.samples, 'probe_dns_answer_rrs')).toBe(4);
    expect(server.queries.map((query) => query.type)).toEqual(['AAAA', 'MX', 'TXT', 'SOA', 'NS', 'CNAME', 'SRV', 'PTR', 'ANY']);
  });

  it('reports the zone serial for SOA queries', async () => {
    const run = await probe({ query_name: ZONE, query_type: 'SOA' });
    expect(metricValue(run.samples, 'probe_dns_serial')).toBe(SOA_SERIAL);
  });

  it('queries over TCP when transport_protocol is tcp', async () => {
    const run = await probe({ transport_protocol: 'tcp' });
    expect(run.success).toBe(true);
    expect(server.queries.map((query) => query.transport)).toEqual(['tcp']);
  });

  it('sends the recursion_desired flag as configured', async () => {
    await probe({ recursion_desired: false });
    await probe({});
    expect(server.queries.map((query) => query.recursionDesired)).toEqual([false, true]);
  });

  it('asks in the configured query_class', async () => {
    const run = await probe({ query_name: 'version.bind', query_type: 'TXT', query_class: 'CH', validate_answer_rrs: { fail_if_not_matches_regexp: ['CH\tTXT\t"probekit test server"'] } });
    expect(run.success).toBe(true);
    expect(server.queries[0]).toMatchObject({ class: 'CH' });
  });

  it('fails on NXDOMAIN unless valid_rcodes allows it', async () => {
    const nx = await probe({ query_name: `missing.${ZONE}` });
    expect(nx.success).toBe(false);
    expect(metricValue(nx.samples, 'probe_dns_query_succeeded')).toBe(1);
    expect(metricValue(nx.samples, 'probe_dns_authority_rrs')).toBe(1);
    expect(nx.log).toContain('Rcode is not one of the valid rcodes');
    expect((await probe({ query_name: `missing.${ZONE}`, valid_rcodes: ['NXDOMAIN'] })).success).toBe(true);
    expect((await probe({ valid_rcodes: ['NXDOMAIN'] })).success).toBe(false);
  });

  it('takes a truncated UDP answer as it is, and gets the whole answer over TCP', async () => {
    const udp = await probe({ query_name: `big.${ZONE}`, query_type: 'TXT' });
    expect(udp.success).toBe(true);
    expect(metricValue(udp.samples, 'probe_dns_answer_rrs')).toBe(0);
    const required = { validate_answer_rrs: { fail_if_none_matches_regexp: ['padding record'] } };
    expect((await probe({ query_name: `big.${ZONE}`, query_type: 'TXT', ...required })).success).toBe(false);
    const tcp = await probe({ query_name: `big.${ZONE}`, query_type: 'TXT', transport_protocol: 'tcp', ...required });
    expect(tcp.success).toBe(true);
    expect(metricValue(tcp.samples, 'probe_dns_answer_rrs')).toBe(40);
  });

  it.each(['udp', 'tcp'] as const)('gives up on a server that never answers (%s) at the deadline, leaving nothing open', async (transport_protocol) => {
    const before = openHandles();
    const run = await probe({ query_name: `silent.${ZONE}`, transport_protocol }, target, 500);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await handlesLeftAfter(before)).toEqual([]);
    expect(run.success).toBe(false);
    expect(metricValue(run.samples, 'probe_dns_query_succeeded')).toBe(0);
    // The server never answers: only the deadline can end the probe, and it says so.
    expect([run.deadlineExpired, run.failure?.reason]).toEqual([true, 'timed out']);
  });

  it('fails fast when nothing listens', async () => {
    const run = await probe({ transport_protocol: 'tcp' }, '127.0.0.1:1', 30_000);
    expect([run.success, run.failure?.reason, run.deadlineExpired]).toEqual([false, 'connection refused', false]);
  });

  describe('record validation, against records in upstream text form', () => {
    const cases: Array<[string, Partial<DnsSettings>, boolean]> = [
      ['fail_if_matches_regexp: a record matches', { validate_answer_rrs: { fail_if_matches_regexp: ['192\\.0\\.2\\.11$'] } }, false],
      ['fail_if_matches_regexp: none matches', { validate_answer_rrs: { fail_if_matches_regexp: ['192\\.0\\.2\\.99'] } }, true],
      ['fail_if_not_matches_regexp: one does not match', { validate_answer_rrs: { fail_if_not_matches_regexp: ['192\\.0\\.2\\.10$'] } }, false],
      ['fail_if_not_matches_regexp: all match', { validate_answer_rrs: { fail_if_not_matches_regexp: [`^www\\.${ZONE}\\.\\t300\\tIN\\tA\\t192\\.0\\.2\\.1[01]$`] } }, true],
      ['fail_if_none_matches_regexp: one matches', { validate_answer_rrs: { fail_if_none_matches_regexp: ['192\\.0\\.2\\.11'] } }, true],
      ['fail_if_none_matches_regexp: none matches', { validate_answer_rrs: { fail_if_none_matches_regexp: ['192\\.0\\.2\\.99'] } }, false],
      // Upstream fails fail_if_all_match_regexp when some record does NOT match (see docs/probers.md, "dns").
      ['fail_if_all_match_regexp: all match', { validate_answer_rrs: { fail_if_all_match_regexp: ['IN\\tA\\t'] } }, true],
      ['fail_if_all_match_regexp: one does not', { validate_answer_rrs: { fail_if_all_match_regexp: ['192\\.0\\.2\\.10'] } }, false],
      ['authority section', { validate_authority_rrs: { fail_if_matches_regexp: [`IN\\tNS\\tns1\\.${ZONE}\\.$`] } }, false],
      ['authority section passes', { validate_authority_rrs: { fail_if_not_matches_regexp: [`\\tNS\\t`] } }, true],
      ['additional section', { validate_additional_rrs: { fail_if_matches_regexp: ['192\\.0\\.2\\.53'] } }, false],
      ['additional section passes', { validate_additional_rrs: { fail_if_none_matches_regexp: ['192\\.0\\.2\\.53'] } }, true],
    ];
    it.each(cases)('%s', async (_name, settings, success) => {
      expect((await probe(settings)).success).toBe(success);
    });

    it('requires records where a regexp must match', async () => {
      const empty = { query_name: `big.${ZONE}`, query_type: 'TXT' as const };
      expect((await probe({ ...empty, validate_answer_rrs: { fail_if_not_matches_regexp: ['.'] } })).success).toBe(false);
      expect((await probe({ ...empty, validate_answer_rrs: { fail_if_matches_regexp: ['.'] } })).success).toBe(true);
    });

    it('matches TXT, MX and SOA records in their quoted, fully qualified text form', async () => {
      const txt = await probe({ query_name: ZONE, query_type: 'TXT', validate_answer_rrs: { fail_if_not_matches_regexp: [`^${ZONE}\\.\\t300\\tIN\\tTXT\\t"v=spf1 -all" "say \\\\"hi\\\\""$`] } });
      expect(txt.success).toBe(true);
      const mx = await probe({ query_name: ZONE, query_type: 'MX', validate_answer_rrs: { fail_if_not_matches_regexp: [`\\tMX\\t10 mail\\.${ZONE}\\.$`] } });
      expect(mx.success).toBe(true);
      const soa = await probe({
        query_name: ZONE,
        query_type: 'SOA',
        validate_answer_rrs: { fail_if_not_matches_regexp: [`\\tSOA\\tns1\\.${ZONE}\\. hostmaster\\.${ZONE}\\. ${SOA_SERIAL} 7200 900 1209600 300$`] },
      });
      expect(soa.success).toBe(true);
    });
  });

  it('sends from source_ip_address', async () => {
    for (const transport_protocol of ['udp', 'tcp'] as const) {
      expect((await probe({ source_ip_address: '127.0.0.2', transport_protocol })).success).toBe(true);
    }
    expect(server.queries.map((query) => query.from)).toEqual(['127.0.0.2', '127.0.0.2']);
  });

  it('queries over TLS with dns_over_tls, verifying the certificate with tls_config', async () => {
    const tlsTarget = `127.0.0.1:${server.tlsPort}`;
    const run = await probe({ transport_protocol: 'tcp', dns_over_tls: true, tls_config: { ca_file: fixtures.caFile } }, tlsTarget);
    expect(run.success).toBe(true);
    expect(server.queries.map((query) => query.transport)).toEqual(['tls']);
    // As upstream, DNS over TLS reports no TLS metrics.
    expect(metricNames(run.samples).filter((name) => /ssl|tls/.test(name))).toEqual([]);
    // The test CA is not trusted by default, and a wrong server_name does not verify.
    expect((await probe({ transport_protocol: 'tcp', dns_over_tls: true }, tlsTarget)).success).toBe(false);
    expect((await probe({ transport_protocol: 'tcp', dns_over_tls: true, tls_config: { ca_file: fixtures.caFile, server_name: 'other.test' } }, tlsTarget)).success).toBe(false);
    expect((await probe({ transport_protocol: 'tcp', dns_over_tls: true, tls_config: { insecure_skip_verify: true } }, tlsTarget)).success).toBe(true);
  });

  it('follows preferred_ip_protocol and ip_protocol_fallback', async () => {
    const v6 = `localhost:${server6.port}`;
    // localhost has only 127.0.0.1 here; the IPv6-only server is reached at ::1 only.
    const fallback = await probe({ preferred_ip_protocol: 'ip6', ip_protocol_fallback: true }, `localhost:${server.port}`);
    expect(fallback.success).toBe(true);
    expect(metricValue(fallback.samples, 'probe_ip_protocol')).toBe(4);
    expect((await probe({ preferred_ip_protocol: 'ip6', ip_protocol_fallback: false }, `localhost:${server.port}`)).success).toBe(false);
    expect((await probe({ preferred_ip_protocol: 'ip4' }, v6)).success).toBe(false);
    const direct6 = await probe({ preferred_ip_protocol: 'ip6' }, `[::1]:${server6.port}`);
    expect(direct6.success).toBe(true);
    expect(metricValue(direct6.samples, 'probe_ip_protocol')).toBe(6);
  });
});

describe('dns prober against an answer cut short', () => {
  it('fails the probe instead of reading the missing bytes as an address', async () => {
    // The whole answer less its last three bytes: an A record of one byte instead of four.
    const server = await startHostileUdpServer((query, reply) => {
      const { id, questions } = dnsPacket.decode(query);
      reply(dnsPacket.encode({ type: 'response', id, questions, answers: [{ name: `www.${ZONE}`, type: 'A', ttl: 300, data: '127.0.0.1' }] }).subarray(0, -3));
    });
    try {
      const run = await runModule(dnsModule({ validate_answer_rrs: { fail_if_not_matches_regexp: ['\\tA\\t'] } }), `127.0.0.1:${server.port}`);
      expect(run.success).toBe(false);
      expect(run.log).toMatch(/cut short/);
      expect(run.log).not.toContain('undefined');
    } finally {
      await server.close();
    }
  });
});
