/**
 * The body of the final response, read as upstream reads it: decompressed as the module's compression
 * says, cut at body_size_limit, kept in memory only when a body regexp needs it.
 */
import { Transform, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { beforeDeadline } from '../shared/deadline';
import type { ProbeDeadline } from '../types';
import type { HttpSettings } from './definition';
import type { IncomingResponse } from './exchange';

/** `deflate` bodies come zlib-wrapped from most servers and raw from some; accept both. */
function inflateAny(): Transform {
  let inner: Transform | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!inner) {
        const zlibWrapped = chunk.length >= 2 && (chunk[0] & 0x0f) === 8 && ((chunk[0] << 8) | chunk[1]) % 31 === 0;
        inner = zlibWrapped ? createInflate() : createInflateRaw();
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
  });
}

function decompressor(compression: string): Transform | undefined {
  switch (compression) {
    case 'gzip':
      return createGunzip();
    case 'br':
      return createBrotliDecompress();
    case 'deflate':
      return inflateAny();
    default:
      return undefined;
  }
}

class BodyTooLarge extends Error {
  constructor(limit: number) {
    super(`response body larger than body_size_limit (${limit} bytes)`);
  }
}

/**
 * Reads the body to its end: decompressed as configured, cut at the size limit (an error, as upstream's
 * MaxBytesReader), kept in memory only when a body regexp needs it. Resolves to the byte count and text.
 */
export async function readBody(response: IncomingResponse, http: HttpSettings, keep: boolean, deadline: ProbeDeadline): Promise<{ length: number; text: string }> {
  const limit = http.bodySizeLimit;
  const decoder = decompressor(http.compression);
  const source: Readable = decoder ? response.body.pipe(decoder) : response.body;
  if (decoder) response.body.once('error', (error) => decoder.destroy(error));
  let length = 0;
  const chunks: Buffer[] = [];
  const reading = (async () => {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (limit > 0 && length > limit) throw new BodyTooLarge(limit);
      if (keep) chunks.push(chunk);
    }
  })();
  try {
    await beforeDeadline(deadline, 'transfer', reading);
  } finally {
    decoder?.destroy();
  }
  return { length, text: keep ? Buffer.concat(chunks).toString('utf8') : '' };
}
