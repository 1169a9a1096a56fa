/**
 * The dns prober: one query to the target server over UDP, TCP or DNS over TLS; success when a response
 * arrives with a valid rcode and its answer, authority and additional records pass the module's
 * validators, matched against the records' text form as upstream prints them.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { DNS_RCODES, type DnsSection, type DnsRrValidator } from './definition';
import { compileGoRegexp } from '../../config/regexp';
import { gauge } from '../../metrics';
import { DNS_PHASES, PROBE_DNS_ADDITIONAL_RRS, PROBE_DNS_ANSWER_RRS, PROBE_DNS_AUTHORITY_RRS, PROBE_DNS_DURATION, PROBE_DNS_QUERY_SUCCEEDED, PROBE_DNS_SERIAL } from './metrics';
import { resolveTargetAddress } from '../shared/address';
import { portNumber, splitHostPort } from '../shared/host-port';
import { beforeDeadline } from '../shared/deadline';
import { recordText, type DecodedRecord } from './record-text';
import { Resources } from '../shared/resources';
import { dial, type Endpoint } from '../shared/dial';
import { tlsConnectionOptions } from '../shared/tls';
import type { ProbeDeadline, ProbeLogger, Prober } from '../types';

const DEFAULT_PORT = { plain: 53, tls: 853 } as const;

const seconds = (since: number): number => (performance.now() - since) / 1000;

/**
 * Sends `query` over UDP and waits for the response with the same id; answers with another id are
 * ignored, as they may be late answers to an earlier query. A truncated answer is a response like any other.
 */
async function exchangeUdp(query: Buffer, id: number, endpoint: Endpoint, deadline: ProbeDeadline, phases: PhaseTimes): Promise<Buffer> {
  const socket: UdpSocket = createSocket(endpoint.family === 4 ? 'udp4' : 'udp6');
  try {
    const started = performance.now();
    await beforeDeadline(
      deadline,
      'connect',
      new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.bind({ address: endpoint.source, port: 0 }, () => socket.connect(endpoint.port, endpoint.address, () => resolve()));
      }),
    );
    phases.connect = seconds(started);
    const requestStarted = performance.now();
    const response = await beforeDeadline(
      deadline,
      'request',
      new Promise<Buffer>((resolve, reject) => {
        socket.on('error', reject);
        socket.on('message', (message) => {
          if (message.length >= 2 && message.readUInt16BE(0) === id) resolve(message);
        });
        socket.send(query);
      }),
    );
    phases.request = seconds(requestStarted);
    return response;
  } finally {
    socket.close();
  }
}

/** Reads one length-prefixed DNS message (RFC 1035 4.2.2) from a stream. */
function readFramedMessage(stream: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        resolve(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
      }
    });
    stream.on('end', () => reject(new Error('connection closed before a whole response arrived')));
    stream.on('error', reject);
  });
}

/**
 * Sends `query` over TCP, or TLS on top of it; `connect` covers both the TCP and the TLS handshake.
 * No TLS metrics: upstream's dns prober reports none, and its metric names are kept.
 */
async function exchangeStream(
  query: Buffer,
  endpoint: Endpoint,
  tls: { serverName: string; settings: DnsSection } | undefined,
  deadline: ProbeDeadline,
  phases: PhaseTimes,
): Promise<Buffer> {
  const tlsOptions = tls ? await tlsConnectionOptions(tls.settings.tls_config, tls.serverName) : undefined;
  // Connect time starts after the TLS options: reading their files is not the network's time.
  const started = performance.now();
  const resources = new Resources();
  try {
    const socket = await dial(deadline, endpoint, tlsOptions, resources);
    phases.connect = seconds(started);
    const requestStarted = performance.now();
    const length = Buffer.alloc(2);
    length.writeUInt16BE(query.length);
    const response = beforeDeadline(deadline, 'request', readFramedMessage(socket));
    socket.write(Buffer.concat([length, query]));
    const message = await response;
    phases.request = seconds(requestStarted);
    return message;
  } finally {
    resources.destroyAll();
  }
}

/** Seconds spent in upstream's phases: connect (socket set-up, TLS included) and request. */
interface PhaseTimes {
  connect: number;
  request: number;
}

/**
 * Checks records against one validator, as upstream does: fail_if_matches_regexp fails on any record
 * matching; fail_if_not_matches_regexp on any record not matching; fail_if_none_matches_regexp when no
 * record matches. fail_if_all_match_regexp fails when some record does NOT match, despite its name: that
 * is what blackbox_exporter has always done, and configs written for it rely on it (see README).
 * fail_if_not_matches_regexp and fail_if_none_matches_regexp also fail when there are no records.
 */
