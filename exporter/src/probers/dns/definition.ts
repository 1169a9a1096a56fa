/**
 * The dns prober's definition: its section of a module (the query, its transport, the answers that count
 * as valid) with upstream's defaults, and the section compiled.
 */
import { z } from 'zod';
import { regexpSchema, type Pattern } from '../../config/regexp';
import { accepted, defineProber, refused, type CompileContext, type TargetGrammar } from '../definition';
import { hostProblem, portNumber, portProblem, splitHostPort, unbracket } from '../shared/host-port';
import { compileIpPreference, ipProtocolFields, type IpPreference } from '../shared/ip-protocol';
import { compileTlsConfig, DEFAULT_TLS_CONFIG, tlsConfigSchema, tlsConfigWithAbsolutePaths, type TlsSettings } from '../shared/tls-config';

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
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
  'BADSIG',
  'BADVERS',
  'BADKEY',
  'BADTIME',
  'BADMODE',
  'BADNAME',
  'BADALG',
  'BADTRUNC',
  'BADCOOKIE',
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

/** One validate_*_rrs section; upstream's field names, patterns compiled. */
export interface RecordValidator {
  readonly failIfMatches: readonly Pattern[];
  readonly failIfAllMatch: readonly Pattern[];
  readonly failIfNotMatches: readonly Pattern[];
  readonly failIfNoneMatches: readonly Pattern[];
}

export interface DnsSettings {
  readonly ip: IpPreference;
  readonly sourceAddress?: string;
  readonly transport: DnsSection['transport_protocol'];
  /** DNS over TLS (over tcp), with tlsConfig. */
  readonly overTls: boolean;
  readonly tlsConfig: TlsSettings;
  /** The port of a target written without one: 853 over TLS, else 53, as upstream. */
  readonly defaultPort: number;
  readonly queryName: string;
  readonly queryType: DnsSection['query_type'];
  readonly queryClass: DnsSection['query_class'];
  readonly recursionDesired: boolean;
  readonly validRcodes: readonly string[];
  readonly validateAnswer?: RecordValidator;
  readonly validateAuthority?: RecordValidator;
  readonly validateAdditional?: RecordValidator;
}

function compileDns(dns: DnsSection, context: CompileContext): DnsSettings {
  const validator = (field: 'validate_answer_rrs' | 'validate_authority_rrs' | 'validate_additional_rrs'): RecordValidator | undefined => {
    const written = dns[field];
    if (written === undefined) return undefined;
    const patterns = (rule: keyof typeof written): Pattern[] => (written[rule] ?? []).map((source, index) => context.pattern([field, rule, index], source));
    return {
      failIfMatches: patterns('fail_if_matches_regexp'),
      failIfAllMatch: patterns('fail_if_all_match_regexp'),
      failIfNotMatches: patterns('fail_if_not_matches_regexp'),
      failIfNoneMatches: patterns('fail_if_none_matches_regexp'),
    };
  };
  return {
    ip: compileIpPreference(dns),
    sourceAddress: dns.source_ip_address,
    transport: dns.transport_protocol,
    overTls: dns.dns_over_tls,
    tlsConfig: compileTlsConfig(dns.tls_config),
    defaultPort: dns.dns_over_tls ? 853 : 53,
    queryName: dns.query_name,
    queryType: dns.query_type,
    queryClass: dns.query_class,
    recursionDesired: dns.recursion_desired,
    validRcodes: dns.valid_rcodes,
    validateAnswer: validator('validate_answer_rrs'),
    validateAuthority: validator('validate_authority_rrs'),
    validateAdditional: validator('validate_additional_rrs'),
  };
}

/** The server a dns probe asks; without a port, the module's default (53, or 853 over TLS). */
export interface DnsServer {
  readonly host: string;
  readonly port?: number;
}

/** `host` or `host:port`, as upstream's dns prober splits it. */
export const dnsTarget: TargetGrammar<DnsServer> = {
  parse(target) {
    const split = splitHostPort(target);
    if (!split) return accepted({ host: target });
    const port = portNumber(split.port);
    if (port !== undefined) return accepted({ host: split.host, port });
    // A port that is not a number means the target is something else altogether (a URL, say).
    return refused(/^[0-9]+$/.test(split.port) ? portProblem(split.port) : 'is not the address of a DNS server; write host or host:port, for example 1.1.1.1 or ns1.example.com:53');
  },
  strictProblem: ({ host }) => hostProblem(unbracket(host)),
};

export const dnsDefinition = defineProber({
  name: 'dns',
  schema: dnsSectionSchema,
  withAbsolutePaths: (dns, absolute) => ({ ...dns, tls_config: tlsConfigWithAbsolutePaths(dns.tls_config, absolute) }),
  compile: compileDns,
  target: dnsTarget,
});
