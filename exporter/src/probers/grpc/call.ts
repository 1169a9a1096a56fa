/**
 * One unary gRPC call over an HTTP/2 session the probe opened (gRPC over HTTP/2, as the gRPC project
 * specifies it): the request as one length-prefixed message, the answer read to the end of the stream,
 * and the outcome as a gRPC status code computed the way grpc-go, upstream's client, computes it (its
 * tables for HTTP statuses and HTTP/2 error codes), so probe_grpc_status_code means the same.
 */
import { constants as http2Constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import type { Resources } from '../shared/resources';

/** gRPC status codes by number, named as in logs. */
export const GRPC_CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

type CodeName = (typeof GRPC_CODE_NAMES)[number];
const code = (name: CodeName): number => GRPC_CODE_NAMES.indexOf(name);

export const GRPC_OK = code('OK');
export const GRPC_DEADLINE_EXCEEDED = code('DEADLINE_EXCEEDED');
export const GRPC_UNAVAILABLE = code('UNAVAILABLE');
export const GRPC_INTERNAL = code('INTERNAL');
export const GRPC_CANCELLED = code('CANCELLED');

/** A call that did not end in OK, with its gRPC status code and what went wrong. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: number,
    details: string,
  ) {
    super(details);
    this.name = 'GrpcCallError';
  }
}

/** grpc-go's default limit on a received message (4 MiB): a larger answer is RESOURCE_EXHAUSTED. */
const MAX_RECEIVED_MESSAGE_BYTES = 4 << 20;

/** An HTTP status other than 200 as grpc-go reads it (its HTTPStatusConvTab); any other is UNKNOWN. */
const HTTP_STATUS_CODES: Readonly<Record<number, CodeName>> = {
  400: 'INTERNAL',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'UNIMPLEMENTED',
  429: 'UNAVAILABLE',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'UNAVAILABLE',
};

/** An HTTP/2 RST_STREAM error code as grpc-go reads it (its http2ErrConvTab); any other is INTERNAL. */
const RESET_CODES: Readonly<Record<number, CodeName>> = {
  [http2Constants.NGHTTP2_FLOW_CONTROL_ERROR]: 'RESOURCE_EXHAUSTED',
  [http2Constants.NGHTTP2_REFUSED_STREAM]: 'UNAVAILABLE',
  [http2Constants.NGHTTP2_CANCEL]: 'CANCELLED',
  [http2Constants.NGHTTP2_ENHANCE_YOUR_CALM]: 'RESOURCE_EXHAUSTED',
  [http2Constants.NGHTTP2_INADEQUATE_SECURITY]: 'PERMISSION_DENIED',
};

/** A message as gRPC frames it: a compression flag (0: none), the length as 4 bytes, the bytes. */
function framed(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** The one message of a unary answer; anything else is a protocol error (INTERNAL), as for grpc-go. */
function onlyMessage(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcCallError(code('INTERNAL'), body.length === 0 ? 'the server sent no response message' : 'the response message is cut short');
  if (body[0] !== 0) throw new GrpcCallError(code('INTERNAL'), 'the response message is compressed, which the call did not ask for');
  const length = body.readUInt32BE(1);
  if (length > MAX_RECEIVED_MESSAGE_BYTES) throw new GrpcCallError(code('RESOURCE_EXHAUSTED'), `response message larger than ${MAX_RECEIVED_MESSAGE_BYTES} bytes`);
  if (body.length < 5 + length) throw new GrpcCallError(code('INTERNAL'), 'the response message is cut short');
  if (body.length > 5 + length) throw new GrpcCallError(code('INTERNAL'), 'more than one response message for a unary call');
  return body.subarray(5);
}

function headerText(headers: IncomingHttpHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/** grpc-message is percent-encoded on the wire. */
function statusMessage(headers: IncomingHttpHeaders): string {
  const text = headerText(headers, 'grpc-message') ?? '';
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What the stream brought: the response head, its trailers, the body, how it ended. */
interface Received {
  head?: IncomingHttpHeaders;
  trailers?: IncomingHttpHeaders;
  readonly body: Buffer[];
  bodyLength: number;
  /** Set when the session failed or the server sent GOAWAY: the connection is gone, not just the call. */
  connectionLost?: string;
  rstCode: number;
}

/** The call's outcome from what arrived, in the order grpc-go looks at it. */
function outcome(received: Received): Buffer {
  const { head, trailers } = received;
  const status = headerText(trailers, 'grpc-status') ?? headerText(head, 'grpc-status');
  if (head === undefined || (status === undefined && trailers === undefined)) {
    if (received.connectionLost !== undefined) throw new GrpcCallError(code('UNAVAILABLE'), received.connectionLost);
    if (head !== undefined && Number(head[':status']) !== 200) throw httpStatusError(head);
    const reset = received.rstCode;
    if (reset !== http2Constants.NGHTTP2_NO_ERROR) throw new GrpcCallError(code(RESET_CODES[reset] ?? 'INTERNAL'), `stream reset by the server with HTTP/2 error code ${reset}`);
    throw new GrpcCallError(code('INTERNAL'), head === undefined ? 'the stream ended before the response headers' : 'the server closed the stream without sending trailers');
  }
  if (Number(head[':status']) !== 200) throw httpStatusError(head);
  if (!/^application\/grpc(\+|;|$)/.test(headerText(head, 'content-type') ?? ''))
    throw new GrpcCallError(code('INTERNAL'), `unexpected content-type ${JSON.stringify(headerText(head, 'content-type') ?? '')}`);
  if (status === undefined || !/^\d+$/.test(status)) throw new GrpcCallError(code('INTERNAL'), `malformed grpc-status ${JSON.stringify(status ?? '')}`);
  const statusCode = Number(status);
  if (statusCode !== GRPC_OK) throw new GrpcCallError(statusCode, statusMessage(trailers ?? head));
  return onlyMessage(Buffer.concat(received.body));
}

function httpStatusError(head: IncomingHttpHeaders): GrpcCallError {
  const status = Number(head[':status']);
  return new GrpcCallError(code(HTTP_STATUS_CODES[status] ?? 'UNKNOWN'), `unexpected HTTP status code received from server: ${status}`);
}

export interface UnaryCall {
  readonly scheme: 'http' | 'https';
  /** :authority, the name the server sees. */
  readonly authority: string;
  readonly path: string;
  readonly message: Buffer;
}

/**
 * Makes `call` on `session`; resolves with the response message, or rejects with a GrpcCallError whose
 * code is the call's gRPC status. The stream is owned by `resources`; the caller bounds the wait.
 */
export function unaryCall(session: ClientHttp2Session, call: UnaryCall, resources: Resources): Promise<Buffer> {
  const received: Received = { body: [], bodyLength: 0, rstCode: http2Constants.NGHTTP2_NO_ERROR };
  const onSessionLost = (reason: string) => (): void => {
    received.connectionLost ??= reason;
  };
  session.once('error', (error: Error) => onSessionLost(`connection error: ${error.message}`)());
  session.once('goaway', onSessionLost('the server sent GOAWAY'));
  session.once('close', onSessionLost('the connection closed'));
  const stream = resources.own(
    session.request({
      [http2Constants.HTTP2_HEADER_METHOD]: 'POST',
      [http2Constants.HTTP2_HEADER_SCHEME]: call.scheme,
      [http2Constants.HTTP2_HEADER_PATH]: call.path,
      [http2Constants.HTTP2_HEADER_AUTHORITY]: call.authority,
      'content-type': 'application/grpc',
      te: 'trailers',
    }),
  );
  return new Promise<Buffer>((resolve, reject) => {
    stream.once('response', (head) => {
      received.head = head;
    });
    stream.once('trailers', (trailers) => {
      received.trailers = trailers;
    });
    stream.on('data', (chunk: Buffer) => {
      received.bodyLength += chunk.length;
      // A message past the limit is refused without buffering more of it.
      if (received.bodyLength > MAX_RECEIVED_MESSAGE_BYTES + 5) {
        stream.close(http2Constants.NGHTTP2_CANCEL);
        reject(new GrpcCallError(code('RESOURCE_EXHAUSTED'), `response message larger than ${MAX_RECEIVED_MESSAGE_BYTES} bytes`));
        return;
      }
      received.body.push(chunk);
    });
    // 'close' comes last, after an error too; everything the stream brought is known by then.
    stream.once('close', () => {
      if (session.destroyed) onSessionLost('the connection closed')();
      received.rstCode = stream.rstCode ?? http2Constants.NGHTTP2_NO_ERROR;
      try {
        resolve(outcome(received));
      } catch (error) {
        reject(error as Error);
      }
    });
    stream.end(framed(call.message));
  });
}
