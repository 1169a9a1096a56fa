/**
 * The standard gRPC health service (grpc.health.v1, health.proto of the gRPC project) as the prober
 * speaks it on the wire: one method, a request with one string field and a response with one enum field,
 * encoded in protocol buffers by hand. Two fields do not need a protobuf library, and nothing is loaded
 * or compiled at run time.
 */

/** The method the prober calls, as the HTTP/2 :path of a gRPC call. */
export const HEALTH_CHECK_PATH = '/grpc.health.v1.Health/Check';

/** HealthCheckResponse.ServingStatus, in number order; probe_grpc_healthcheck_response has one series each. */
export const SERVING_STATUSES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
export type ServingStatus = (typeof SERVING_STATUSES)[number];

/** Protocol buffers wire types (the low three bits of a field's key). */
const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** HealthCheckRequest{service}: field 1, a string; proto3 leaves an empty string out. */
export function encodeCheckRequest(service: string): Buffer {
  if (service === '') return Buffer.alloc(0);
  const text = Buffer.from(service, 'utf8');
  return Buffer.concat([Buffer.from([(1 << 3) | LENGTH_DELIMITED]), varint(text.length), text]);
}

class Reader {
  private offset = 0;
  constructor(private readonly bytes: Buffer) {}

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (this.offset >= this.bytes.length) throw new Error('message ends inside a varint');
      const byte = this.bytes[this.offset++];
      // Past 2^53 the value is no longer exact, which only matters for a field the prober skips.
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('varint longer than 10 bytes');
  }

  skip(count: number): void {
    if (this.offset + count > this.bytes.length) throw new Error('message ends inside a field');
    this.offset += count;
  }
}

/**
 * The serving status (a number) in an encoded HealthCheckResponse; fields other than `status` are skipped,
 * as any protobuf decoder does, and a missing status is 0 (UNKNOWN), as proto3 reads it. Throws on bytes
 * that are not a protobuf message.
 */
export function decodeCheckResponse(bytes: Buffer): number {
  const reader = new Reader(bytes);
  let status = 0;
  while (!reader.done) {
    const key = reader.varint();
    const [field, wireType] = [Math.floor(key / 8), key % 8];
    if (field === 0) throw new Error('field number 0');
    if (wireType === VARINT) {
      const value = reader.varint();
      // An enum is an int32: the low 32 bits, signed.
      if (field === 1) status = Number(BigInt.asIntN(32, BigInt(value)));
    } else if (wireType === FIXED64) reader.skip(8);
    else if (wireType === LENGTH_DELIMITED) reader.skip(reader.varint());
    else if (wireType === FIXED32) reader.skip(4);
    else throw new Error(`wire type ${wireType}`);
  }
  return status;
}

/** The name Go gives a serving status: its enum name, or the number for one health.proto does not list. */
export function servingStatusName(status: number): string {
  return SERVING_STATUSES[status] ?? String(status);
}
