/**
 * New connections taken from the listening socket all at once, not one per turn of the event loop.
 *
 * libuv (Node 20's 1.46) accepts one connection each time the event loop finds the listening socket ready, and
 * a turn of an exporter busy with hundreds of probes takes tens of milliseconds. A burst of new connections
 * (Prometheus restarting, a scrape pool reconnecting, wrk's 256 connections in the bench) then waited in the
 * kernel's accept queue for seconds: in the bench, at 256 connections, the queue held 186 connections at the
 * start of a 5 s round and drained at about 45 a second, so wrk saw a p99 over a second and scrapes timed out,
 * while the requests of connections already accepted were answered within 200 ms. Go's server, the reference's,
 * accepts in a loop of its own.
 *
 * So at each connection Node accepts, the exporter takes the rest of the queue itself (through the addon) and
 * hands each connection to the server as Node would (the server's documented 'connection' event): HTTP and
 * HTTPS alike, with the server's timeouts, keep-alive and connection tracking. Without the addon nothing
 * changes.
 */
import { closeSync } from 'node:fs';
import { Socket, type Server } from 'node:net';
import { acceptPending } from '../probers/icmp/socket';

/** Taken at most at once: a bound on one turn's work, well above any burst one turn can serve. */
export const ACCEPTED_AT_ONCE = 256;

export type AcceptPending = (fd: number, max: number) => number[] | undefined;

/**
 * The descriptor of the server's listening socket. Node exposes it only on the handle (`_handle.fd`, which
 * its cluster and systemd support also rely on); read at every use, never kept, since a closed server's
 * number may be reused for another file.
 */
function listeningFd(server: Server): number | undefined {
  const handle = (server as unknown as { _handle?: { fd?: unknown } | null })._handle;
  const fd = handle?.fd;
  return server.listening && typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * What Node's own accepting gives each connection of a server: net.Server's options, kept on the instance (an
 * HTTP server's sockets allow half-open and set no delay, an HTTPS server's do not allow half-open), so that a
 * connection handed over behaves as one Node accepted.
 */
interface ConnectionOptions {
  readonly allowHalfOpen?: boolean;
  readonly pauseOnConnect?: boolean;
  readonly noDelay?: boolean;
  readonly keepAlive?: boolean;
  /** In seconds: net.Server keeps it so, for its handles; a socket's setKeepAlive takes milliseconds. */
  readonly keepAliveInitialDelay?: number;
}

/** Makes `server` take its whole accept queue whenever Node accepts a connection. Call it before `listen`. */
export function acceptWholeQueue(server: Server, accept: AcceptPending = acceptPending): void {
  let taking = false;
  server.prependListener('connection', () => {
    // The connections handed over below come through this event too.
    if (taking) return;
    const fd = listeningFd(server);
    if (fd === undefined) return;
    taking = true;
    try {
      for (const connection of accept(fd, ACCEPTED_AT_ONCE) ?? []) handOver(server, connection);
    } finally {
      taking = false;
    }
  });
}

/** Wraps `fd` as Node's accepting wraps a connection (lib/net.js, onconnection) and gives it to the server. */
function handOver(server: Server, fd: number): void {
  const options = server as unknown as ConnectionOptions;
  let socket: Socket;
  try {
    socket = new Socket({ fd, allowHalfOpen: options.allowHalfOpen === true, pauseOnCreate: options.pauseOnConnect === true, readable: true, writable: true } as ConstructorParameters<
      typeof Socket
    >[0]);
  } catch {
    // Not a stream Node can wrap (it cannot happen for a descriptor accept gave): not leaked at least.
    closeSync(fd);
    return;
  }
  if (options.noDelay) socket.setNoDelay(true);
  if (options.keepAlive) socket.setKeepAlive(true, (options.keepAliveInitialDelay ?? 0) * 1000);
  server.emit('connection', socket);
}
