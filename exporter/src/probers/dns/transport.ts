/**
 * One DNS message out and its answer back: over UDP (waiting for the answer with the query's id), or over
 * TCP or TLS (length-prefixed), timing upstream's two phases, connect and request.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { Socket } from 'node:net';
import { beforeDeadline } from '../shared/deadline';
import { dial, type Endpoint } from '../shared/dial';
import type { Resources } from '../shared/resources';
import { tlsConnectionOptions } from '../shared/tls';
import type { TlsSettings } from '../shared/tls-config';
import type { ProbeDeadline } from '../types';

const seconds = (since: number): number => (performance.now() - since) / 1000;

/**
 * Sends `query` over UDP and waits for the response with the same id; answers with another id are
 * ignored, as they may be late answers to an earlier query. A truncated answer is a response like any other.
 */
export async function exchangeUdp(query: Buffer, id: number, endpoint: Endpoint, deadline: ProbeDeadline, phases: PhaseTimes, resources: Resources): Promise<Buffer> {
  const socket: UdpSocket = resources.own(createSocket(endpoint.family === 4 ? 'udp4' : 'udp6'));
  const started = performance.now();
  await beforeDeadline(
    deadline,
    'connect',
    new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ address: endpoint.source, port: 0 }, () => socket.connect(endpoint.port, endpoint.address, () => resolve()));
    }),
  );
  phases.connect = seconds(started);
  const requestStarted = performance.now();
  const response = await beforeDeadline(
    deadline,
    'request',
    new Promise<Buffer>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('message', (message) => {
        if (message.length >= 2 && message.readUInt16BE(0) === id) resolve(message);
      });
      socket.send(query);
    }),
  );
  phases.request = seconds(requestStarted);
  return response;
}

/** Reads one length-prefixed DNS message (RFC 1035 4.2.2) from a stream. */
function readFramedMessage(stream: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        resolve(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
      }
    });
    stream.on('end', () => reject(new Error('connection closed before a whole response arrived')));
    stream.on('error', reject);
  });
}

/**
 * Sends `query` over TCP, or TLS on top of it; `connect` covers both the TCP and the TLS handshake.
 * No TLS metrics: upstream's dns prober reports none, and its metric names are kept.
 */
export async function exchangeStream(
  query: Buffer,
  endpoint: Endpoint,
  tls: { serverName: string; config: TlsSettings } | undefined,
  deadline: ProbeDeadline,
  phases: PhaseTimes,
  resources: Resources,
): Promise<Buffer> {
  const tlsOptions = tls ? await tlsConnectionOptions(tls.config, tls.serverName) : undefined;
  // Connect time starts after the TLS options: reading their files is not the network's time.
  const started = performance.now();
  const socket = await dial(deadline, endpoint, tlsOptions, resources);
  phases.connect = seconds(started);
  const requestStarted = performance.now();
  const length = Buffer.alloc(2);
  length.writeUInt16BE(query.length);
  const response = beforeDeadline(deadline, 'request', readFramedMessage(socket));
  socket.write(Buffer.concat([length, query]));
  const message = await response;
  phases.request = seconds(requestStarted);
  return message;
}

/** Seconds spent in upstream's phases: connect (socket set-up, TLS included) and request. */
export interface PhaseTimes {
  connect: number;
  request: number;
}
