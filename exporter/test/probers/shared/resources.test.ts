import { EventEmitter } from 'node:events';
import { Resources } from '../../../src/probers/shared/resources';

class FakeSocket extends EventEmitter {
  destroyed = 0;
  destroy(): void {
    this.destroyed += 1;
  }
}

describe('probe resources', () => {
  it('destroys everything added, once', () => {
    const resources = new Resources();
    const sockets = [resources.add(new FakeSocket()), resources.add(new FakeSocket())];
    resources.destroyAll();
    resources.destroyAll();
    expect(sockets.map((socket) => socket.destroyed)).toEqual([1, 1]);
  });

  it('destroys what it added last first, so a TLS socket goes before the TCP socket under it', () => {
    const order: string[] = [];
    const resources = new Resources();
    for (const name of ['tcp', 'tls', 'starttls']) resources.add({ destroy: () => order.push(name) });
    resources.destroyAll();
    expect(order).toEqual(['starttls', 'tls', 'tcp']);
  });

  it('keeps a late error event from becoming an uncaught exception', () => {
    const socket = new Resources().add(new FakeSocket());
    expect(() => socket.emit('error', new Error('ECONNRESET'))).not.toThrow();
  });
});