export function validRecords(records: readonly DecodedRecord[], validator: DnsRrValidator | undefined, logger: ProbeLogger): boolean {
  if (!validator) return true;
  const compile = (patterns: readonly string[] | undefined): RegExp[] => (patterns ?? []).map(compileGoRegexp);
  const failIfMatches = compile(validator.fail_if_matches_regexp);
  const failIfAllMatch = compile(validator.fail_if_all_match_regexp);
  const failIfNotMatches = compile(validator.fail_if_not_matches_regexp);
  const failIfNoneMatches = compile(validator.fail_if_none_matches_regexp);
  if (records.length === 0 && failIfNotMatches.length > 0) {
    logger.error('fail_if_not_matches_regexp specified but no RRs returned');
    return false;
  }
  if (records.length === 0 && failIfNoneMatches.length > 0) {
    logger.error('fail_if_none_matches_regexp specified but no RRs returned');
    return false;
  }
  let allMatch = true;
  let anyMatch = false;
  for (const record of records) {
    const text = recordText(record);
    logger.info('Validating RR', { rr: text });
    for (const pattern of failIfMatches) {
      if (pattern.test(text)) {
        logger.error('At least one RR matched regexp', { regexp: pattern.source, rr: text });
        return false;
      }
    }
    for (const pattern of failIfAllMatch) if (!pattern.test(text)) allMatch = false;
    for (const pattern of failIfNotMatches) {
      if (!pattern.test(text)) {
        logger.error('At least one RR did not match regexp', { regexp: pattern.source, rr: text });
        return false;
      }
    }
    for (const pattern of failIfNoneMatches) if (pattern.test(text)) anyMatch = true;
  }
  if (failIfAllMatch.length > 0 && !allMatch) {
    logger.error('Not all RRs matched a fail_if_all_match_regexp regexp');
    return false;
  }
  if (failIfNoneMatches.length > 0 && !anyMatch) {
    logger.error('None of the RRs matched any fail_if_none_matches_regexp regexp');
    return false;
  }
  return true;
}


export const probeDns: Prober = async (deadline, target, module, registry, logger) => {
  const settings = module.dns;
  const durations = gauge(registry, PROBE_DNS_DURATION, ['phase']);
  for (const phase of DNS_PHASES) durations.set({ phase }, 0);
  const answerRrs = gauge(registry, PROBE_DNS_ANSWER_RRS);
  const authorityRrs = gauge(registry, PROBE_DNS_AUTHORITY_RRS);
  const additionalRrs = gauge(registry, PROBE_DNS_ADDITIONAL_RRS);
  const querySucceeded = gauge(registry, PROBE_DNS_QUERY_SUCCEEDED);

  // The loader refuses a dns module without its section (query_name has no default); this is for callers that skip it.
  if (!settings) {
    logger.error('Configuration error: a dns module needs a dns section with query_name');
    return false;
  }
  const split = splitHostPort(target);
  const host = split?.host ?? target;
  const port = split ? portNumber(split.port) : settings.dns_over_tls ? DEFAULT_PORT.tls : DEFAULT_PORT.plain;
  if (port === undefined) {
    logger.error('Target port is not a port number', { target });
    return false;
  }

  let endpoint: Endpoint;
  try {
    const resolved = await resolveTargetAddress(host, settings, deadline, registry, logger);
    durations.set({ phase: 'resolve' }, resolved.lookupSeconds);
    endpoint = { address: resolved.address, port, family: resolved.family, source: settings.source_ip_address };
  } catch (error) {
    logger.error('Error resolving address', { err: (error as Error).message });
    return false;
  }

  const id = randomInt(0, 0x10000);
  const query = dnsPacket.encode({
    type: 'query',
    id,
    flags: settings.recursion_desired ? dnsPacket.RECURSION_DESIRED : 0,
    questions: [{ name: settings.query_name, type: settings.query_type as dnsPacket.RecordType, class: settings.query_class as dnsPacket.RecordClass }],
  });
  const protocol = `${settings.transport_protocol}${endpoint.family}${settings.dns_over_tls ? '-tls' : ''}`;
  logger.info('Making DNS query', { target: `${endpoint.address}:${port}`, dial_protocol: protocol, query: settings.query_name, type: settings.query_type, class: settings.query_class });

  const phases: PhaseTimes = { connect: 0, request: 0 };
  // dns-packet decodes the rcode into a name; its typings do not list the field.
  let response: dnsPacket.DecodedPacket & { rcode?: string };
  try {
    const bytes =
      settings.transport_protocol === 'udp'
        ? await exchangeUdp(query, id, endpoint, deadline, phases)
        : await exchangeStream(query, endpoint, settings.dns_over_tls ? { serverName: host, settings } : undefined, deadline, phases);
    response = dnsPacket.decode(bytes);
  } catch (error) {
    logger.error('Error while sending a DNS query', { err: (error as Error).message });
    return false;
  } finally {
    durations.set({ phase: 'connect' }, phases.connect);
    durations.set({ phase: 'request' }, phases.request);
  }

  const answers = (response.answers ?? []) as DecodedRecord[];
  const authorities = (response.authorities ?? []) as DecodedRecord[];
  const additionals = (response.additionals ?? []) as DecodedRecord[];
  logger.info('Got response', { rcode: response.rcode, truncated: response.flag_tc, answers: answers.length });
  answerRrs.set(answers.length);
  authorityRrs.set(authorities.length);
  additionalRrs.set(additionals.length);
  querySucceeded.set(1);

  if (settings.query_type === 'SOA') {
    const serial = gauge(registry, PROBE_DNS_SERIAL);
    for (const answer of answers) {
      if (answer.type === 'SOA') serial.set((answer.data as dnsPacket.SoaData).serial ?? 0);
    }
  }

  const rcode = response.rcode ?? 'NOERROR';
  if (!settings.valid_rcodes.includes(rcode as (typeof DNS_RCODES)[number])) {
    logger.error('Rcode is not one of the valid rcodes', { rcode, valid_rcodes: settings.valid_rcodes.join(',') });
    return false;
  }
  logger.info('Rcode is valid', { rcode });
  const sections: Array<[string, readonly DecodedRecord[], DnsRrValidator | undefined]> = [
    ['Answer', answers, settings.validate_answer_rrs],
    ['Authority', authorities, settings.validate_authority_rrs],
    ['Additional', additionals, settings.validate_additional_rrs],
  ];
  for (const [section, records, validator] of sections) {
    logger.info(`Validating ${section} RRs`);
    if (!validRecords(records, validator, logger)) {
      logger.error(`${section} RRs validation failed`);
      return false;
    }
  }
  return true;
};
