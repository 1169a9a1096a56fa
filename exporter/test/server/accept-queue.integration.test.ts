/**
 * A burst of new connections is taken from the kernel's accept queue in one turn of the event loop, not one
 * per turn as libuv takes them; the connections handed over serve HTTP and HTTPS as Node's own do. The queue's
 * length is read from the kernel (/proc/net/tcp, the rx_queue of the listening socket), after one turn.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, get as getHttps } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { acceptWholeQueue } from '../../src/server/accept-queue';
import { acceptPending } from '../../src/probers/icmp/socket';
import { makeTlsFixtures } from '../../loopback/tls-fixtures';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BURST = 40;

/** Connections waiting in the accept queue of the IPv4 socket listening on `port`, from the kernel. */
function waitingToBeAccepted(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // st 0A is LISTEN; tx_queue:rx_queue, and a listening socket's rx_queue is its accept queue.
    if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A') return parseInt(fields[4].split(':')[1], 16);
  }
  throw new Error(`no socket listens on 127.0.0.1:${port}`);
}

const oneTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Opens `count` connections at once and waits until the kernel has them all (accepted or queued). */
async function burstOfConnections(port: number, count: number): Promise<Socket[]> {
  const sockets = Array.from({ length: count }, () => connect(port, '127.0.0.1'));
  await Promise.all(sockets.map((socket) => new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject))));
  return sockets;
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function closeAll(server: Server, sockets: readonly Socket[]): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

const answered = (response: IncomingMessage): Promise<number> =>
  new Promise((resolve) => {
    response.resume();
    response.on('end', () => resolve(response.statusCode ?? 0));
  });

describe('acceptWholeQueue', () => {
  it('premise: without it, a burst still waits in the queue after a turn of the event loop', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    const port = await listening(server);
    // The server accepts nothing while the loop is held, so the burst queues; then one turn.
    const sockets = await burstOfConnections(port, BURST);
    const waiting = waitingToBeAccepted(port);
    await oneTurn();
    // If Node ever takes the whole queue itself, this fails, and acceptWholeQueue is no longer needed.
    expect(waitingToBeAccepted(port)).toBeGreaterThan(0);
    expect(waiting).toBeGreaterThan(BURST / 2);
    await closeAll(server, sockets);
  });

  it('takes the whole queue in one turn, and the connections handed over serve HTTP', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    acceptWholeQueue(server);
    const port = await listening(server);
    const accepted: Socket[] = [];
    server.on('connection', (socket: Socket) => accepted.push(socket));
    const sockets = await burstOfConnections(port, BURST);
    await oneTurn();
    await oneTurn();
    expect(waitingToBeAccepted(port)).toBe(0);
    expect(accepted).toHaveLength(BURST);
    // Each as Node's own accepting makes them for this server: half-open allowed (an HTTP server's choice), no delay.
    expect(accepted.map((socket) => socket.allowHalfOpen)).toEqual(Array(BURST).fill(true));
    // Each connection of the burst, accepted by Node or handed over, answers a request.
    const statuses = await Promise.all(
      sockets.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let text = '';
            socket.setEncoding('utf8').on('data', (chunk: string) => {
              text += chunk;
              if (text.endsWith('ok')) resolve(text.split('\r\n')[0]);
            });
            socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
          }),
      ),
    );
    expect(statuses).toEqual(Array(BURST).fill('HTTP/1.1 200 OK'));
    await closeAll(server, sockets);
  });

  it('hands connections to an HTTPS server, which makes its TLS handshakes on them', async () => {
    const pki = makeTlsFixtures();
    const server = createHttpsServer({ cert: readFileSync(pki.serverCertFile), key: readFileSync(pki.serverKeyFile) }, (_request, response) => response.end('ok'));
    let handedOver = 0;
    acceptWholeQueue(server, (fd, max) => {
      const taken = acceptPending(fd, max);
      handedOver += taken?.length ?? 0;
      return taken;
    });
    const port = await listening(server);
    // The first request's connection may be accepted by Node; the others of the burst wait in the queue.
    const requests = Array.from(
      { length: 20 },
      () => new Promise<number>((resolve, reject) => getHttps({ host: '127.0.0.1', port, rejectUnauthorized: false, agent: false }, (response) => resolve(answered(response))).on('error', reject)),
    );
    expect(await Promise.all(requests)).toEqual(Array(20).fill(200));
    expect(handedOver).toBeGreaterThan(0);
    await new Promise((resolve) => server.close(resolve));
  });

  it('changes nothing without the addon', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    const accept = jest.fn(() => undefined);
    acceptWholeQueue(server, accept);
    const port = await listening(server);
    const status = await new Promise<number>((resolve) => get({ host: '127.0.0.1', port, agent: false }, (response) => resolve(answered(response))));
    expect(status).toBe(200);
    expect(accept).toHaveBeenCalled();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('the exporter', () => {
  it('takes a burst of connections in one turn and answers on each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-accept-'));
    const configFile = join(dir, 'blackbox.yml');
    writeFileSync(configFile, 'modules:\n  tcp:\n    prober: tcp\n');
    const exporter = new Exporter({ configFile, timeoutOffsetSeconds: 0.5, historyLimit: 3, log: new Logger('error', () => undefined) });
    await exporter.reload();
    const port = await exporter.listen('127.0.0.1', 0);
    const sockets = await burstOfConnections(port, BURST);
    try {
      await oneTurn();
      await oneTurn();
      expect(waitingToBeAccepted(port)).toBe(0);
      const statuses = await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<string>((resolve) => {
              socket.setEncoding('utf8').once('data', (chunk: string) => resolve(chunk.split('\r\n')[0]));
              socket.write('GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n');
            }),
        ),
      );
      expect(statuses).toEqual(Array(BURST).fill('HTTP/1.1 200 OK'));
    } finally {
      for (const socket of sockets) socket.destroy();
      await exporter.close();
    }
  });
});
