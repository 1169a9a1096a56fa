/**
 * What a probe opened (sockets, sessions, streams), destroyed together when the probe ends or its
 * deadline fires, so that nothing outlives the probe whatever phase it was in.
 */
export class Resources {
  private readonly items = new Set<{ destroy(): void }>();

  /**
   * Adds `item`; errors it emits after its own promise settled (a reset after the response head, say)
   * surface through the body stream, so a listener here keeps them from crashing the exporter.
   */
  add<T extends { destroy(): void; on?(event: 'error', listener: () => void): unknown }>(item: T): T {
    item.on?.('error', () => undefined);
    this.items.add(item);
    return item;
  }

  /**
   * Last added first, as deferred closes run: a TLS socket goes before the TCP socket under it (destroying
   * the TCP socket first, while the TLS layer still works on it, can crash Node 20 outright).
   */
  destroyAll(): void {
    for (const item of [...this.items].reverse()) item.destroy();
    this.items.clear();
  }
}
