/**
 * Reading a DNS response as strictly as Go's decoder (miekg/dns, upstream's) does: dns-packet reads a
 * record past the end of the message as undefined bytes (an A record of `127.undefined.undefined.undefined`)
 * and reads each record by its type, not by its declared RDLENGTH, so a cut or lying message would count
 * as an answer. The framing is walked first: every name, every fixed field and every RDLENGTH must fit in
 * the message, and each record's data must be as long as dns-packet reads it. A name compression pointer
 * that points forward is refused (dns-packet allows only pointers to earlier names, as RFC 1035 describes
 * them), where Go's decoder follows it: a documented difference.
 */
import * as dnsPacket from 'dns-packet';

/** dns-packet decodes the rcode into a name; its typings do not list the field. */
export type DnsResponse = dnsPacket.DecodedPacket & { rcode?: string };

const HEADER_BYTES = 12;

class CutShort extends Error {
  constructor(what: string) {
    super(`DNS response cut short or malformed: ${what}`);
  }
}

/** The offset after the name at `offset` (labels, ending in a zero byte or a two-byte compression pointer). */
function skipName(bytes: Buffer, offset: number): number {
  let at = offset;
  for (;;) {
    if (at >= bytes.length) throw new CutShort('a name runs past the end');
    const length = bytes[at];
    if (length === 0) return at + 1;
    if ((length & 0xc0) === 0xc0) {
      if (at + 2 > bytes.length) throw new CutShort('a name runs past the end');
      return at + 2;
    }
    if ((length & 0xc0) !== 0) throw new CutShort('a label of an unknown kind');
    at += 1 + length;
  }
}

/** dns-packet's codec of one resource record: it exports it, its typings do not list it. */
const recordCodec = (dnsPacket as unknown as { answer: { decode: ((bytes: Buffer, offset: number) => unknown) & { bytes: number } } }).answer;

/** Offsets of the four section counts in the header: questions, answers, authorities, additionals. */
const COUNT_OFFSETS = [4, 6, 8, 10] as const;

interface Framing {
  /** How many entries of each section the message really holds (fewer than its header says when it ends early). */
  readonly present: readonly number[];
  /** Where each resource record starts (its name) and ends (after the data its RDLENGTH declares). */
  readonly records: ReadonlyArray<{ readonly start: number; readonly end: number }>;
}

/**
 * The message's framing, read as Go's decoder reads it: a message that ends exactly where a question or a
 * record would start holds only what came before (its header counts are taken as lies; 9.9.9.9 answers
 * REFUSED with a bare header, for one), while one that ends inside a question or record is cut short.
 */
function framing(bytes: Buffer): Framing {
  if (bytes.length < HEADER_BYTES) throw new CutShort(`${bytes.length} bytes, fewer than a header`);
  const declared = COUNT_OFFSETS.map((at) => bytes.readUInt16BE(at));
  const present = [0, 0, 0, 0];
  const records: Array<{ start: number; end: number }> = [];
  let offset = HEADER_BYTES;
  for (let index = 0; index < declared[0] && offset < bytes.length; index += 1) {
    offset = skipName(bytes, offset) + 4;
    if (offset > bytes.length) throw new CutShort('a question runs past the end');
    present[0] += 1;
  }
  for (let section = 1; section < 4; section += 1) {
    for (let index = 0; index < declared[section] && offset < bytes.length; index += 1) {
      const start = offset;
      offset = skipName(bytes, offset);
      if (offset + 10 > bytes.length) throw new CutShort('a record header runs past the end');
      const end = offset + 10 + bytes.readUInt16BE(offset + 8);
      if (end > bytes.length) throw new CutShort('a record runs past the end');
      records.push({ start, end });
      present[section] += 1;
      offset = end;
    }
  }
  return { present, records };
}

/** The response in `bytes`; throws when its framing does not hold, as Go's decoder refuses it. */
export function decodeResponse(bytes: Buffer): DnsResponse {
  const { present, records } = framing(bytes);
  // dns-packet trusts the header's counts; give it those of what is really there.
  let message = bytes;
  if (COUNT_OFFSETS.some((at, section) => bytes.readUInt16BE(at) !== present[section])) {
    message = Buffer.from(bytes);
    COUNT_OFFSETS.forEach((at, section) => message.writeUInt16BE(present[section], at));
  }
  try {
    const response: DnsResponse = dnsPacket.decode(message);
    for (const { start, end } of records) {
      recordCodec.decode(message, start);
      if (start + recordCodec.decode.bytes !== end) throw new Error("a record's data is not as long as its RDLENGTH says");
    }
    return response;
  } catch (error) {
    if (error instanceof CutShort) throw error;
    throw new CutShort((error as Error).message);
  }
}
