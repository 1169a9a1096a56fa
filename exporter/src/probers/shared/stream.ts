/**
 * TCP connections for probers that speak over a stream (tcp, dns over tcp and over TLS): connect from an
 * optional source address, with TLS when asked, within the probe's deadline; nothing stays open when
 * connecting fails or the deadline passes.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { ProbeDeadline } from '../types';
import { beforeDeadline } from './deadline';

export interface Endpoint {
  readonly address: string;
  readonly port: number;
  readonly family: 4 | 6;
  /** source_ip_address of the module, when set. */
  readonly source?: string;
}

/** A connected stream: `socket` is what to talk over (TLS or plain), `tcp` the connection under it. */
export interface OpenStream {
  readonly socket: Socket;
  readonly tcp: Socket;
}

/** Resolves once `socket` emits `event`; rejects on its first error. */
function settled(socket: Socket, event: 'connect' | 'secureConnect'): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once(event, () => resolve());
  });
}

/** Wraps `socket` in TLS and waits for the handshake; the TLS socket is destroyed when that fails. */
export async function secureStream(deadline: ProbeDeadline, phase: string, socket: Socket, options: ConnectionOptions): Promise<TLSSocket> {
  const secured = connectTls({ ...options, socket });
  try {
    await beforeDeadline(deadline, phase, settled(secured, 'secureConnect'));
    return secured;
  } catch (error) {
    secured.destroy();
    throw error;
  }
}

/** Connects to `endpoint`, then handshakes TLS with `tls` when given. */
export async function openStream(deadline: ProbeDeadline, endpoint: Endpoint, tls?: ConnectionOptions): Promise<OpenStream> {
  const tcp = connectTcp({ host: endpoint.address, port: endpoint.port, localAddress: endpoint.source, family: endpoint.family });
  try {
    await beforeDeadline(deadline, 'connect', settled(tcp, 'connect'));
    const socket = tls ? await secureStream(deadline, 'tls', tcp, tls) : tcp;
    return { socket, tcp };
  } catch (error) {
    tcp.destroy();
    throw error;
  }
}
