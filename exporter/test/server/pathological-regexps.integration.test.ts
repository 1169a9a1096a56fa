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
import { measureEventLoopHold } from '../../loopback/event-loop-hold';

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

/**
 * The probe's answer, whether /-/healthy answered every time it was asked while the probe ran, and how long the
 * event loop (the exporter's: it runs in this thread) was held meanwhile, in this thread's CPU time: the round trips
 * of the requests would count this machine's load and jest's pauses too.
 */
async function probeWhileAskingHealth(module: string, target: string): Promise<{ text: string; healthy: boolean[]; heldCpuMs: number }> {
  const hold = measureEventLoopHold();
  let text: string | undefined;
  const probe = fetch(`${base}/probe?module=${module}&target=${encodeURIComponent(target)}`)
    .then((response) => response.text())
    .then((answer) => {
      text = answer;
    });
  const healthy: boolean[] = [];
  while (text === undefined) {
    const ok = await fetch(`${base}/-/healthy`).then(
      (response) => response.ok,
      () => false,
    );
    healthy.push(ok);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await probe;
  return { text, healthy, heldCpuMs: hold.stop().cpuMs };
}

describe('pathological regular expressions', () => {
  // A backtracking engine holds the loop for minutes on these; RE2 for milliseconds. The bound leaves room for a
  // garbage collection of jest's worker, which runs on this thread too.
  it('on a 100 KB body: the probe decides as upstream, and /-/healthy answers, the loop never held a second meanwhile', async () => {
    const { text, healthy, heldCpuMs } = await probeWhileAskingHealth('body', `http://127.0.0.1:${(web.address() as AddressInfo).port}/`);
    expect(text).toMatch(/^probe_success 1$/m);
    expect(text).toMatch(/^probe_failed_due_to_regex 0$/m);
    expect(healthy.filter((ok) => !ok)).toEqual([]);
    expect(heldCpuMs).toBeLessThan(1000);
  });

  it('on a 100 KB line of a tcp dialogue: /-/healthy answers, the loop never held a second, while it runs', async () => {
    const { text, healthy, heldCpuMs } = await probeWhileAskingHealth('line', `127.0.0.1:${(tcp.address() as AddressInfo).port}`);
    expect(text).toMatch(/^probe_success 0$/m);
    expect(healthy.filter((ok) => !ok)).toEqual([]);
    expect(heldCpuMs).toBeLessThan(1000);
  });
});
