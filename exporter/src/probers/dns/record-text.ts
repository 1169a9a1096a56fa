/**
 * Resource records in the presentation form blackbox_exporter matches its validate_*_rrs regexps
 * against (the String() form of the Go DNS library it uses): `name.<TAB>ttl<TAB>CLASS<TAB>TYPE<TAB>rdata`.
 * A user's regexps written for upstream must match the same text here, so the form is kept exactly,
 * including fully qualified names and quoted TXT strings.
 */
import * as dnsPacket from 'dns-packet';

/** A record as dns-packet decodes it; `data` varies by type, so it is read defensively below. */
export interface DecodedRecord {
  readonly name: string;
  readonly type: string;
  readonly class?: string;
  readonly ttl?: number;
  readonly data?: unknown;
}

/** `example.com` -> `example.com.`; the root stays `.`. */
export function fullyQualified(name: string): string {
  if (name === '' || name === '.') return '.';
  return name.endsWith('.') ? name : `${name}.`;
}

/** A character-string as the Go library prints it: quoted, `"` and `\` escaped, unprintables as \DDD. */
function quotedString(bytes: Buffer): string {
  let text = '"';
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) text += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte > 0x7e) text += `\\${byte.toString().padStart(3, '0')}`;
    else text += String.fromCharCode(byte);
  }
  return `${text}"`;
}

function asBuffer(value: unknown): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(String(value));
}

/** Types whose rdata is one domain name. */
const NAME_TYPES = new Set(['NS', 'CNAME', 'PTR', 'DNAME']);

function rdataText(record: DecodedRecord): string {
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return String(record.data);
    case 'MX': {
      const mx = record.data as dnsPacket.MxData;
      return `${mx.preference ?? 0} ${fullyQualified(mx.exchange)}`;
    }
    case 'TXT': {
      const parts = Array.isArray(record.data) ? record.data : [record.data];
      return parts.map((part) => quotedString(asBuffer(part))).join(' ');
    }
    case 'SOA': {
      const soa = record.data as dnsPacket.SoaData;
      return [fullyQualified(soa.mname), fullyQualified(soa.rname), soa.serial ?? 0, soa.refresh ?? 0, soa.retry ?? 0, soa.expire ?? 0, soa.minimum ?? 0].join(' ');
    }
    case 'SRV': {
      const srv = record.data as dnsPacket.SrvData;
      return `${srv.priority ?? 0} ${srv.weight ?? 0} ${srv.port} ${fullyQualified(srv.target)}`;
    }
    case 'CAA': {
      const caa = record.data as dnsPacket.CaaData;
      return `${caa.flags ?? 0} ${caa.tag} ${quotedString(Buffer.from(caa.value))}`;
    }
    case 'HINFO': {
      const hinfo = record.data as dnsPacket.HInfoData;
      return `${quotedString(Buffer.from(hinfo.cpu))} ${quotedString(Buffer.from(hinfo.os))}`;
    }
    default:
      if (NAME_TYPES.has(record.type)) return fullyQualified(String(record.data));
      return unknownRdata(record);
  }
}

/** dns-packet's per-type encoders, which its typings leave out. */
interface RecordCodecs {
  record(type: string): { encode(data: unknown): Buffer };
}

/** RFC 3597's generic form, which the Go library also prints for types it has no text form for. */
function unknownRdata(record: DecodedRecord): string {
  const data = record.data;
  let bytes: Buffer;
  if (Buffer.isBuffer(data)) {
    bytes = data;
  } else {
    // dns-packet decoded a type we do not print field by field: encode it back to its wire rdata.
    const encoded = (dnsPacket as unknown as RecordCodecs).record(record.type).encode(data);
    bytes = encoded.subarray(2);
  }
  return bytes.length === 0 ? '\\# 0' : `\\# ${bytes.length} ${bytes.toString('hex')}`;
}

/** dns-packet names unknown types `UNKNOWN_<n>` and classes `UNKNOWN_<n>`; the Go form is TYPE<n>/CLASS<n>. */
function typeText(type: string): string {
  return type.startsWith('UNKNOWN_') ? `TYPE${type.slice('UNKNOWN_'.length)}` : type;
}

function classText(klass: string | undefined): string {
  if (klass === undefined) return 'IN';
  return klass.startsWith('UNKNOWN_') ? `CLASS${klass.slice('UNKNOWN_'.length)}` : klass;
}

/** The record as upstream prints it, e.g. `example.com.\t3600\tIN\tA\t192.0.2.1`. */
export function recordText(record: DecodedRecord): string {
  return [fullyQualified(record.name), record.ttl ?? 0, classText(record.class), typeText(record.type), rdataText(record)].join('\t');
}
