/**
 * The one dialer of the probers: a TCP connection from an optional source address, a unix socket connection, and TLS over a
 * connection (at once, after a proxy's CONNECT, at a STARTTLS step), each within the probe's deadline.
 * Every socket it opens is owned by the probe's resources from the moment it exists (an error listener at
 * once, destroyed when the probe ends, whatever happened).
 */
import { connect as connectNet, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { ProbeDeadline } from '../types';
import { beforeDeadline, type DeadlinePhase } from './deadline';
import { TlsHandshakeError } from './failure';
import { answerHostNameCheckFromLeaf } from './tls';
import type { Resources } from './resources';

export interface Endpoint {
  /** An IP address the prober resolved, or a host name the socket resolves itself (an HTTP proxy's). */
  readonly address: string;
  readonly port: number;
  /** The family of `address` when the prober resolved it. */
  readonly family?: 4 | 6;
  /** source_ip_address of the module, when set. */
  readonly source?: string;
}

/** Resolves once `socket` emits `event`; rejects on its first error (for TLS, a TlsHandshakeError). */
function settled(socket: Socket, event: 'connect' | 'secureConnect'): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', (error) => reject(event === 'secureConnect' ? new TlsHandshakeError(error) : error));
    socket.once(event, () => resolve());
  });
}

/**
 * Opens a TCP connection to `endpoint`. Nagle's algorithm is off, as Go's dialer leaves it: a probe's small
 * writes (a query line, a DNS message) go out at once rather than after the peer's acknowledgement.
 */
export async function connectTcp(deadline: ProbeDeadline, endpoint: Endpoint, resources: Resources): Promise<Socket> {
  const socket = resources.own(connectNet({ host: endpoint.address, port: endpoint.port, family: endpoint.family, localAddress: endpoint.source, noDelay: true }));
  await beforeDeadline(deadline, 'connect', settled(socket, 'connect'));
  return socket;
}

/** Opens a stream connection to the unix socket at `path` (the unix prober's target). */
export async function connectUnix(deadline: ProbeDeadline, path: string, resources: Resources): Promise<Socket> {
  const socket = resources.own(connectNet({ path }));
  await beforeDeadline(deadline, 'connect', settled(socket, 'connect'));
  return socket;
}

/**
 * Handshakes TLS over `socket` with `options` (from the module's tls_config); `phase` names the step in a
 * deadline error. A certificate that fails verification rejects, unless the options say not to verify.
 */
export async function secureSocket(deadline: ProbeDeadline, phase: DeadlinePhase, socket: Socket, options: ConnectionOptions, resources: Resources): Promise<TLSSocket> {
  const secured = resources.own(connectTls({ ...options, socket }));
  answerHostNameCheckFromLeaf(secured);
  await beforeDeadline(deadline, phase, settled(secured, 'secureConnect'));
  return secured;
}

/** Connects to `endpoint`, then handshakes TLS with `tls` when given; resolves to the socket to talk over. */
export async function dial(deadline: ProbeDeadline, endpoint: Endpoint, tls: ConnectionOptions | undefined, resources: Resources): Promise<Socket> {
  const socket = await connectTcp(deadline, endpoint, resources);
  return tls ? secureSocket(deadline, 'tls', socket, tls, resources) : socket;
}
