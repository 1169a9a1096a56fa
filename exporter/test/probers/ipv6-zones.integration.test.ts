/**
 * IPv6 literals with a zone (fe80::1%eth0: the interface a link-local address is reached on) as targets of
 * every prober that takes a host, against the reference exporter. Loopback's ::1 accepts a zone (lo), so the
 * probes really connect: in a URL the zone is written %25 (RFC 6874, as Go's url.Parse reads it); in tcp and
 * dns targets Go's SplitHostPort takes it as written, `[::1%lo]:53`.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { stringify } from 'yaml';
import { describeWithBinaries } from '../../../test/support/integration';
import { startDnsTestServer, ZONE, type DnsTestServer } from '../../loopback/dns-test-server';
import { startGrpcHealthServer, type GrpcHealthServer } from '../../loopback/grpc-health-server';
import { metricValue } from '../../loopback/metrics-text';
import { REFERENCE_EXPORTER, startPair, type ExporterPair } from '../../loopback/reference-exporter';
import { parseZonedUrl } from '../../src/probers/http/definition';

describe('URLs with a zone', () => {
  it('keeps the zone beside the URL, decoded, and relative references keep it', () => {
    const target = parseZonedUrl('http://user@[fe80::1%25eth0]:8080/path?q');
    expect([target.url.href, target.zone]).toEqual(['http://user@[fe80::1]:8080/path?q', 'eth0']);
    expect(parseZonedUrl('https://[fe80::1%25en%2Dp0]/').zone).toBe('en-p0');
    const relative = parseZonedUrl('/next', target);
    expect([relative.url.href, relative.zone]).toEqual(['http://user@[fe80::1]:8080/next', 'eth0']);
    // Another authority is another host: its zone (or none) is its own.
    expect(parseZonedUrl('//[fe80::2]/', target).zone).toBeUndefined();
    expect(parseZonedUrl('http://[::1]/', target).zone).toBeUndefined();
    // Go's url.Parse refuses a bare % in the host; so does the URL parser.
    expect(() => parseZonedUrl('http://[::1%eth0]/')).toThrow();
  });
});

describeWithBinaries([REFERENCE_EXPORTER])('IPv6 targets with a zone, against the reference exporter', () => {
  let http: Server;
  let tcp: TcpServer;
  let dns: DnsTestServer;
  let grpc: GrpcHealthServer;
  let exporters: ExporterPair;

  beforeAll(async () => {
    // It answers with the Host header it got: a zone is local to the client and never goes on the wire.
    http = createHttpServer((request, response) => {
      if (request.url === '/redirect') response.writeHead(302, { Location: '/ok' }).end();
      else response.end(`host ${request.headers.host}`);
    }).listen(0, '::1');
    tcp = createTcpServer((socket) => {
      socket.on('error', () => undefined);
      socket.end('220 ready\n');
    }).listen(0, '::1');
    await Promise.all([once(http, 'listening'), once(tcp, 'listening')]);
    [dns, grpc] = await Promise.all([startDnsTestServer({ host: '::1' }), startGrpcHealthServer({ host: '::1' })]);
    const ip6 = { preferred_ip_protocol: 'ip6', ip_protocol_fallback: false };
    const dnsSection = { ...ip6, query_name: `www.${ZONE}` };
    exporters = await startPair(
      stringify({
        modules: {
          http_host: { prober: 'http', timeout: '3s', http: { ...ip6, fail_if_body_not_matches_regexp: ['^host \\[::1\\]:\\d+$'] } },
          tcp_banner: { prober: 'tcp', timeout: '3s', tcp: { ...ip6, query_response: [{ expect: '^220 ready' }] } },
          dns_udp: { prober: 'dns', timeout: '3s', dns: dnsSection },
          dns_tcp: { prober: 'dns', timeout: '3s', dns: { ...dnsSection, transport_protocol: 'tcp' } },
          grpc: { prober: 'grpc', timeout: '3s', grpc: ip6 },
        },
      }),
    );
  });

  afterAll(async () => {
    await exporters?.stop();
    http?.close();
    tcp?.close();
    await Promise.all([dns?.close(), grpc?.close()]);
  });

  const port = (server: Server | TcpServer): number => (server.address() as AddressInfo).port;

  it.each([
    ['http_host', 'http://[::1%25lo]:PORT/', () => port(http)],
    ['http_host', '[::1%25lo]:PORT', () => port(http)],
    ['http_host', 'http://[::1%25lo]:PORT/redirect', () => port(http)],
    ['tcp_banner', '[::1%lo]:PORT', () => port(tcp)],
    ['dns_udp', '[::1%lo]:PORT', () => dns.port],
    ['dns_tcp', '[::1%lo]:PORT', () => dns.port],
  ])('%s probes %s as the reference does', async (module, written, portOf) => {
    const target = () => written.replace('PORT', String(portOf()));
    const { reference, ours } = await exporters.probeBoth({ module, target: target() });
    expect(metricValue(reference.samples, 'probe_success')).toBe(1);
    expect(metricValue(ours.samples, 'probe_success')).toBe(1);
    // The hash is of the address's 16 bytes, without the zone, as Go hashes it.
    expect(metricValue(ours.samples, 'probe_ip_addr_hash')).toBe(metricValue(reference.samples, 'probe_ip_addr_hash'));
  });

  it('grpc probes [::1%25lo] and [::1%lo], where 0.23 fails ("too many colons in address")', async () => {
    for (const target of [`[::1%25lo]:${grpc.port}`, `[::1%lo]:${grpc.port}`]) {
      const { reference, ours } = await exporters.probeBoth({ module: 'grpc', target });
      expect([target, metricValue(ours.samples, 'probe_success')]).toEqual([target, 1]);
      expect(metricValue(reference.samples, 'probe_success')).toBe(0);
    }
  });
});
