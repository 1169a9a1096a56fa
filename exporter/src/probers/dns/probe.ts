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
import type { Prober } from '../types';
import { failed, failureOf } from '../shared/failure';
import { recordText, type DecodedRecord } from './record-text';
import { checkOutcome } from '../shared/checks';
import type { RecordValidatorJob } from '../shared/check-messages';
import type { Pattern } from '../../config/regexp';
import { exchangeStream, exchangeUdp, type PhaseTimes } from './transport';
import { decodeResponse, type DnsResponse } from './message';

/** A validator's regexps as written, for the checks (../shared/check-worker.ts runs them, as upstream). */
function validatorJob(validator: RecordValidator | undefined): RecordValidatorJob | undefined {
  if (!validator) return undefined;
  const sources = (patterns: readonly Pattern[]): string[] => patterns.map((pattern) => pattern.source);
  return {
    failIfMatches: sources(validator.failIfMatches),
    failIfAllMatch: sources(validator.failIfAllMatch),
    failIfNotMatches: sources(validator.failIfNotMatches),
    failIfNoneMatches: sources(validator.failIfNoneMatches),
  };
}

const validatorPatterns = (validator: RecordValidator | undefined): Pattern[] =>
  validator ? [...validator.failIfMatches, ...validator.failIfAllMatch, ...validator.failIfNotMatches, ...validator.failIfNoneMatches] : [];

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
  // A section without a validator passes whatever its records: their text is not needed.
  const sections = [
    { section: 'Answer', records: answers, validator: settings.validateAnswer },
    { section: 'Authority', records: authorities, validator: settings.validateAuthority },
    { section: 'Additional', records: additionals, validator: settings.validateAdditional },
  ].map(({ section, records, validator }) => ({ section, records: validator ? records.map(recordText) : [], validator, job: validatorJob(validator) }));
  // Every pattern of a section may read every record of it: the cost is bounded by all patterns over all records.
  const inline = {
    patterns: sections.flatMap(({ validator }) => validatorPatterns(validator)),
    textLength: sections.reduce((sum, { records }) => sum + records.reduce((length, text) => length + text.length, 0), 0),
  };
  const job = { kind: 'records', sections: sections.map(({ section, records, job: validator }) => ({ section, records, ...(validator && { validator }) })) } as const;
  return checkOutcome(job, inline, deadline, logger, 'DNS records not accepted', 'record validators');
};
