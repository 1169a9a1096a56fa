/**
 * The probers' one dialer against loopback servers: TCP from a chosen source address, TLS at once or over
 * a connection already open, deadlines naming the step they cut, and nothing left open afterwards. Node 20
 * crashes (SIGSEGV) when the TCP socket under a live TLS socket is destroyed before it; the resources go
 * last-added-first so this cannot happen.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { TLSSocket } from 'node:tls';
import { Resources } from '../../../src/probers/shared/resources';
import { quietProbeLog } from '../../support/probe-run';
import { DeadlineExceeded, deadlineIn } from '../../../src/probers/shared/deadline';
import { connectTcp, dial, secureSocket } from '../../../src/probers/shared/dial';
import { handlesLeftAfter, openHandles } from '../../../../test/support/open-handles';
import { startTcpTestServer, type TcpTestServer } from '../../../loopback/tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';
import { compileTlsConfig, tlsConfigSchema } from '../../../src/probers/shared/tls-config';
import { tlsConnectionOptions, tlsConnectionState } from '../../../src/probers/shared/tls';

describe("the probers' dialer", () => {
  let fixtures: TlsFixtures;
  let tlsServer: TcpTestServer;
  let silentServer: TcpTestServer;

  beforeAll(async () => {
    fixtures = makeTlsFixtures();
    tlsServer = await startTcpTestServer({ cert: fixtures.serverCert, key: fixtures.serverKey, tls: true });
    silentServer = await startTcpTestServer({ silent: true });
  });
  afterAll(async () => {
    await tlsServer.close();
    await silentServer.close();
    fixtures.cleanup();
  });

  it('destroys a TLS connection and the TCP socket under it, outermost first, leaving nothing open', async () => {
    const before = openHandles();
    for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
      const resources = new Resources(quietProbeLog());
      const deadline = deadlineIn(2000);
      const socket = await dial(deadline, { address: '127.0.0.1', port: tlsServer.port, family: 4 }, { ca: fixtures.ca, servername: 'localhost', maxVersion: version }, resources);
      expect((socket as TLSSocket).getProtocol()).toBe(version);
      resources.destroyAll();
      deadline.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let tries = 0; tries < 50 && tlsServer.openConnections() > 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(tlsServer.openConnections()).toBe(0);
    expect(await handlesLeftAfter(before)).toEqual([]);
  });

  it('connects from the source address it is given', async () => {
    const resources = new Resources(quietProbeLog());
    const deadline = deadlineIn(2000);
    try {
      const socket = await connectTcp(deadline, { address: '127.0.0.1', port: silentServer.port, source: '127.0.0.2' }, resources);
      expect(socket.localAddress).toBe('127.0.0.2');
      for (let tries = 0; tries < 50 && !silentServer.remoteAddresses.includes('127.0.0.2'); tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(silentServer.remoteAddresses).toContain('127.0.0.2');
    } finally {
      resources.destroyAll();
      deadline.cancel();
    }
  });

  it('rejects a refused connection with the socket error', async () => {
    const closed: Server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const resources = new Resources(quietProbeLog());
    const deadline = deadlineIn(2000);
    await expect(connectTcp(deadline, { address: '127.0.0.1', port }, resources)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    resources.destroyAll();
    deadline.cancel();
  });

  it('handshakes TLS over a connection already open, and names the step when the deadline cuts it', async () => {
    const before = openHandles();
    const resources = new Resources(quietProbeLog());
    const deadline = deadlineIn(300);
    const plain = await connectTcp(deadline, { address: '127.0.0.1', port: silentServer.port }, resources);
    // The silent server never answers the ClientHello, as a server that did not understand STARTTLS would.
    const handshake = secureSocket(deadline, 'starttls', plain, { ca: fixtures.ca, servername: 'localhost' }, resources);
    await expect(handshake).rejects.toThrow(DeadlineExceeded);
    // The server never answers: only the deadline could end the handshake, and the error names it and the step.
    await expect(handshake).rejects.toThrow('deadline exceeded during starttls');
    resources.destroyAll();
    deadline.cancel();
    expect(await handlesLeftAfter(before)).toEqual([]);
  });

  it("checks the host name from the certificates the metrics read, without Node's detailed read of the whole chain", async () => {
    const detailedRead = jest.spyOn(TLSSocket.prototype, 'getPeerCertificate');
    try {
      for (const serverName of ['localhost', 'other.example']) {
        const resources = new Resources(quietProbeLog());
        const deadline = deadlineIn(2000);
        try {
          const options = await tlsConnectionOptions(compileTlsConfig(tlsConfigSchema.parse({ ca_file: fixtures.caFile, server_name: serverName })), 'localhost');
          const handshake = dial(deadline, { address: '127.0.0.1', port: tlsServer.port, family: 4 }, options, resources);
          if (serverName === 'other.example') {
            await expect(handshake).rejects.toThrow(/other\.example/);
            continue;
          }
          const socket = (await handshake) as TLSSocket;
          expect(socket.authorized).toBe(true);
          expect(tlsConnectionState(socket).sent.map((certificate) => certificate.subject)).toEqual(['O=probekit tests\nCN=localhost']);
        } finally {
          resources.destroyAll();
          deadline.cancel();
        }
      }
      expect(detailedRead).not.toHaveBeenCalled();
    } finally {
      detailedRead.mockRestore();
    }
  });

  it('refuses a server certificate it cannot verify', async () => {
    const resources = new Resources(quietProbeLog());
    const deadline = deadlineIn(2000);
    const plain = await connectTcp(deadline, { address: '127.0.0.1', port: tlsServer.port }, resources);
    await expect(secureSocket(deadline, 'tls', plain, { servername: 'localhost' }, resources)).rejects.toThrow(/self.signed|unable to (get|verify)/i);
    resources.destroyAll();
    deadline.cancel();
  });
});
