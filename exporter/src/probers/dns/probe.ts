/**
 * The dns prober: one query to the target server over UDP, TCP or DNS over TLS; success when a response
 * arrives with a valid rcode and its answer, authority and additional records pass the module's
 * validators, matched against the records' text form as upstream prints them.
 */
import { randomInt } from 'node:crypto';
import * as dnsPacket from 'dns-packet';
import { dnsTarget, type RecordValidator } from './definition';
import { gauge, phaseGauge } from '../../metrics';
import { DNS_PHASES, PROBE_DNS_ADDITIONAL_RRS, PROBE_DNS_ANSWER_RRS, PROBE_DNS_AUTHORITY_RRS, PROBE_DNS_DURATION, PROBE_DNS_QUERY_SUCCEEDED, PROBE_DNS_SERIAL } from './metrics';
import { resolveTargetAddress } from '../shared/address';
import type { Endpoint } from '../shared/dial';
import { Resources } from '../shared/resources';
import type { ProbeLogger, Prober } from '../types';
import { failed, failureOf, SUCCEEDED } from '../shared/failure';
import { recordText, type DecodedRecord } from './record-text';
import { exchangeStream, exchangeUdp, type PhaseTimes } from './transport';
import { decodeResponse, type DnsResponse } from './message';

/**
 * Checks records against one validator, as upstream does: fail_if_matches_regexp fails on any record
 * matching; fail_if_not_matches_regexp on any record not matching; fail_if_none_matches_regexp when no
 * record matches. fail_if_all_match_regexp fails when some record does NOT match, despite its name: that
 * is what blackbox_exporter has always done, and configs written for it rely on it (see docs/probers.md, "dns").
 * fail_if_not_matches_regexp and fail_if_none_matches_regexp also fail when there are no records.
 */
export function validRecords(records: readonly DecodedRecord[], validator: RecordValidator | undefined, logger: ProbeLogger): boolean {
  if (!validator) return true;
  const { failIfMatches, failIfAllMatch, failIfNotMatches, failIfNoneMatches } = validator;
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
    logger.debug('Validating RR', { rr: text });
    for (const pattern of failIfMatches) {
      if (pattern.regexp.test(text)) {
        logger.error('At least one RR matched regexp', { regexp: pattern.source, rr: text });
        return false;
      }
    }
    for (const pattern of failIfAllMatch) if (!pattern.regexp.test(text)) allMatch = false;
    for (const pattern of failIfNotMatches) {
      if (!pattern.regexp.test(text)) {
        logger.error('At least one RR did not match regexp', { regexp: pattern.source, rr: text });
        return false;
      }
    }
    for (const pattern of failIfNoneMatches) if (pattern.regexp.test(text)) anyMatch = true;
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

export const probeDns: Prober<'dns'> = async (deadline, target, module, registry, logger, options) => {
  const settings = module.dns;
  const durations = phaseGauge(registry, PROBE_DNS_DURATION, DNS_PHASES);
  const answerRrs = gauge(registry, PROBE_DNS_ANSWER_RRS);
  const authorityRrs = gauge(registry, PROBE_DNS_AUTHORITY_RRS);
  const additionalRrs = gauge(registry, PROBE_DNS_ADDITIONAL_RRS);
  const querySucceeded = gauge(registry, PROBE_DNS_QUERY_SUCCEEDED);

  const parsed = dnsTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Target is not host or host:port', { target, err: parsed.problem });
    return failed('target or module not usable');
  }
  const host = parsed.target.host;
  const port = parsed.target.port ?? settings.defaultPort;

  let endpoint: Endpoint;
  try {
    const resolved = await resolveTargetAddress(host, settings.ip, deadline, registry, logger, options.guard, port);
    durations.set({ phase: 'resolve' }, resolved.lookupSeconds);
    endpoint = { address: resolved.address, port, family: resolved.family, source: settings.sourceAddress };
  } catch (error) {
    logger.error('Error resolving address', { err: (error as Error).message });
    return failureOf(error, 'resolve failed');
  }

  const id = randomInt(0, 0x10000);
  const query = dnsPacket.encode({
    type: 'query',
    id,
    flags: settings.recursionDesired ? dnsPacket.RECURSION_DESIRED : 0,
    questions: [{ name: settings.queryName, type: settings.queryType as dnsPacket.RecordType, class: settings.queryClass as dnsPacket.RecordClass }],
  });
  const protocol = `${settings.transport}${endpoint.family}${settings.overTls ? '-tls' : ''}`;
  logger.debug('Making DNS query', { target: `${endpoint.address}:${port}`, dial_protocol: protocol, query: settings.queryName, type: settings.queryType, class: settings.queryClass });

  const phases: PhaseTimes = { connect: 0, request: 0 };
  const resources = new Resources(logger);
  let response: DnsResponse;
  try {
    const bytes =
      settings.transport === 'udp'
        ? await exchangeUdp(query, id, endpoint, deadline, phases, resources)
        : await exchangeStream(query, endpoint, settings.overTls ? { serverName: host, config: settings.tlsConfig } : undefined, deadline, phases, resources);
    response = decodeResponse(bytes);
  } catch (error) {
    logger.error('Error while sending a DNS query', { err: (error as Error).message });
    return failureOf(error, 'protocol error');
  } finally {
    resources.destroyAll();
    durations.set({ phase: 'connect' }, phases.connect);
    durations.set({ phase: 'request' }, phases.request);
  }

  const answers = (response.answers ?? []) as DecodedRecord[];
  const authorities = (response.authorities ?? []) as DecodedRecord[];
  const additionals = (response.additionals ?? []) as DecodedRecord[];
  logger.debug('Got response', { rcode: response.rcode, truncated: response.flag_tc, answers: answers.length });
  answerRrs.set(answers.length);
  authorityRrs.set(authorities.length);
  additionalRrs.set(additionals.length);
  querySucceeded.set(1);

  if (settings.queryType === 'SOA') {
    const serial = gauge(registry, PROBE_DNS_SERIAL);
    for (const answer of answers) {
      if (answer.type === 'SOA') serial.set((answer.data as dnsPacket.SoaData).serial ?? 0);
    }
  }

  const rcode = response.rcode ?? 'NOERROR';
  if (!settings.validRcodes.includes(rcode)) {
    logger.error('Rcode is not one of the valid rcodes', { rcode, valid_rcodes: settings.validRcodes.join(',') });
    return failed('DNS rcode not accepted');
  }
  logger.debug('Rcode is valid', { rcode });
  const sections: Array<[string, readonly DecodedRecord[], RecordValidator | undefined]> = [
    ['Answer', answers, settings.validateAnswer],
    ['Authority', authorities, settings.validateAuthority],
    ['Additional', additionals, settings.validateAdditional],
  ];
  for (const [section, records, validator] of sections) {
    logger.debug(`Validating ${section} RRs`);
    if (!validRecords(records, validator, logger)) {
      logger.error(`${section} RRs validation failed`);
      return failed('DNS records not accepted');
    }
  }
  return SUCCEEDED;
};
