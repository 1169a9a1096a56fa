/**
 * Regular expressions that backtracking engines take seconds over (`.*error.*` on a 100 KB line): with RE2
 * the probe decides at once and the server goes on answering while such probes run.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';

const LINE = 'x'.repeat(100_000);
const CONFIG = `modules:
  body:
    prober: http
    timeout: 2s
    http: { preferred_ip_protocol: ip4, fail_if_body_matches_regexp: ['.*error.*', '(x+x+)+y'] }
  line:
    prober: tcp
    timeout: 2s
    tcp: { preferred_ip_protocol: ip4, query_response: [{ expect: '.*error.*' }] }
`;

let dir: string;
let web: Server;
let tcp: TcpServer;
let exporter: Exporter;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-pathological-'));
  writeFileSync(join(dir, 'blackbox.yml'), CONFIG);
  web = createHttpServer((_request, response) => response.end(LINE)).listen(0, '127.0.0.1');
  tcp = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.write(`${LINE}\n`);
  }).listen(0, '127.0.0.1');
  await Promise.all([once(web, 'listening'), once(tcp, 'listening')]);
  exporter = new Exporter({ configFile: join(dir, 'blackbox.yml'), timeoutOffsetSeconds: 0.5, historyLimit: 3, log: new Logger('error', () => undefined) });
  await exporter.reload();
  base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
});

afterAll(async () => {
  await exporter.close();
  tcp.close();
  web.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The probe's answer, and the longest /-/healthy took while it ran (Infinity when one went unanswered). */
async function probeWhileAskingHealth(module: string, target: string): Promise<{ text: string; slowestHealth: number }> {
  let text: string | undefined;
  const probe = fetch(`${base}/probe?module=${module}&target=${encodeURIComponent(target)}`)
    .then((response) => response.text())
    .then((answer) => {
      text = answer;
    });
  let slowestHealth = 0;
  while (text === undefined) {
    const started = performance.now();
    const ok = await fetch(`${base}/-/healthy`, { signal: AbortSignal.timeout(3000) }).then(
      (response) => response.ok,
      () => false,
    );
    slowestHealth = Math.max(slowestHealth, ok ? performance.now() - started : Infinity);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await probe;
  return { text, slowestHealth };
}

describe('pathological regular expressions', () => {
  it('on a 100 KB body: the probe decides as upstream, and /-/healthy answers within a second meanwhile', async () => {
    const { text, slowestHealth } = await probeWhileAskingHealth('body', `http://127.0.0.1:${(web.address() as AddressInfo).port}/`);
    expect(text).toMatch(/^probe_success 1$/m);
    expect(text).toMatch(/^probe_failed_due_to_regex 0$/m);
    expect(slowestHealth).toBeLessThan(1000);
  });

  it('on a 100 KB line of a tcp dialogue: /-/healthy answers within a second while it runs', async () => {
    const { text, slowestHealth } = await probeWhileAskingHealth('line', `127.0.0.1:${(tcp.address() as AddressInfo).port}`);
    expect(text).toMatch(/^probe_success 0$/m);
    expect(slowestHealth).toBeLessThan(1000);
  });
});
