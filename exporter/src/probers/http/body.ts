/**
 * The body of the final response, read as upstream reads it: decompressed as the module's compression
 * says, cut at body_size_limit (or, kept for checks without one, at a cap), kept in memory only when a check
 * needs it.
 */
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { beforeDeadline } from '../shared/deadline';
import type { Resources } from '../shared/resources';
import type { ProbeDeadline } from '../types';
import type { HttpSettings } from './definition';
import type { IncomingResponse } from './exchange';

/** `deflate` bodies come zlib-wrapped from most servers and raw from some; accept both. */
function inflateAny(resources: Resources): Transform {
  let inner: Transform | undefined;
  return resources.own(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (!inner) {
          const zlibWrapped = chunk.length >= 2 && (chunk[0] & 0x0f) === 8 && ((chunk[0] << 8) | chunk[1]) % 31 === 0;
          inner = resources.own(zlibWrapped ? createInflate() : createInflateRaw());
          inner.on('data', (data: Buffer) => this.push(data));
          inner.on('error', (error) => this.destroy(error));
        }
        inner.write(chunk, done);
      },
      flush(done) {
        if (!inner) return done();
        inner.once('end', () => done());
        inner.end();
      },
    }),
  );
}

function decompressor(compression: string, resources: Resources): Transform | undefined {
  switch (compression) {
    case 'gzip':
      return resources.own(createGunzip());
    case 'br':
      return resources.own(createBrotliDecompress());
    case 'deflate':
      return inflateAny(resources);
    default:
      return undefined;
  }
}

/**
 * The most body the probe keeps for its regexps and CEL checks when the module does not set body_size_limit:
 * a target decides how much it sends, and a small gzip can expand to gigabytes. 4 MiB is far more than a
 * page or a JSON document a check is written for; body_size_limit sets another (0: none). A body no check
 * reads is counted as it passes and never kept, so it needs no cap.
 */
export const CHECKED_BODY_LIMIT = 4 * 1024 * 1024;

/** The limit a body is read with: body_size_limit as written, else the cap on a body kept for checks. */
export function bodyLimit(http: HttpSettings, keep: boolean): number {
  return http.bodySizeLimit ?? (keep ? CHECKED_BODY_LIMIT : 0);
}

/** A body past its limit, decompressed or not: the response is not accepted, as upstream's MaxBytesReader fails it. */
export class BodyTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly written: boolean,
  ) {
    super(`response body larger than ${written ? `body_size_limit (${limit} bytes)` : `${limit} bytes, the cap on a checked body`}`);
  }

  /** What the failure says, naming the field and what to do about it. */
  get detail(): string {
    if (this.written) return `the body is longer than body_size_limit (${this.limit} bytes)`;
    return `the body is longer than ${this.limit} bytes, the most a body checked by regexps or CEL may have when body_size_limit is not set; set body_size_limit to allow more (0: no limit)`;
  }
}

/** A body that ended before the length its response declared (the session went away under an HTTP/2 stream). */
export class BodyCutShort extends Error {
  /** As a stream closed early says it: the probe fails as for a connection lost. */
  readonly code = 'ERR_STREAM_PREMATURE_CLOSE';
  constructor(received: number, declared: number) {
    super(`the body ended after ${received} of the ${declared} bytes its content-length declares`);
  }
}

/** Counts the bytes that pass, as they came over the connection (before decompression). */
function wireCounter(resources: Resources, count: (bytes: number) => void): Transform {
  return resources.own(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        count(chunk.length);
        done(null, chunk);
      },
    }),
  );
}

/** What reading a body gave. */
export interface BodyRead {
  /** Bytes after decompression, up to the limit: upstream's byte counter, for probe_http_uncompressed_body_length. */
  readonly length: number;
  /** The body, when it was kept and read whole. */
  readonly body?: Buffer;
  /** Why the read stopped before the end (BodyTooLarge, BodyCutShort, the deadline, a reset, a corrupt stream). */
  readonly problem?: unknown;
}

/**
 * Reads the body to its end: decompressed as configured, cut at its limit (bodyLimit) counted after
 * decompression, kept in memory only when a check needs it. The stages run as one pipeline, so an error in any
 * of them (a reset, a corrupt gzip stream) ends the read; a body shorter than the length the response must have
 * (IncomingResponse.wholeLength) is an error too. Whichever stage reports the end first, a body past its limit
 * is said so: the limit is recorded where it is crossed, not read back from the error that surfaced.
 */
export async function readBody(response: IncomingResponse, http: HttpSettings, keep: boolean, deadline: ProbeDeadline, resources: Resources): Promise<BodyRead> {
  const limit = bodyLimit(http, keep);
  let length = 0;
  let wire = 0;
  let tooLarge: BodyTooLarge | undefined;
  const chunks: Buffer[] = [];
  /** Takes a decompressed chunk; false once the body is past its limit. */
  const take = (chunk: Buffer): boolean => {
    if (limit > 0 && length + chunk.length > limit) {
      length = limit;
      tooLarge ??= new BodyTooLarge(limit, http.bodySizeLimit !== undefined);
      return false;
    }
    length += chunk.length;
    if (keep) chunks.push(chunk);
    return true;
  };
  try {
    const decoder = decompressor(http.compression, resources);
    if (decoder) {
      const consume = async (source: AsyncIterable<Buffer>): Promise<void> => {
        for await (const chunk of source) if (!take(chunk)) throw tooLarge;
      };
      await beforeDeadline(
        deadline,
        'transfer',
        pipeline(
          response.body,
          wireCounter(resources, (bytes) => (wire += bytes)),
          decoder,
          consume,
        ),
      );
    } else {
      const onChunk = (chunk: Buffer): void => {
        wire += chunk.length;
        if (!take(chunk)) response.body.destroy(tooLarge);
      };
      await beforeDeadline(deadline, 'transfer', readToEnd(response.body, onChunk));
    }
    if (wire < response.wholeLength) throw new BodyCutShort(wire, response.wholeLength);
  } catch (error) {
    return { length, problem: tooLarge ?? error };
  }
  return { length, body: keep ? Buffer.concat(chunks) : undefined };
}

/**
 * Reads `body` to its end, each chunk to `onChunk`: what pipeline(body, consume) does for a body that needs no
 * decompressing, at a fraction of its CPU (pipeline builds an AbortController and an async iterator per read,
 * and aborting the controller at the end builds a DOMException with its stack: a few percent of a probe).
 * A body that closes before its end is an error, as pipeline reports it.
 */
function readToEnd(body: Readable, onChunk: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const onEnd = (): void => {
      body.off('close', onClose);
      resolve();
    };
    const onClose = (): void => {
      body.off('end', onEnd);
      reject(body.errored ?? Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    body.on('data', onChunk);
    body.once('end', onEnd);
    body.once('error', reject);
    body.once('close', onClose);
  });
}
