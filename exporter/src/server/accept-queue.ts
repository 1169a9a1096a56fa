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
 * Makes `server` take its whole accept queue whenever Node accepts a connection. Call it before `listen`.
 * `noDelay` is what Node sets on the connections it accepts for an HTTP server.
 */
export function acceptWholeQueue(server: Server, accept: AcceptPending = acceptPending, noDelay = true): void {
  let taking = false;
  server.prependListener('connection', () => {
    // The connections handed over below come through this event too.
    if (taking) return;
    const fd = listeningFd(server);
    if (fd === undefined) return;
    taking = true;
    try {
      for (const connection of accept(fd, ACCEPTED_AT_ONCE) ?? []) handOver(server, connection, noDelay);
    } finally {
      taking = false;
    }
  });
}

function handOver(server: Server, fd: number, noDelay: boolean): void {
  let socket: Socket;
  try {
    socket = new Socket({ fd, readable: true, writable: true });
  } catch {
    // Not a stream Node can wrap (it cannot happen for a descriptor accept gave): not leaked at least.
    closeSync(fd);
    return;
  }
  socket.setNoDelay(noDelay);
  server.emit('connection', socket);
}
