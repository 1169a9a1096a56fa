import * as dnsPacket from 'dns-packet';
import { recordText } from '../../../src/probers/dns/record-text';

/** Records through the wire and back, so the formatter sees what the prober sees. */
function decoded(answers: dnsPacket.Answer[]) {
  return dnsPacket.decode(dnsPacket.encode({ type: 'response', id: 1, answers })).answers ?? [];
}

describe('DNS records in upstream text form', () => {
  it('prints each type as the Go DNS library does', () => {
    const texts = decoded([
      { name: 'example.com', type: 'A', ttl: 3600, data: '192.0.2.1' },
      { name: 'example.com', type: 'AAAA', ttl: 60, data: '2001:db8:0:0:0:0:0:1' },
      { name: 'example.com', type: 'MX', ttl: 300, data: { preference: 10, exchange: 'mx.example.com' } },
      { name: 'example.com', type: 'TXT', ttl: 300, data: ['a "quoted" \\ text', 'two'] },
      { name: 'example.com', type: 'NS', ttl: 300, data: 'ns.example.com' },
      { name: 'www.example.com', type: 'CNAME', ttl: 300, data: 'example.com' },
      { name: '_x._tcp.example.com', type: 'SRV', ttl: 300, data: { priority: 1, weight: 2, port: 3, target: 't.example.com' } },
      { name: '1.2.0.192.in-addr.arpa', type: 'PTR', ttl: 300, data: 'example.com' },
      { name: 'example.com', type: 'SOA', ttl: 300, data: { mname: 'ns.example.com', rname: 'h.example.com', serial: 5, refresh: 6, retry: 7, expire: 8, minimum: 9 } },
      { name: 'example.com', type: 'CAA', ttl: 300, data: { flags: 0, tag: 'issue', value: 'ca.example.net' } },
      { name: '.', type: 'NS', ttl: 1, data: 'a.root-servers.net' },
    ]).map(recordText);
    expect(texts).toEqual([
      'example.com.\t3600\tIN\tA\t192.0.2.1',
      'example.com.\t60\tIN\tAAAA\t2001:db8::1',
      'example.com.\t300\tIN\tMX\t10 mx.example.com.',
      'example.com.\t300\tIN\tTXT\t"a \\"quoted\\" \\\\ text" "two"',
      'example.com.\t300\tIN\tNS\tns.example.com.',
      'www.example.com.\t300\tIN\tCNAME\texample.com.',
      '_x._tcp.example.com.\t300\tIN\tSRV\t1 2 3 t.example.com.',
      '1.2.0.192.in-addr.arpa.\t300\tIN\tPTR\texample.com.',
      'example.com.\t300\tIN\tSOA\tns.example.com. h.example.com. 5 6 7 8 9',
      'example.com.\t300\tIN\tCAA\t0 issue "ca.example.net"',
      '.\t1\tIN\tNS\ta.root-servers.net.',
    ]);
  });

  it('prints types it has no text form for in RFC 3597 form', () => {
    const [unknown] = decoded([{ name: 'example.com', type: 'UNKNOWN_65280' as dnsPacket.RecordType, ttl: 5, data: Buffer.from([1, 2, 255]) } as dnsPacket.Answer]);
    expect(recordText(unknown)).toBe('example.com.\t5\tIN\tTYPE65280\t\\# 3 0102ff');
  });
});
