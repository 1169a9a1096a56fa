/**
 * 4,000 failing probes of each prober against our exporter as a process (closed ports, servers that reset
 * or stall, a refused TLS handshake): its resident memory stays within 20 MB of where it stood after a warm-up,
 * and its open descriptors come back to where they were. A leak of 5 KB a probe (the gRPC prober's used to be
 * 25-35 KB) would show as 20 MB here; a socket kept per probe, as 4,000 descriptors. Settled RSS moved by at
 * most 6 MB from the start over 10,000 probes of each prober in four CI runs, so 20 MB leaves room for noise;
 * the suite ran 10,000 a prober (50 MB) until CI's time budget asked for the same sensitivity in 40 % of the probes.
 *
 * @ci-seconds 75
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { stringify } from 'yaml';
import { freePort, startExporter, type RunningExporter } from '../../loopback/reference-exporter';
import { descriptorsOf, getText, residentMegabytes, sendProbes } from '../support/probe-load';

const PROBES = 4_000;
const CONCURRENCY = 50;
const RSS_ALLOWANCE_MB = 20;

describe('4,000 failing probes of each prober', () => {
  let exporter: RunningExporter;
  let resetting: Server;
  let stalling: Server;
  const held = new Set<Socket>();
  let closedPort: number;

  beforeAll(async () => {
    resetting = createServer((socket) => socket.resetAndDestroy()).listen(0, '127.0.0.1');
    // Accepts and never answers: each probe waits for its (short) deadline, then must let go.
    stalling = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
      socket.resume();
      socket.on('close', () => held.delete(socket));
    }).listen(0, '127.0.0.1');
    await Promise.all([once(resetting, 'listening'), once(stalling, 'listening')]);
    closedPort = await freePort();
    const module = (prober: string, timeout: string, section: Record<string, unknown> = {}) => ({ prober, timeout, [prober]: { preferred_ip_protocol: 'ip4', ...section } });
    exporter = await startExporter(
      'ours',
      stringify({
        modules: {
          http: module('http', '2s'),
          https: module('http', '2s'),
          http_stalled: module('http', '100ms'),
          tcp: module('tcp', '2s'),
          tls: module('tcp', '2s', { tls: true }),
          dns_udp: module('dns', '2s', { query_name: 'probe.test' }),
          dns_tcp: module('dns', '2s', { query_name: 'probe.test', transport_protocol: 'tcp' }),
          grpc: module('grpc', '2s'),
          grpc_tls: module('grpc', '2s', { tls: true }),
          icmp: module('icmp', '100ms'),
        },
      }),
    );
  });

  afterAll(async () => {
    await exporter?.stop();
    for (const socket of held) socket.destroy();
    resetting?.close();
    stalling?.close();
  });

  /** The V8 heap in use, from the exporter's own metrics: what a leak would grow, beside RSS. */
  const heapUsedMegabytes = async (): Promise<string> => {
    const text = await getText(`${exporter.baseUrl}/metrics`);
    return (Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1]) / 2 ** 20).toFixed(0);
  };
  /** A second without load: what V8 gives back when the load stops is not held, so it is not counted. */
  const quiet = (): Promise<void> => new Promise((settle) => setTimeout(settle, 1000));
  /**
   * RSS after a second without load, or up to five when it is above `limit`: garbage of the last batch
   * (V8's heap in use swings by 60 MB under this load) goes once V8 collects it when idle, a leak stays.
   */
  const settledRss = async (limit: number): Promise<number> => {
    await quiet();
    for (let tries = 0; tries < 40 && residentMegabytes(exporter.pid) >= limit; tries += 1) await new Promise((settle) => setTimeout(settle, 100));
    return residentMegabytes(exporter.pid);
  };
  const port = (server: Server): number => (server.address() as AddressInfo).port;
  const cases = (): Array<[string, string]> => [
    ['http', `http://127.0.0.1:${closedPort}/`],
    ['https', `https://127.0.0.1:${port(resetting)}/`],
    ['http_stalled', `http://127.0.0.1:${port(stalling)}/`],
    ['tcp', `127.0.0.1:${closedPort}`],
    ['tls', `127.0.0.1:${port(resetting)}`],
    ['dns_udp', `127.0.0.1:${closedPort}`],
    ['dns_tcp', `127.0.0.1:${port(resetting)}`],
    ['grpc', `127.0.0.1:${closedPort}`],
    ['grpc_tls', `127.0.0.1:${port(resetting)}`],
    // Fails without ping sockets or CAP_NET_RAW, else succeeds; either way it opens and closes a socket.
    ['icmp', '127.0.0.1'],
  ];

  it(`keep resident memory within ${RSS_ALLOWANCE_MB} MB and leave no descriptor behind`, async () => {
    const paths = cases().map(([module, target]) => `/probe?${new URLSearchParams({ module, target })}`);
    // A warm-up of every prober first: code compiled, lazily loaded modules in place, and V8's young
    // generation grown to what this load keeps (up to 3 x 16 MB semi-spaces, held as long as the load lasts).
    await sendProbes(exporter.baseUrl, paths, 400 * paths.length, CONCURRENCY);
    await quiet();
    const startRss = residentMegabytes(exporter.pid);
    const startDescriptors = descriptorsOf(exporter.pid);
    const report: string[] = [];
    let highestRss = startRss;
    for (const [index, [module]] of cases().entries()) {
      const statuses = await sendProbes(exporter.baseUrl, [paths[index]], PROBES, CONCURRENCY);
      expect([module, [...statuses]]).toEqual([module, [[200, PROBES]]]);
      const rss = await settledRss(startRss + RSS_ALLOWANCE_MB);
      highestRss = Math.max(highestRss, rss);
      report.push(`${module}: ${rss.toFixed(0)} MB, heap ${await heapUsedMegabytes()} MB, ${descriptorsOf(exporter.pid)} descriptors`);
    }
    let descriptors = descriptorsOf(exporter.pid);
    for (let tries = 0; tries < 40 && descriptors > startDescriptors; tries += 1) {
      await new Promise((settle) => setTimeout(settle, 50));
      descriptors = descriptorsOf(exporter.pid);
    }
    const endRss = residentMegabytes(exporter.pid);
    process.stdout.write(
      `resources: start ${startRss.toFixed(0)} MB, ${startDescriptors} descriptors; after each ${PROBES.toLocaleString('en')}: ${report.join('; ')}; end ${endRss.toFixed(0)} MB, ${descriptors} descriptors\n`,
    );
    expect(highestRss - startRss).toBeLessThan(RSS_ALLOWANCE_MB);
    expect(endRss - startRss).toBeLessThan(RSS_ALLOWANCE_MB);
    expect(descriptors).toBeLessThanOrEqual(startDescriptors);
    expect(held.size).toBe(0);
    expect((await fetch(`${exporter.baseUrl}/-/healthy`)).ok).toBe(true);
  }, 600_000);
});
