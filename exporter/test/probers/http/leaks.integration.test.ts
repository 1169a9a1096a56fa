/**
 * Probes that fail must leave nothing behind: 10,000 probes of a server that resets every connection, and
 * probes cut by their deadline, end with the process's open descriptors and active handles where they began.
 *
 * @ci-seconds 20
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connectionsOnPort, openDescriptors, settledAt } from '../../../../test/support/open-handles';
import { runProbe } from '../../support/probe-run';

const activeSockets = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;

async function inBatches(total: number, concurrency: number, probe: () => Promise<boolean>): Promise<number> {
  let failures = 0;
  for (let done = 0; done < total; done += concurrency) {
    const results = await Promise.all(Array.from({ length: Math.min(concurrency, total - done) }, probe));
    failures += results.filter((success) => !success).length;
  }
  return failures;
}

const MODULE = 'prober: http\nhttp:\n  preferred_ip_protocol: ip4';

describe('no descriptor or handle left behind', () => {
  let resetting: Server;
  let stalled: Server;
  const held = new Set<Socket>();

  beforeAll(async () => {
    resetting = createServer((socket) => socket.resetAndDestroy()).listen(0, '127.0.0.1');
    stalled = createServer((socket) => {
      held.add(socket);
      // Reading is how the server notices our side closing.
      socket.resume();
      socket.on('close', () => held.delete(socket));
    }).listen(0, '127.0.0.1');
    await Promise.all([once(resetting, 'listening'), once(stalled, 'listening')]);
  });

  afterAll(() => {
    resetting.close();
    stalled.close();
  });

  it('the connection count sees a connection that is held open', async () => {
    const port = (stalled.address() as AddressInfo).port;
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    for (let tries = 0; tries < 40 && held.size === 0; tries += 1) await new Promise((done) => setTimeout(done, 50));
    // Both ends live in this process: our client and the server's accepted socket.
    expect(connectionsOnPort(port)).toBe(2);
    client.destroy();
    expect(await settledAt(0, () => connectionsOnPort(port))).toBe(0);
  });

  it('10,000 probes of a resetting server', async () => {
    const port = (resetting.address() as AddressInfo).port;
    const target = `http://127.0.0.1:${port}/`;
    await runProbe(MODULE, target);
    const descriptors = openDescriptors();
    const sockets = activeSockets();
    const failures = await inBatches(10_000, 50, async () => (await runProbe(MODULE, target)).success);
    expect(failures).toBe(10_000);
    expect(await settledAt(0, () => connectionsOnPort(port))).toBe(0);
    // Fewer is fine: an earlier test file's sockets in this worker may still have been closing at the start.
    expect(await settledAt(descriptors)).toBeLessThanOrEqual(descriptors);
    expect(await settledAt(sockets, activeSockets)).toBeLessThanOrEqual(sockets);
  }, 120_000);

  it('probes cut by their deadline while the server holds the connection', async () => {
    const port = (stalled.address() as AddressInfo).port;
    const target = `http://127.0.0.1:${port}/`;
    const descriptors = openDescriptors();
    const failures = await inBatches(200, 50, async () => (await runProbe(MODULE, target, { timeoutMs: 50 })).success);
    expect(failures).toBe(200);
    // Our side closed every connection; the server saw them all close.
    for (let tries = 0; tries < 40 && held.size > 0; tries += 1) await new Promise((done) => setTimeout(done, 50));
    expect(held.size).toBe(0);
    expect(await settledAt(0, () => connectionsOnPort(port))).toBe(0);
    expect(await settledAt(descriptors)).toBeLessThanOrEqual(descriptors);
  }, 60_000);
});
