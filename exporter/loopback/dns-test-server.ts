/**
 * An authoritative DNS server for tests and the benchmark, on loopback, over UDP, TCP and (optionally) DNS over
 * TLS, built on dns-packet. It serves the zone `probe.test.` and behaves on purpose for some names:
 *   - unknown names get NXDOMAIN with the zone's SOA in the authority section;
 *   - `big.probe.test.` is truncated over UDP (TC set, no records) and answered whole over TCP;
 *   - `silent.probe.test.` is never answered;
 *   - `costly.probe.test.` has three TXT records of 15,000 characters each, costly to COSTLY_REGEXP (./costly-regexp.ts).
 * Every query received is recorded, so tests can see the flags, class and source address a probe used.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { costlyText } from './costly-regexp';

export const ZONE = 'probe.test';
export const SOA_SERIAL = 2026112201;

export interface ReceivedQuery {
  readonly transport: 'udp' | 'tcp' | 'tls';
  readonly from: string;
  readonly name: string;
  readonly type: string;
  readonly class: string;
  readonly recursionDesired: boolean;
}

export interface DnsTestServer {
  readonly host: string;
  /** UDP and TCP share this port. */
  readonly port: number;
  /** DNS over TLS, when started with a certificate. */
  readonly tlsPort?: number;
  readonly queries: ReceivedQuery[];
  close(): Promise<void>;
}

const soa: dnsPacket.Answer = {
  name: ZONE,
  type: 'SOA',
  ttl: 3600,
  data: { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: SOA_SERIAL, refresh: 7200, retry: 900, expire: 1209600, minimum: 300 },
};

const records: dnsPacket.Answer[] = [
  soa,
  { name: ZONE, type: 'NS', ttl: 3600, data: `ns1.${ZONE}` },
  { name: ZONE, type: 'MX', ttl: 3600, data: { preference: 10, exchange: `mail.${ZONE}` } },
  { name: ZONE, type: 'TXT', ttl: 300, data: ['v=spf1 -all', 'say "hi"'] },
  { name: `ns1.${ZONE}`, type: 'A', ttl: 3600, data: '192.0.2.53' },
  { name: `www.${ZONE}`, type: 'A', ttl: 300, data: '192.0.2.10' },
  { name: `www.${ZONE}`, type: 'A', ttl: 300, data: '192.0.2.11' },
  { name: `www.${ZONE}`, type: 'AAAA', ttl: 300, data: '2001:db8::10' },
  { name: `alias.${ZONE}`, type: 'CNAME', ttl: 300, data: `www.${ZONE}` },
  { name: `_sip._tcp.${ZONE}`, type: 'SRV', ttl: 300, data: { priority: 10, weight: 60, port: 5060, target: `sip.${ZONE}` } },
  { name: `10.2.0.192.in-addr.arpa`, type: 'PTR', ttl: 300, data: `www.${ZONE}` },
  ...Array.from({ length: 40 }, (_, index): dnsPacket.Answer => ({ name: `big.${ZONE}`, type: 'TXT', ttl: 60, data: `padding record ${index} ${'x'.repeat(40)}` })),
  ...[1, 2, 3].map((seed): dnsPacket.Answer => ({ name: `costly.${ZONE}`, type: 'TXT', ttl: 60, data: Array.from({ length: 60 }, (_, index) => costlyText(250, seed * 100 + index)) })),
];

/** CHAOS-class records, for query_class. */
const chaosRecords: dnsPacket.Answer[] = [{ name: 'version.bind', type: 'TXT', class: 'CH', ttl: 0, data: 'probekit test server' }];

const same = (a: string, b: string): boolean => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

