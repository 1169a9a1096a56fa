/**
 * The body of the final response, read as upstream reads it: decompressed as the module's compression
 * says, cut at body_size_limit, kept in memory only when a body regexp needs it.
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

/** A body past body_size_limit: the response is not accepted, as upstream's MaxBytesReader fails it. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`response body larger than body_size_limit (${limit} bytes)`);
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

/**
 * Reads the body to its end: decompressed as configured, cut at the size limit (an error, as upstream's
 * MaxBytesReader), kept in memory only when a body regexp needs it. Resolves to the byte count and text.
 * The stages run as one pipeline, so an error in any of them (a reset, a corrupt gzip stream) ends the read;
 * a body shorter than the length the response must have (IncomingResponse.wholeLength) is an error too.
 */
export async function readBody(response: IncomingResponse, http: HttpSettings, keep: boolean, deadline: ProbeDeadline, resources: Resources): Promise<{ length: number; text: string }> {
  const limit = http.bodySizeLimit;
  let length = 0;
  let wire = 0;
  const chunks: Buffer[] = [];
  const consume = async (source: AsyncIterable<Buffer>): Promise<void> => {
    for await (const chunk of source) {
      length += chunk.length;
      if (limit > 0 && length > limit) throw new BodyTooLarge(limit);
      if (keep) chunks.push(chunk);
    }
  };
  const decoder = decompressor(http.compression, resources);
  if (decoder)
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
  else {
    const onChunk = (chunk: Buffer): void => {
      length += chunk.length;
      wire += chunk.length;
      if (limit > 0 && length > limit) response.body.destroy(new BodyTooLarge(limit));
      else if (keep) chunks.push(chunk);
    };
    await beforeDeadline(deadline, 'transfer', readToEnd(response.body, onChunk));
  }
  if (wire < response.wholeLength) throw new BodyCutShort(wire, response.wholeLength);
  return { length, text: keep ? Buffer.concat(chunks).toString('utf8') : '' };
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
