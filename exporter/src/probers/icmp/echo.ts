/** ICMP echo messages: the request the prober sends and how it recognises the reply. */
import type { IpFamily } from '../shared/ip-protocol';

/** The payload upstream sends, so that a capture of either exporter looks the same. */
const PAYLOAD_TEXT = 'Prometheus Blackbox Exporter';

const ECHO_REQUEST: Record<IpFamily, number> = { 4: 8, 6: 128 };
const ECHO_REPLY: Record<IpFamily, number> = { 4: 0, 6: 129 };

/** The RFC 1071 Internet checksum. ICMPv6 needs none from us: the kernel computes it over the pseudo-header. */
function internetChecksum(bytes: Buffer): number {
  let sum = 0;
  for (let index = 0; index < bytes.length; index += 2) {
    sum += (bytes[index] << 8) + (index + 1 < bytes.length ? bytes[index + 1] : 0);
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

export function echoPayload(payloadSize: number | undefined): Buffer {
  if (!payloadSize) return Buffer.from(PAYLOAD_TEXT);
  const payload = Buffer.alloc(payloadSize);
  payload.write(PAYLOAD_TEXT.slice(0, payloadSize));
  return payload;
}

export function echoRequest(family: IpFamily, identifier: number, sequence: number, payload: Buffer): Buffer {
  const message = Buffer.alloc(8 + payload.length);
  message[0] = ECHO_REQUEST[family];
  message.writeUInt16BE(identifier, 4);
  message.writeUInt16BE(sequence, 6);
  payload.copy(message, 8);
  if (family === 4) message.writeUInt16BE(internetChecksum(message), 2);
  return message;
}

/** What identifies the reply to one echo request. */
export interface ExpectedReply {
  readonly family: IpFamily;
  readonly from: string;
  /** Undefined for a ping socket: the kernel rewrites the identifier and delivers only its own replies. */
  readonly identifier: number | undefined;
  readonly sequence: number;
  readonly payload: Buffer;
}

/** Whether `message` from `from` is the echo reply awaited (a raw socket sees every ICMP message of the host). */
export function isExpectedReply(message: Buffer, from: string, expected: ExpectedReply): boolean {
  if (message.length < 8 || message[0] !== ECHO_REPLY[expected.family] || from !== expected.from) return false;
  if (expected.identifier !== undefined && message.readUInt16BE(4) !== expected.identifier) return false;
  return message.readUInt16BE(6) === expected.sequence && message.subarray(8).equals(expected.payload);
}
