/** How the grpc prober's channel connects: through the probe's resources, with its TLS options, never after the probe. */
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { CallCredentials, ChannelCredentials } from '@grpc/grpc-js';
import { secureSocket } from '../shared/dial';
import type { Resources } from '../shared/resources';
import type { ProbeDeadline } from '../types';

type SecureConnector = ReturnType<ChannelCredentials['_createSecureConnector']>;

/**
 * Channel credentials that keep hold of every socket the channel opens, so the probe can destroy them
 * when it ends, and that refuse to connect once the probe is over: grpc-js 1.14 lets a subchannel whose
 * handshake failed reconnect after its backoff even when its channel was closed, which would reach the
 * target again about a second after the probe. grpc-js opens the TCP connection itself (it has no seam for
 * a dialer of ours); with TLS options the handshake over it is the probers' own (`secureSocket`, with
 * the options the shared TLS helper built from tls_config), and the TLS socket goes to `onSecure`, as
 * grpc-js tells a client nothing about the TLS session it made. The connector seam is part of grpc-js's typings.
 */
export class ProbeCredentials extends ChannelCredentials {
  private closed = false;

  constructor(
    private readonly deadline: ProbeDeadline,
    private readonly resources: Resources,
    private readonly tls: ConnectionOptions | undefined,
    private readonly onSecure: (socket: TLSSocket) => void = () => undefined,
  ) {
    super();
  }

  /** Ends the probe's use of the channel: no connection is made after this. */
  close(): void {
    this.closed = true;
  }

  _isSecure(): boolean {
    return this.tls !== undefined;
  }

  _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  _createSecureConnector(): SecureConnector {
    const probeOver = (): Error => new Error('the probe is over; no new connection');
    return {
      // grpc-js asks this before it opens the TCP connection, so a closed probe opens none.
      waitForReady: () => (this.closed ? Promise.reject(probeOver()) : Promise.resolve()),
      connect: (socket) => {
        if (this.closed) {
          socket.destroy();
          return Promise.reject(probeOver());
        }
        this.resources.own(socket);
        if (!this.tls) return Promise.resolve({ socket, secure: false });
        return secureSocket(this.deadline, 'tls', socket, { ...this.tls, ALPNProtocols: ['h2'] }, this.resources).then((secured) => {
          this.onSecure(secured);
          return { socket: secured, secure: true };
        });
      },
      getCallCredentials: () => CallCredentials.createEmpty(),
      destroy: () => this.close(),
    };
  }
}
