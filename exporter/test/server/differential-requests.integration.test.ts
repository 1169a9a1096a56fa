/**
 * Requests the reference refuses, sent as written to the reference blackbox_exporter 0.23.0 and to ours:
 * /logs with an id that is not a whole number, /probe with a query Go's url.ParseQuery drops a pair of (a
 * broken percent-escape, a semicolon), and targets Go's url.Parse refuses (a control character, a broken
 * escape outside the query). Each must be refused by both: a 4xx or 5xx with no record (ours says 400 where
 * 0.23 says 500, as 0.28 does), or a failed probe.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'yaml';
import { describeWithBinaries } from '../../../test/support/integration';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { REFERENCE_EXPORTER, startPair, type ExporterPair } from '../../loopback/reference-exporter';

interface Answer {
  readonly status: number;
  readonly body: string;
}

describeWithBinaries([REFERENCE_EXPORTER])('requests the reference refuses, against the reference', () => {
  let pair: ExporterPair;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
    const module = (prober: string) => ({ prober, timeout: '2s', [prober]: prober === 'dns' ? { query_name: 'probe.test' } : {} });
    pair = await startPair(stringify({ modules: { http_2xx: module('http'), tcp_connect: module('tcp'), dns_udp: module('dns') } }));
    // One probe each, so that id 0 exists in both histories.
    await pair.probeBoth({ module: 'http_2xx', target: `http://127.0.0.1:${port}/` });
  }, 60_000);

  afterAll(async () => {
    await pair?.stop();
    server?.close();
  });

  /** `pathAndQuery` as written on the request line, to both. */
  const both = async (pathAndQuery: string): Promise<{ reference: Answer; ours: Answer }> => {
    const ask = async (baseUrl: string): Promise<Answer> => {
      const response = await fetch(`${baseUrl}${pathAndQuery}`);
      return { status: response.status, body: await response.text() };
    };
    const [reference, ours] = await Promise.all([ask(pair.reference.baseUrl), ask(pair.ours.baseUrl)]);
    return { reference, ours };
  };

  it.each(['', '0x1', '1.0', '1e0', '+0', '%200', '0%20', '99999999999999999999', '0_0', 'zero'])('/logs?id=%s: "Invalid probe id" from both, 400 from ours', async (id) => {
    const { reference, ours } = await both(`/logs?id=${id}`);
    expect(reference).toEqual({ status: 500, body: 'Invalid probe id\n' });
    expect(ours.status).toBe(400);
    expect(ours.body).toMatch(/^Invalid probe id "/);
  });

  it('/logs?id=0 and ?id=-1 as the reference: the record, and not found', async () => {
    const found = await both('/logs?id=0');
    expect([found.reference.status, found.ours.status]).toEqual([200, 200]);
    const missing = await both('/logs?id=-1');
    expect([missing.reference.status, missing.ours.status]).toEqual([404, 404]);
  });

  it.each([
    ['a broken escape in the query of the request', (p: number) => `target=http://127.0.0.1:${p}/%zz`],
    ['a broken escape in the user info', (p: number) => `target=http://al%zzice:pw@127.0.0.1:${p}/`],
    ['a semicolon in the pair', (p: number) => `target=http://127.0.0.1:${p}/;x`],
    ['a lone % at the end', (p: number) => `target=http://127.0.0.1:${p}/%`],
  ])('/probe with %s: no target for either, 400', async (_what, query) => {
    const { reference, ours } = await both(`/probe?${query(port)}`);
    expect(reference.status).toBe(400);
    expect(reference.body).toBe('Target parameter is missing\n');
    expect(ours.status).toBe(400);
    expect(ours.body).toMatch(/^Target parameter is missing/);
  });

  it.each([
    ['http_2xx', 'a NUL in the path', (p: number) => `http://127.0.0.1:${p}/%00`],
    ['http_2xx', 'a newline in the path', (p: number) => `http://127.0.0.1:${p}/a%0Ab`],
    ['http_2xx', 'a DEL in the query', (p: number) => `http://127.0.0.1:${p}/?a=%7F`],
    ['http_2xx', 'a tab in the host', (p: number) => `http://127.0.0.1%09:${p}/`],
    ['http_2xx', 'a broken escape in the path', (p: number) => `http://127.0.0.1:${p}/%25zz`],
    ['http_2xx', 'a lone % in the path', (p: number) => `http://127.0.0.1:${p}/a%25`],
    ['http_2xx', 'a broken escape in the fragment', (p: number) => `http://127.0.0.1:${p}/%23%25zz`],
    ['http_2xx', 'a broken escape in the user info', (p: number) => `http://al%25zzice:pw@127.0.0.1:${p}/`],
    ['http_2xx', 'a bare target with a NUL', (p: number) => `127.0.0.1:${p}/%00`],
    ['tcp_connect', 'a NUL after the port', (p: number) => `127.0.0.1:${p}%00`],
    ['tcp_connect', 'a NUL in the host', (p: number) => `127.0.0%00.1:${p}`],
    ['dns_udp', 'a NUL in the server', () => '127.0.0.1%00'],
  ])('%s with %s: a failed probe from both', async (module, _what, target) => {
    const { reference, ours } = await both(`/probe?module=${module}&target=${target(port)}`);
    expect({ reference: reference.status, ours: ours.status }).toEqual({ reference: 200, ours: 200 });
    expect({ reference: metricValue(parseMetrics(reference.body), 'probe_success'), ours: metricValue(parseMetrics(ours.body), 'probe_success') }).toEqual({ reference: 0, ours: 0 });
  });

  it('probes what both accept: a broken escape in the query of the target is left as written', async () => {
    const { reference, ours } = await both(`/probe?target=${encodeURIComponent(`http://127.0.0.1:${port}/?discount=50%off`)}`);
    expect({ reference: metricValue(parseMetrics(reference.body), 'probe_success'), ours: metricValue(parseMetrics(ours.body), 'probe_success') }).toEqual({ reference: 1, ours: 1 });
  });
});
