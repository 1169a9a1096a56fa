/**
 * A loopback server that misbehaves on purpose, for the tests that show no target can take the exporter
 * down: each connection is handed to a behaviour that may answer garbage, stall, drip, truncate, reset at
 * any phase, or speak correctly. Plain TCP, or TLS (with ALPN, for HTTP/2) where a reset still resets the
 * TCP connection under the TLS session, as a crashing server or a middlebox would.
 */
import { createSocket } from 'node:dgram';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

export interface HostileConnection {
  /** Where to read and write: the TCP socket, or the TLS session over it. */
  readonly stream: Socket;
  /** Resolves with the first bytes the client sent (a request line, a query, a TLS ClientHello's payload). */
  firstData(): Promise<Buffer>;
  /** Sends TCP RST: the abrupt end a crashed server or a reset from the network gives. */
  reset(): void;
  /** Writes `data` one byte every `intervalMs`, then calls `done`. */
  drip(data: Buffer | string, intervalMs: number, done?: () => void): void;
}

export type Behaviour = (connection: HostileConnection) => void;

export interface HostileServerOptions {
  readonly tls?: { readonly cert: string; readonly key: string; readonly alpn?: readonly string[] };
}

export interface HostileServer {
  readonly port: number;
  /** Connections still open on the server side. */
  openConnections(): number;
  close(): Promise<void>;
}

function connection(stream: Socket, raw: Socket): HostileConnection {
  const timers = new Set<NodeJS.Timeout>();
  raw.once('close', () => timers.forEach((timer) => clearInterval(timer)));
  const first = new Promise<Buffer>((resolve) => stream.once('data', resolve));
  return {
    stream,
    firstData: () => first,
    reset: () => {
      if (!raw.destroyed) raw.resetAndDestroy();
    },
    drip: (data, intervalMs, done) => {
      const bytes = Buffer.from(data);
      let sent = 0;
      const timer = setInterval(() => {
        if (stream.destroyed || sent >= bytes.length) {
          clearInterval(timer);
          timers.delete(timer);
          if (!stream.destroyed) done?.();
          return;
        }
        stream.write(bytes.subarray(sent, sent + 1));
        sent += 1;
      }, intervalMs);
      timers.add(timer);
    },
  };
}

/** Starts a server on 127.0.0.1 that hands every connection (after the TLS handshake, with `tls`) to `behaviour`. */
export async function startHostileServer(behaviour: Behaviour, options: HostileServerOptions = {}): Promise<HostileServer> {
  const open = new Set<Socket>();
  const server: Server = createServer((raw) => {
    open.add(raw);
    raw.on('close', () => open.delete(raw));
    // The client resets or goes away whenever it likes; that is no error of the test server's.
    raw.on('error', () => undefined);
    if (!options.tls) return behaviour(connection(raw, raw));
    const secured = new TLSSocket(raw, { isServer: true, cert: options.tls.cert, key: options.tls.key, ALPNProtocols: options.tls.alpn ? [...options.tls.alpn] : undefined });
    secured.on('error', () => raw.destroy());
    secured.once('secure', () => behaviour(connection(secured, raw)));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    openConnections: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a hostile UDP server does with one datagram: answer with any bytes, any number of times, or not at all. */
export type DatagramBehaviour = (query: Buffer, reply: (answer: Buffer) => void) => void;

/** Starts a UDP server on 127.0.0.1 that hands every datagram to `behaviour`. */
export async function startHostileUdpServer(behaviour: DatagramBehaviour): Promise<{ readonly port: number; close(): Promise<void> }> {
  const socket = createSocket('udp4');
  socket.on('message', (query, from) => behaviour(query, (answer) => socket.send(answer, from.port, from.address)));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}
