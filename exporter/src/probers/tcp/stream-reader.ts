/** Reading a tcp probe's connection as query_response steps need it: by lines, or by exact byte counts. */
import type { Socket } from 'node:net';

/**
 * Go's bufio.Scanner holds at most 64 KiB: a line whose newline does not fit in it fails at once ("token too
 * long"), as it does here, rather than buffering without end or waiting for the deadline.
 */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Lines and exact byte counts from a stream, read as they arrive. Lines end at `\n`, a `\r` before it is
 * dropped, and the unterminated rest counts as a last line at end of stream, as Go's line scanner does.
 */
export class StreamReader {
  private buffered = Buffer.alloc(0);
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly stream: Socket) {
    stream.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.notify();
    });
    stream.on('end', () => {
      this.ended = true;
      this.notify();
    });
    stream.on('error', (error) => {
      this.failure = error;
      this.notify();
    });
  }

  /** Stops delivering data, so that a TLS upgrade can take the socket over. */
  detach(): void {
    this.stream.removeAllListeners('data');
    this.stream.removeAllListeners('end');
    this.stream.pause();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async more(): Promise<void> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    if (this.failure) throw this.failure;
  }

  /** The next line, or undefined at end of stream. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const newline = this.buffered.subarray(0, MAX_LINE_BYTES).indexOf(0x0a);
      if (newline < 0 && this.buffered.length >= MAX_LINE_BYTES) throw new Error(`bufio.Scanner: token too long (a line of ${MAX_LINE_BYTES} bytes or more)`);
      if (newline >= 0) {
        const line = this.buffered.subarray(0, newline);
        this.buffered = this.buffered.subarray(newline + 1);
        return (line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line).toString('utf8');
      }
      if (this.ended) {
        if (this.buffered.length === 0) return undefined;
        const rest = this.buffered;
        this.buffered = Buffer.alloc(0);
        return rest.toString('utf8');
      }
      await this.more();
    }
  }

  /** The next `count` bytes, or fewer when the stream ends first. */
  async bytes(count: number): Promise<Buffer> {
    while (this.buffered.length < count && !this.ended) await this.more();
    const taken = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(taken.length);
    return taken;
  }
}
