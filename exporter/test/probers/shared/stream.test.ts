/**
 * Streams of the tcp and dns probers: a TLS socket over a TCP one, torn down with the probe's resources.
 * Node 20 crashes (SIGSEGV) when the TCP socket under a live TLS socket is destroyed before it; the
 * resources go last-added-first so this cannot happen.
 */
import type { TLSSocket } from 'node:tls';
import { Resources } from '../../../src/probers/shared/resources';
import { deadlineIn } from '../../../src/probers/shared/deadline';
import { openStream } from '../../../src/probers/shared/stream';
import { handlesLeftAfter, openHandles } from '../../../../test/support/open-handles';
import { startTcpTestServer, type TcpTestServer } from '../../../../test/support/tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from '../../../../test/support/tls-fixtures';

describe('probe streams', () => {
  let fixtures: TlsFixtures;
  let server: TcpTestServer;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    server = await startTcpTestServer({ cert: fixtures.serverCert, key: fixtures.serverKey, tls: true });
  });
  afterAll(async () => {
    await server.close();
    fixtures.cleanup();
  });

  it('destroys a TLS stream and the TCP socket under it, outermost first, leaving nothing open', async () => {
    const before = openHandles();
    for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
      const resources = new Resources();
      const deadline = deadlineIn(2000);
      const socket = await openStream(deadline, { address: '127.0.0.1', port: server.port, family: 4 }, { ca: fixtures.ca, servername: 'localhost', maxVersion: version }, resources);
      expect((socket as TLSSocket).getProtocol()).toBe(version);
      resources.destroyAll();
      deadline.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let tries = 0; tries < 50 && server.openConnections() > 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.openConnections()).toBe(0);
    expect(await handlesLeftAfter(before)).toEqual([]);
  });

  it('destroys what it added last first', () => {
    const order: string[] = [];
    const resources = new Resources();
    for (const name of ['tcp', 'tls', 'starttls']) resources.add({ destroy: () => order.push(name) });
    resources.destroyAll();
    expect(order).toEqual(['starttls', 'tls', 'tcp']);
  });
});
