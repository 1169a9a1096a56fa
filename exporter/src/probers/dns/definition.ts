/**
 * The dns prober's definition: its section of a module (the query, its transport, the answers that count
 * as valid) with upstream's defaults, and the rule that every validator pattern compiles.
 */
import { z } from 'zod';
import type { Problem } from '../../contract/problems';
import { regexpListProblems, regexpSchema } from '../../config/regexp';
import { defineProber } from '../definition';
import { ipProtocolFields } from '../shared/ip-protocol';
import { DEFAULT_TLS_CONFIG, tlsConfigSchema } from '../shared/tls-config';

const rrValidatorSchema = z.strictObject({
  fail_if_matches_regexp: z.array(regexpSchema).optional(),
  fail_if_all_match_regexp: z.array(regexpSchema).optional(),
  fail_if_not_matches_regexp: z.array(regexpSchema).optional(),
  fail_if_none_matches_regexp: z.array(regexpSchema).optional(),
});

export const DNS_QUERY_TYPES = ['A', 'AAAA', 'MX', 'TXT', 'SOA', 'NS', 'CNAME', 'SRV', 'PTR', 'ANY'] as const;

/** Query classes a query can carry (the wire library has no name for class NONE, so it is not offered). */
export const DNS_QUERY_CLASSES = ['IN', 'CS', 'CH', 'HS', 'ANY'] as const;

/**
 * The rcode names upstream accepts in valid_rcodes. No EDNS0 is sent, so only the first eleven (4-bit)
 * can come back; the extended ones are accepted so that upstream configs load unchanged.
 */
export const DNS_RCODES = [
  'NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE',
  'BADSIG', 'BADVERS', 'BADKEY', 'BADTIME', 'BADMODE', 'BADNAME', 'BADALG', 'BADTRUNC', 'BADCOOKIE',
] as const;

export const dnsSectionSchema = z
  .strictObject({
    ...ipProtocolFields,
    dns_over_tls: z.boolean().default(false),
    tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
    source_ip_address: z.string().optional(),
    transport_protocol: z.enum(['udp', 'tcp']).default('udp'),
    query_class: z.enum(DNS_QUERY_CLASSES).default('IN'),
    query_name: z.string({ error: 'query name must be set for DNS module' }).min(1, 'query name must be set for DNS module'),
    query_type: z.enum(DNS_QUERY_TYPES).default('ANY'),
    recursion_desired: z.boolean().default(true),
    valid_rcodes: z.array(z.enum(DNS_RCODES)).default(['NOERROR']),
    validate_answer_rrs: rrValidatorSchema.optional(),
    validate_authority_rrs: rrValidatorSchema.optional(),
    validate_additional_rrs: rrValidatorSchema.optional(),
  })
  .refine((dns) => !dns.dns_over_tls || dns.transport_protocol === 'tcp', {
    message: 'dns_over_tls needs transport_protocol: tcp',
    path: ['transport_protocol'],
  });

export type DnsSection = z.output<typeof dnsSectionSchema>;
export type DnsRrValidator = z.output<typeof rrValidatorSchema>;

/** The three record sections a response has, each with its own validator field. */
export const RR_VALIDATOR_FIELDS = ['validate_answer_rrs', 'validate_authority_rrs', 'validate_additional_rrs'] as const;

function dnsRules(dns: DnsSection): Problem[] {
  return RR_VALIDATOR_FIELDS.flatMap((field) =>
    Object.entries(dns[field] ?? {}).flatMap(([rule, sources]) => regexpListProblems([field, rule], sources)),
  );
}

export const dnsDefinition = defineProber({ name: 'dns', schema: dnsSectionSchema, rules: dnsRules });
