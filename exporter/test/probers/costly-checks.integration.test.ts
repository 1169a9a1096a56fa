/**
 * Checks a config asks for and a target makes costly: a 70 KB alternation (../../loopback/costly-regexp.ts) over a
 * long header, a long line of a tcp dialogue, big TXT records. Each probe fails at its own deadline, saying so,
 * while the exporter keeps answering /-/healthy and its event loop is never held for the check; a cheap check of
 * the same text is decided in the probe's own thread, never sent to a check thread.
 *
 * @ci-seconds 30
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { COSTLY_REGEXP, costlyText } from '../../loopback/costly-regexp';
import { startDnsTestServer, ZONE, type DnsTestServer } from '../../loopback/dns-test-server';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';

/** The modules' timeout. Each costly check takes 10 to 30 s of one thread (the file above says why). */
const TIMEOUT_SECONDS = 3;
/** How long past its timeout a probe may report it ran: the scrape offset is 0.5 s, the rest this machine's load. */
const SLACK_SECONDS = 1;
/**
 * The longest the exporter may report its event loop held (prom-client's nodejs_eventloop_lag_max_seconds, since
 * the scrape before the probe): under a probe's deadline, or a probe running beside would have been kept past its
 * own. A costly check on the serving thread holds it for the 10 to 30 s of the check; the timers of an exporter at
 * rest ran up to 1.7 s late at load 20 on this machine's two cores.
 */
const MOST_LOOP_LAG_SECONDS = TIMEOUT_SECONDS;
/** A text 40,000 characters long: some 20 s of re2js under COSTLY_REGEXP. */
const LONG = costlyText(40_000);

const CONFIG = `modules:
  costly_header:
    prober: http
    timeout: ${TIMEOUT_SECONDS}s
    http: { preferred_ip_protocol: ip4, fail_if_header_matches: [{ header: X-Digits, regexp: '${COSTLY_REGEXP}' }] }
  cheap_header:
    prober: http
    timeout: ${TIMEOUT_SECONDS}s
    http: { preferred_ip_protocol: ip4, fail_if_header_not_matches: [{ header: X-Digits, regexp: '^[0-9q]+$' }] }
  costly_line:
    prober: tcp
    timeout: ${TIMEOUT_SECONDS}s
    tcp: { preferred_ip_protocol: ip4, query_response: [{ expect: '${COSTLY_REGEXP}' }] }
  cheap_line:
    prober: tcp
    timeout: ${TIMEOUT_SECONDS}s
    tcp: { preferred_ip_protocol: ip4, query_response: [{ expect: '^([0-9])[0-9q]+$', send: 'first digit \${1}' }] }
  costly_records:
    prober: dns
    timeout: ${TIMEOUT_SECONDS}s
    dns: { transport_protocol: tcp, preferred_ip_protocol: ip4, query_name: costly.${ZONE}, query_type: TXT, validate_answer_rrs: { fail_if_matches_regexp: ['${COSTLY_REGEXP}'] } }
  cheap_records:
    prober: dns
    timeout: ${TIMEOUT_SECONDS}s
    dns: { transport_protocol: tcp, preferred_ip_protocol: ip4, query_name: costly.${ZONE}, query_type: TXT, validate_answer_rrs: { fail_if_not_matches_regexp: ['^costly\\.${ZONE}\\.\\s'] } }
`;

let dir: string;
let web: Server;
let tcp: TcpServer;
let dns: DnsTestServer;
let exporter: Exporter;
let base: string;
const linesSent: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-costly-checks-'));
  writeFileSync(join(dir, 'blackbox.yml'), CONFIG);
  web = createHttpServer((_request, response) => response.writeHead(200, { 'X-Digits': LONG }).end('ok')).listen(0, '127.0.0.1');
  tcp = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.setEncoding('utf8').on('data', (line: string) => linesSent.push(line));
    socket.write(`${LONG}\n`);
  }).listen(0, '127.0.0.1');
  await Promise.all([once(web, 'listening'), once(tcp, 'listening')]);
  dns = await startDnsTestServer();
  exporter = new Exporter({ configFile: join(dir, 'blackbox.yml'), timeoutOffsetSeconds: 0.5, historyLimit: 10, log: new Logger('error', () => undefined) });
  // Before it listens the exporter compiles in this thread: the 70 KB pattern takes a second or two here.
  await exporter.reload();
  base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
}, 60_000);

