/**
 * TCP connections for probers that speak over a stream (tcp, dns over tcp and over TLS): connect from an
 * optional source address, with TLS when asked, within the probe's deadline. Every socket opened joins
 * the probe's resources, which the prober destroys when it ends, whatever happened.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { ProbeDeadline } from '../types';
import { beforeDeadline } from './deadline';
import type { Resources } from './resources';

export interface Endpoint {
  readonly address: string;
  readonly port: number;
  readonly family: 4 | 6;
  /** source_ip_address of the module, when set. */
  readonly source?: string;
}

/** Resolves once `socket` emits `event`; rejects on its first error. */
function settled(socket: Socket, event: 'connect' | 'secureConnect'): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once(event, () => resolve());
  });
}

/** Wraps `socket` in TLS and waits for the handshake. */
export async function secureStream(deadline: ProbeDeadline, phase: string, socket: Socket, options: ConnectionOptions, resources: Resources): Promise<TLSSocket> {
  const secured = resources.add(connectTls({ ...options, socket }));
  await beforeDeadline(deadline, phase, settled(secured, 'secureConnect'));
  return secured;
}

/** Connects to `endpoint`, then handshakes TLS with `tls` when given; resolves to the socket to talk over. */
export async function openStream(deadline: ProbeDeadline, endpoint: Endpoint, tls: ConnectionOptions | undefined, resources: Resources): Promise<Socket> {
  const tcp = resources.add(connectTcp({ host: endpoint.address, port: endpoint.port, localAddress: endpoint.source, family: endpoint.family }));
  await beforeDeadline(deadline, 'connect', settled(tcp, 'connect'));
  return tls ? secureStream(deadline, 'tls', tcp, tls, resources) : tcp;
}