function answer(query: dnsPacket.DecodedPacket, transport: ReceivedQuery['transport']): Buffer | undefined {
  const question = query.questions?.[0];
  if (!question) return undefined;
  if (same(question.name, `silent.${ZONE}`)) return undefined;
  const klass = question.class ?? 'IN';
  const pool = klass === 'CH' ? chaosRecords : records;
  const named = pool.filter((record) => same(record.name, question.name));
  const matching = named.filter((record) => (question.type as string) === 'ANY' || record.type === question.type || record.type === 'CNAME');
  const known = named.length > 0;
  const truncated = transport === 'udp' && same(question.name, `big.${ZONE}`);
  const inZone = klass === 'IN' && (same(question.name, ZONE) || question.name.toLowerCase().replace(/\.$/, '').endsWith(`.${ZONE}`));
  // The low four flag bits are the rcode: 3 is NXDOMAIN, for names the zone does not have.
  const flags = dnsPacket.AUTHORITATIVE_ANSWER | (query.flag_rd ? dnsPacket.RECURSION_DESIRED : 0) | (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) | (known ? 0 : 3);
  const response: dnsPacket.Packet = {
    type: 'response',
    id: query.id,
    flags,
    questions: [question],
    answers: truncated ? [] : matching,
    authorities: truncated ? [] : known ? (inZone ? records.filter((record) => record.type === 'NS') : []) : inZone ? [soa] : [],
    additionals: truncated || !known || !inZone ? [] : records.filter((record) => same(record.name, `ns1.${ZONE}`) && record.type === 'A'),
  };
  return dnsPacket.encode(response);
}

function record(queries: ReceivedQuery[], message: Buffer, transport: ReceivedQuery['transport'], from: string): dnsPacket.DecodedPacket | undefined {
  try {
    const query = dnsPacket.decode(message);
    const question = query.questions?.[0];
    if (question) {
      queries.push({ transport, from, name: question.name, type: question.type, class: question.class ?? 'IN', recursionDesired: query.flag_rd === true });
    }
    return query;
  } catch {
    return undefined;
  }
}

function serveStream(queries: ReceivedQuery[], transport: 'tcp' | 'tls', sockets: Set<Socket>) {
  return (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        const query = record(queries, message, transport, socket.remoteAddress ?? '');
        const response = query && answer(query, transport);
        if (response) {
          const length = Buffer.alloc(2);
          length.writeUInt16BE(response.length);
          socket.write(Buffer.concat([length, response]));
        }
      }
    });
  };
}

async function listenUdpAndTcp(host: string, queries: ReceivedQuery[], sockets: Set<Socket>): Promise<{ udp: UdpSocket; tcp: Server; port: number }> {
  // UDP takes a free port first; TCP then asks for the same one, which is almost always free too.
  for (let attempt = 0; ; attempt += 1) {
    const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    await new Promise<void>((resolve) => udp.bind(0, host, resolve));
    const port = udp.address().port;
    const tcp = createServer(serveStream(queries, 'tcp', sockets));
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, host, resolve);
      });
    } catch (error) {
      udp.close();
      if (attempt > 5) throw error;
      continue;
    }
    udp.on('message', (message, remote) => {
      const query = record(queries, message, 'udp', remote.address);
      const response = query && answer(query, 'udp');
      if (response) udp.send(response, remote.port, remote.address);
    });
    return { udp, tcp, port };
  }
}

export async function startDnsTestServer(options: { host?: string; tls?: { cert: string; key: string } } = {}): Promise<DnsTestServer> {
  const host = options.host ?? '127.0.0.1';
  const queries: ReceivedQuery[] = [];
  const sockets = new Set<Socket>();
  const { udp, tcp, port } = await listenUdpAndTcp(host, queries, sockets);
  let tls: TlsServer | undefined;
  if (options.tls) {
    const server = createTlsServer({ cert: options.tls.cert, key: options.tls.key }, serveStream(queries, 'tls', sockets));
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    tls = server;
  }
  return {
    host,
    port,
    tlsPort: tls ? (tls.address() as AddressInfo).port : undefined,
    queries,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
        tls ? new Promise<void>((resolve) => tls.close(() => resolve())) : Promise.resolve(),
      ]);
    },
  };
}
