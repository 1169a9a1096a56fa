/**
 * Gives the memory the exporter freed back to the kernel. V8 returns its own heap pages once its memory
 * reducer runs (about 8 s after allocations stop), but what went through the C heap (V8's compiler zones,
 * OpenSSL's buffers and certificates, Node's native objects) stays mapped by glibc when freed, unless it
 * happens to lie at the very top of the heap: after start-up that was 4.6 MiB of a 58 MiB idle RSS. So the
 * exporter asks glibc to release its free pages (malloc_trim, through the addon) once things settle after
 * start-up and each reload, and every minute for what bursts of probes left; a call with little to release
 * costs a fraction of a millisecond.
 */
import { releaseFreeMemory } from '../probers/icmp/socket';

/** Past V8's memory reducer (8 s after allocations stop), so that what V8 frees as it shrinks is released too. */
export const SETTLED_AFTER_MS = 10_000;
export const EVERY_MS = 60_000;

export class FreeMemoryRelease {
  private settleTimer: NodeJS.Timeout | undefined;
  private periodic: NodeJS.Timeout | undefined;

  constructor(private readonly release: () => boolean = releaseFreeMemory) {}

  /** Releases once things have settled after a load (start-up, reload): later calls before then move it later. */
  afterSettling(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.release(), SETTLED_AFTER_MS);
    // Never what keeps the process running.
    this.settleTimer.unref();
  }

  /** Releases every minute until stopped; the exporter starts it when it starts serving. */
  start(): void {
    if (this.periodic) return;
    this.periodic = setInterval(() => this.release(), EVERY_MS);
    this.periodic.unref();
  }

  stop(): void {
    clearTimeout(this.settleTimer);
    clearInterval(this.periodic);
    this.settleTimer = undefined;
    this.periodic = undefined;
  }
}
