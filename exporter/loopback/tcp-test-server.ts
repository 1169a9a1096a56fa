/**
 * A line-based TCP server for tests and the benchmark, on loopback, plain or behind TLS, speaking a small
 * SMTP-like dialogue:
 *   - on connect it sends its banner (`220 probe.test ESMTP ready id=abc123` unless told otherwise);
 *   - `STARTTLS` is answered `220 ready` and the connection upgrades to TLS (when it has a certificate);
 *   - `QUIT` closes; any other line is echoed back as `250 <line>` (`250-secure` first once upgraded).
 * With `silent` it accepts and never sends a byte. Remote addresses and received lines are recorded. With
 * `path` it listens on a unix socket there instead (the unix prober's server), its port then 0.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TLSSocket, createServer as createTlsServer } from 'node:tls';

export const BANNER = '220 probe.test ESMTP ready id=abc123';

export interface TcpTestServerOptions {
  readonly host?: string;
  /** Certificate and key: with `tls`, the whole connection is TLS; without, they serve STARTTLS. */
  readonly cert?: string;
  readonly key?: string;
  readonly tls?: boolean;
  readonly banner?: string | Buffer;
  readonly silent?: boolean;
  /** Listen on a unix socket at this path instead of a TCP port. */
  readonly path?: string;
}

export interface TcpTestServer {
  readonly port: number;
  readonly remoteAddresses: string[];
  readonly lines: string[];
  /** Connections still open on the server side. */
  openConnections(): number;
  /** TCP connections accepted so far, TLS handshakes that failed included. */
  acceptedConnections(): number;
  close(): Promise<void>;
}

export async function startTcpTestServer(options: TcpTestServerOptions = {}): Promise<TcpTestServer> {
  const remoteAddresses: string[] = [];
  const lines: string[] = [];
  const sockets = new Set<Socket>();

  const converse = (socket: Socket, secured: boolean): void => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('latin1');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        if (line === 'QUIT') {
          socket.end('221 bye\r\n');
        } else if (line === 'STARTTLS' && options.cert && !secured) {
          socket.off('data', onData);
          socket.write('220 ready\r\n', () => {
            const upgraded = new TLSSocket(socket, { isServer: true, cert: options.cert, key: options.key });
            upgraded.on('error', () => socket.destroy());
            upgraded.write('250-secure\r\n');
            converse(upgraded, true);
          });
          return;
        } else {
          socket.write(`250 ${line}\r\n`);
        }
      }
    };
    socket.on('data', onData);
  };

  const onConnection = (socket: Socket): void => {
    sockets.add(socket);
    remoteAddresses.push(socket.remoteAddress ?? '');
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // Silent, but reading: unread data would hold back the end of stream and the socket's close.
    if (options.silent) {
      socket.resume();
      return;
    }
    socket.write(typeof options.banner === 'object' ? options.banner : `${options.banner ?? BANNER}\r\n`);
    converse(socket, options.tls === true);
  };

  const server: Server = options.tls ? createTlsServer({ cert: options.cert, key: options.key }, onConnection) : createServer(onConnection);
  // The TLS server tracks the TCP sockets under its TLS ones too, so open connections count both ways.
  if (options.tls)
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  let accepted = 0;
  server.on('connection', () => (accepted += 1));
  await new Promise<void>((resolve) => (options.path === undefined ? server.listen(0, options.host ?? '127.0.0.1', resolve) : server.listen(options.path, resolve)));
  return {
    port: options.path === undefined ? (server.address() as AddressInfo).port : 0,
    remoteAddresses,
    lines,
    openConnections: () => sockets.size,
    acceptedConnections: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
