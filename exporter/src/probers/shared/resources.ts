/**
 * What a probe opens that can emit 'error': TCP and TLS sockets, HTTP requests and responses, HTTP/2
 * sessions and streams, UDP sockets, decompression streams. Node ends the process when an emitter emits
 * 'error' with no listener, and a target decides when errors happen (a reset after the response head, a
 * malformed chunk size on a connection it keeps open), so every such emitter is owned by its probe's
 * Resources from the tick it is created: `own` gives it an error listener at once, and takes the emitters
 * it hands out through events (an HTTP response, a pushed HTTP/2 stream) the same way, before any other
 * listener runs. Probe code creates an emitter only as the argument of `own`; a test reads the probers'
 * sources and fails on any other creation (exporter/test/probers/shared/emitters.test.ts).
 *
 * The listener here does not decide the probe: the phase waiting on an emitter sees the error through its
 * own promise and fails the probe with it. An error no phase waits for (the server resets after the whole
 * body arrived) only goes to the probe's debug log, as Go's client drops it. Everything owned is destroyed
 * together when the probe ends or its deadline fires, whatever phase it was in.
 */
import type { ProbeLogger } from '../types';

/** An emitter that can be let go: streams and sockets are destroyed, UDP sockets closed. */
type Releasable = NodeJS.EventEmitter & ({ destroy(): unknown } | { close(): unknown });

/** Events by which an owned emitter hands out another emitter: an HTTP/1 response, an HTTP/2 pushed stream. */
const HANDED_OUT = ['response', 'stream'] as const;

function isReleasable(value: unknown): value is Releasable {
  const candidate = value as Partial<Record<'on' | 'destroy' | 'close', unknown>> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.on === 'function' && (typeof candidate.destroy === 'function' || typeof candidate.close === 'function');
}

function release(item: Releasable): void {
  if ('destroy' in item) item.destroy();
  else {
    try {
      item.close();
    } catch {
      // A UDP socket that is closed already.
    }
  }
}

export class Resources {
  private readonly items = new Set<Releasable>();
  private readonly logError = (error: Error): void => this.logger.debug('Connection error', { err: error.message });
  private readonly ownHandedOut = (value: unknown): void => {
    if (isReleasable(value)) this.own(value);
  };

  constructor(private readonly logger: ProbeLogger) {}

  /** Takes `emitter` into the probe: an error listener now, destroyed when the probe ends. Returns it. */
  own<T extends Releasable>(emitter: T): T {
    emitter.on('error', this.logError);
    for (const event of HANDED_OUT) emitter.prependListener(event, this.ownHandedOut);
    this.items.add(emitter);
    return emitter;
  }

  /**
   * Destroys everything owned, last owned first, as deferred closes run: a TLS socket goes before the TCP
   * socket under it (destroying the TCP socket first, while the TLS layer still works on it, can crash
   * Node 20 outright). The error listeners stay: a destroyed socket may still report its last error.
   */
  destroyAll(): void {
    for (const item of [...this.items].reverse()) release(item);
    this.items.clear();
  }
}