afterAll(async () => {
  await exporter?.close();
  tcp?.close();
  web?.close();
  await dns?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function metrics(): Promise<ReturnType<typeof parseMetrics>> {
  return parseMetrics(await (await fetch(`${base}/metrics`)).text());
}

/** Probes with debug=true, asking /-/healthy every 50 ms meanwhile; the loop lag the exporter reported over the probe. */
async function probeWhileAskingHealth(module: string, target: string): Promise<{ debug: string; healthFailures: number; healthAnswers: number; lag: number }> {
  await metrics();
  let debug: string | undefined;
  const probe = fetch(`${base}/probe?module=${module}&debug=true&target=${encodeURIComponent(target)}`).then(async (response) => {
    debug = await response.text();
  });
  let healthAnswers = 0;
  let healthFailures = 0;
  while (debug === undefined) {
    const ok = await fetch(`${base}/-/healthy`, { signal: AbortSignal.timeout(10_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) healthAnswers += 1;
    else healthFailures += 1;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await probe;
  return { debug, healthFailures, healthAnswers, lag: metricValue(await metrics(), 'nodejs_eventloop_lag_max_seconds')! };
}

/** A sample's value in the metrics part of a debug=true answer. */
function reported(debug: string, name: string): number | undefined {
  return metricValue(parseMetrics(debug.slice(debug.indexOf('Metrics that would have been returned:'))), name);
}

/** The log lines of a debug=true answer with message `message`. */
function logLines(debug: string, message: string): string[] {
  return debug.split('\n').filter((line) => line.includes(` msg="${message}" `));
}

const targets = {
  http: (): string => `http://127.0.0.1:${(web.address() as AddressInfo).port}/`,
  tcp: (): string => `127.0.0.1:${(tcp.address() as AddressInfo).port}`,
  dns: (): string => `127.0.0.1:${dns.port}`,
};

describe('checks a target makes costly', () => {
  it.each([
    ['a 70 KB alternation over a 40 KB header', 'costly_header', targets.http],
    ['a 70 KB alternation over a 40 KB line of a tcp dialogue', 'costly_line', targets.tcp],
    ['a 70 KB alternation over three 15 KB TXT records', 'costly_records', targets.dns],
  ])(
    '%s: the probe fails at its deadline, saying the check was stopped, and the loop is never held',
    async (_name, module, target) => {
      const { debug, healthFailures, healthAnswers, lag } = await probeWhileAskingHealth(module, target());
      expect(reported(debug, 'probe_success')).toBe(0);
      // Lines picked out, not the whole answer: it holds the 70 KB pattern, which a failed match would print.
      expect(logLines(debug, 'Check stopped at the deadline')).toHaveLength(1);
      expect(logLines(debug, 'Probe failed')).toEqual([expect.stringMatching(/ reason="timed out" phase=response detail="the [a-z_ ]+ were still running at the deadline, and were stopped"$/)]);
      expect(reported(debug, 'probe_duration_seconds')).toBeLessThan(TIMEOUT_SECONDS + SLACK_SECONDS);
      expect(healthFailures).toBe(0);
      expect(healthAnswers).toBeGreaterThan(5);
      expect(lag).toBeLessThan(MOST_LOOP_LAG_SECONDS);
    },
    120_000,
  );

  it.each([
    ['a header', 'cheap_header', targets.http],
    ['a line of a tcp dialogue, its capture sent back', 'cheap_line', targets.tcp],
    ['TXT records', 'cheap_records', targets.dns],
  ])(
    'a cheap check of %s is decided in the probe, as upstream decides it',
    async (_name, module, target) => {
      const { debug } = await probeWhileAskingHealth(module, target());
      expect(reported(debug, 'probe_success')).toBe(1);
      expect(logLines(debug, 'Checks sent to a check thread')).toEqual([]);
      if (module === 'cheap_line') expect(linesSent.at(-1)).toBe(`first digit ${LONG[0]}\n`);
    },
    60_000,
  );
});
