import { EventEmitter } from 'node:events';
import { createSocket } from 'node:dgram';
import { Resources } from '../../../src/probers/shared/resources';
import { quietProbeLog } from '../../support/probe-run';

class FakeSocket extends EventEmitter {
  destroyed = 0;
  constructor(private readonly onDestroy: () => void = () => undefined) {
    super();
  }
  destroy(): void {
    this.destroyed += 1;
    this.onDestroy();
  }
}

describe('probe resources', () => {
  it('destroys everything owned, once', () => {
    const resources = new Resources(quietProbeLog());
    const sockets = [resources.own(new FakeSocket()), resources.own(new FakeSocket())];
    resources.destroyAll();
    resources.destroyAll();
    expect(sockets.map((socket) => socket.destroyed)).toEqual([1, 1]);
  });

  it('destroys what it owned last first, so a TLS socket goes before the TCP socket under it', () => {
    const order: string[] = [];
    const resources = new Resources(quietProbeLog());
    for (const name of ['tcp', 'tls', 'starttls']) resources.own(new FakeSocket(() => order.push(name)));
    resources.destroyAll();
    expect(order).toEqual(['starttls', 'tls', 'tcp']);
  });

  it('keeps an error no phase waits for from becoming an uncaught exception, and logs it', () => {
    const log = quietProbeLog();
    const socket = new Resources(log).own(new FakeSocket());
    expect(() => socket.emit('error', new Error('read ECONNRESET'))).not.toThrow();
    expect(log.text()).toContain('read ECONNRESET');
  });

  it('owns the emitters an owned emitter hands out (a response, a pushed stream) before other listeners see them', () => {
    const resources = new Resources(quietProbeLog());
    const request = resources.own(new FakeSocket());
    const response = new FakeSocket();
    let errorListenersSeenByTheProbe = -1;
    request.on('response', (handedOut: FakeSocket) => {
      errorListenersSeenByTheProbe = handedOut.listenerCount('error');
    });
    request.emit('response', response);
    expect(errorListenersSeenByTheProbe).toBe(1);
    expect(() => response.emit('error', new Error('aborted'))).not.toThrow();
    resources.destroyAll();
    expect(response.destroyed).toBe(1);
  });

  it('closes a UDP socket, and one closed already is no error', () => {
    const resources = new Resources(quietProbeLog());
    const udp = resources.own(createSocket('udp4'));
    const second = resources.own(createSocket('udp4'));
    second.close();
    expect(() => resources.destroyAll()).not.toThrow();
    // Closed by destroyAll: closing it again is refused.
    expect(() => udp.close()).toThrow(/not running/i);
  });
});
