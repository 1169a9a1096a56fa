/**
 * Properties of /probe over generated requests, against our exporter as a process: any module, target,
 * parameters and headers get a 2xx carrying probe_success, or a 4xx, within the module's deadline, and the
 * process lives on. The one 5xx is upstream's: a scrape timeout header that Go's ParseFloat refuses gets 500
 * (the differential http test shows which those are).
 * Targets vary freely in everything but the host, which is always an IP literal (or broken before it could
 * be one): a generated host name would go to the machine's resolver, which tests never use.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { SCRAPE_TIMEOUT_HEADER } from '../../src/contract/endpoints';
import { freePort, startExporter, type RunningExporter } from '../../loopback/reference-exporter';

/** Every module's timeout: the longest a generated probe may take. */
const TIMEOUT_SECONDS = 1;
const MODULES = ['http_2xx', 'http_post', 'tcp_connect', 'tcp_expect', 'dns_udp', 'dns_tcp', 'grpc', 'icmp'];

describe('/probe over generated query strings and headers', () => {
  let exporter: RunningExporter;
  let answering: Server;
  let closedPort: number;

  beforeAll(async () => {
    answering = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1');
    await once(answering, 'listening');
    closedPort = await freePort();
    const module = (prober: string, section: Record<string, unknown> = {}) => ({ prober, timeout: `${TIMEOUT_SECONDS}s`, [prober]: section });
    exporter = await startExporter(
      'ours',
      stringify({
        modules: {
          http_2xx: module('http'),
          http_post: module('http', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}', fail_if_body_not_matches_regexp: ['ok'] }),
          tcp_connect: module('tcp'),
          tcp_expect: module('tcp', { query_response: [{ expect: '^ok', send: 'hi ${1}' }] }),
          dns_udp: module('dns', { query_name: 'probe.test' }),
          dns_tcp: module('dns', { query_name: 'probe.test', transport_protocol: 'tcp' }),
          grpc: module('grpc'),
          icmp: module('icmp'),
        },
      }),
    );
  });

  afterAll(async () => {
    await exporter?.stop();
    answering?.close();
  });

  /** Text that may go into a query unencoded: anything but the separators, with stray % signs. */
  const rawText = fc.string({ unit: fc.constantFrom(..."abc%25%zz%%/:?#[]@!$'()*+,;.-_~ \u00e9\u2603".split('')), maxLength: 30 });
  const anyText = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), rawText);

  const host = fc.constantFrom('127.0.0.1', '[::1]', '::1', '[::1%25lo]', '[::1%lo]', '[fe80::1%25nonexistent0]', '[::1', '127.0.0.1]', '[]', '');
  const port = (): fc.Arbitrary<string> => fc.constantFrom('', `:${(answering.address() as AddressInfo).port}`, `:${closedPort}`, ':0', ':65536', ':-1', ':abc', ':');
  const scheme = fc.constantFrom('', 'http://', 'https://', 'HTTP://', 'ftp://', 'http:/', '//', 'http://user:pw@');
  const target = (): fc.Arbitrary<string> =>
    fc.oneof(
      fc
        .tuple(
          scheme,
          host,
          port(),
          fc.oneof(
            fc.constant(''),
            fc.constant('/'),
            anyText.map((text) => `/${text}`),
          ),
        )
        .map((parts) => parts.join('')),
      // Long ones: a 20 KB path, thousands of query parameters in the target.
      fc.integer({ min: 1000, max: 20_000 }).map((length) => `http://127.0.0.1:${closedPort}/${'x'.repeat(length)}`),
      fc.constant(''),
    );

  /** One query parameter: a known name or any, its value encoded or written raw. */
  const parameter = (): fc.Arbitrary<string> =>
    fc
      .tuple(
        fc.oneof(fc.constantFrom('module', 'target', 'debug', 'hostname', 'timeout'), fc.string({ maxLength: 10 })),
        fc.oneof(fc.constantFrom('true', 'false', '', 'localhost', ...MODULES), anyText),
        fc.boolean(),
      )
      .map(([name, value, encoded]) => `${encodeURIComponent(name)}=${encoded ? encodeURIComponent(value) : value.replace(/[&=#\s]/g, '')}`);

  const query = (): fc.Arbitrary<string> =>
    fc
      .tuple(
        fc.option(fc.oneof({ arbitrary: fc.constantFrom(...MODULES), weight: 4 }, anyText), { nil: undefined, freq: 10 }),
        fc.option(target(), { nil: undefined, freq: 10 }),
        fc.array(parameter(), { maxLength: 6 }),
        fc.boolean(),
      )
      .map(([module, written, extra, shuffled]) => {
        const first = [module === undefined ? undefined : `module=${encodeURIComponent(module)}`, written === undefined ? undefined : `target=${encodeURIComponent(written)}`].filter(
          (part): part is string => part !== undefined,
        );
        return (shuffled ? [...extra, ...first] : [...first, ...extra]).join('&');
      });

  const timeoutHeader = fc.oneof(fc.constantFrom('10', '0.5', '0', '-1', '3000000', '1e309', 'NaN', 'Infinity', 'abc', '', ' 5 ', '0x10'), fc.double({ noNaN: true }).map(String));
  const headers = fc.record(
    {
      [SCRAPE_TIMEOUT_HEADER]: timeoutHeader,
      Accept: fc.constantFrom('application/openmetrics-text;version=1.0.0', 'text/plain', '*/*', 'garbage/\u0001'.replace('\u0001', '')),
    },
    { requiredKeys: [] },
  );

  it('answers every request with probe_success in a 2xx, or a 4xx, within the deadline; the process lives on', async () => {
    const answered = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(query(), headers, async (text, sent) => {
        // The signal only keeps a request that is never answered from hanging the test; how long a probe took is
        // what the exporter reports (probe_duration_seconds), not this machine's clock.
        const response = await fetch(`${exporter.baseUrl}/probe?${text}`, { headers: sent, signal: AbortSignal.timeout(30_000) });
        const body = await response.text();
        const status = response.status;
        answered.set(status, (answered.get(status) ?? 0) + 1);
        const fine =
          (status >= 200 && status < 300 && body.includes('probe_success')) ||
          (status >= 400 && status < 500) ||
          (status === 500 && sent[SCRAPE_TIMEOUT_HEADER] !== undefined && body.startsWith('Failed to parse timeout from Prometheus header'));
        if (!fine) throw new Error(`answered ${status} to ${text.slice(0, 200)}: ${body.slice(0, 300)}`);
        const seconds = Number(/^probe_duration_seconds (\S+)$/m.exec(body)?.[1] ?? 0);
        if (seconds > TIMEOUT_SECONDS + 1) throw new Error(`probe_duration_seconds ${seconds} for ${text.slice(0, 200)}, past the ${TIMEOUT_SECONDS} s timeout`);
      }),
      { numRuns: 300 },
    );
    // The generators reach the probers, not only the refusals in front of them.
    expect(answered.get(200) ?? 0).toBeGreaterThan(100);
    expect([...answered.keys()].some((status) => status >= 400 && status < 500)).toBe(true);
    expect((await fetch(`${exporter.baseUrl}/-/healthy`)).ok).toBe(true);
    expect(exporter.log()).not.toMatch(/uncaught|unhandled/i);
  }, 240_000);
});
