/**
 * What a scrape may ask of the exporter, run as a real process: scrapes that go away before their answer
 * (Prometheus' scrape timeout, a client that disconnects) stop their probes and release their sockets; a
 * scrape timeout longer than a Node timer can wait is still a timeout, not an instant failure; a long
 * target URL or query is probed, as Go's server takes up to 1 MiB of request head; a request line without
 * an HTTP version is refused.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SCRAPE_TIMEOUT_HEADER } from '../../src/contract/endpoints';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { startExporter, type RunningExporter } from '../../loopback/reference-exporter';

const CONFIG = `modules:
  http:
    prober: http
    timeout: 30s
    http:
      preferred_ip_protocol: ip4
  tcp:
    prober: tcp
    timeout: 30s
    tcp:
      preferred_ip_protocol: ip4
      query_response:
        - expect: "^never"
  dns_tcp:
    prober: dns
    timeout: 30s
    dns:
      preferred_ip_protocol: ip4
      transport_protocol: tcp
      query_name: example.test
  grpc:
    prober: grpc
    timeout: 30s
    grpc:
      preferred_ip_protocol: ip4
  no_timeout:
    prober: http
    http:
      preferred_ip_protocol: ip4
`;

describe('scrapes, against the exporter as a process', () => {
  let exporter: RunningExporter;
  let stalled: Server;
  let answering: HttpServer;
  const held = new Set<Socket>();
  let accepted = 0;

  beforeAll(async () => {
    // Accepts, reads, never answers: a probe of it lasts until something stops it.
    stalled = createServer((socket) => {
      accepted += 1;
      held.add(socket);
      socket.resume();
      socket.on('error', () => undefined);
      socket.on('close', () => held.delete(socket));
    }).listen(0, '127.0.0.1');
    // Takes a long request line itself, so that a probe of a long URL can succeed.
    answering = createHttpServer({ maxHeaderSize: 1 << 20 }, (_request, response) => response.end('ok')).listen(0, '127.0.0.1');
    await Promise.all([once(stalled, 'listening'), once(answering, 'listening')]);
    exporter = await startExporter('ours', CONFIG);
  });

  afterAll(async () => {
    await exporter?.stop();
    for (const socket of held) socket.destroy();
    stalled.close();
    answering.close();
  });

  it.each([
    ['http', (port: number) => `http://127.0.0.1:${port}/`],
    ['tcp', (port: number) => `127.0.0.1:${port}`],
    ['dns_tcp', (port: number) => `127.0.0.1:${port}`],
    ['grpc', (port: number) => `127.0.0.1:${port}`],
  ])('100 %s scrapes abandoned after 300 ms leave no socket open, long before their 30 s deadline', async (module, target) => {
    const query = new URLSearchParams({ module, target: target((stalled.address() as AddressInfo).port) });
    accepted = 0;
    const abandoned = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${exporter.baseUrl}/probe?${query}`, { signal: AbortSignal.timeout(300) }).then(
          () => 'answered',
          () => 'abandoned',
        ),
      ),
    );
    expect(new Set(abandoned)).toEqual(new Set(['abandoned']));
    // Closed as the abandonment reaches each probe: waited for up to 10 s (a loaded machine took more than the
    // second this once waited), a third of the deadline at which a probe that ignored it would let go.
    for (let waited = 0; held.size > 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    // The probes had connected; what counts is that they let go.
    expect(accepted).toBeGreaterThan(0);
    expect(held.size).toBe(0);
  });

  it('takes a scrape timeout longer than a Node timer can wait for what it is', async () => {
    const target = `http://127.0.0.1:${(answering.address() as AddressInfo).port}/`;
    const response = await fetch(`${exporter.baseUrl}/probe?${new URLSearchParams({ module: 'no_timeout', target })}`, { headers: { [SCRAPE_TIMEOUT_HEADER]: '3000000' } });
    expect(response.status).toBe(200);
    expect(metricValue(parseMetrics(await response.text()), 'probe_success')).toBe(1);
  });

  it.each([
    ['a target URL of 20 KB', (target: string) => new URLSearchParams({ module: 'no_timeout', target: `${target}?q=${'x'.repeat(20_000)}` }).toString()],
    ['5,000 query parameters', (target: string) => `${new URLSearchParams({ module: 'no_timeout', target })}&${Array.from({ length: 5000 }, (_, index) => `p${index}=v`).join('&')}`],
  ])('probes %s instead of answering 431', async (_name, query) => {
    const response = await fetch(`${exporter.baseUrl}/probe?${query(`http://127.0.0.1:${(answering.address() as AddressInfo).port}/`)}`);
    expect(response.status).toBe(200);
    expect(metricValue(parseMetrics(await response.text()), 'probe_success')).toBe(1);
  });

  it('answers 400 to a request line without an HTTP version (HTTP/0.9)', async () => {
    const url = new URL(exporter.baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    socket.write(`GET /probe?module=no_timeout&target=http://127.0.0.1:${(answering.address() as AddressInfo).port}/\r\n\r\n`);
    let reply = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (reply += chunk));
    await once(socket, 'close');
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(reply).not.toContain('probe_success');
  });
});
