/**
 * The exporter's config file, in blackbox_exporter's format: a `modules:` map of module name to module.
 *
 * This schema is the one definition of that format. The exporter parses its file with it (defaults
 * applied, unknown fields refused), and probekit's spec validates its `modules` with it, so a spec that
 * synthesizes is a config the exporter accepts. Defaults are upstream's, written here and nowhere else.
 */
import { z } from 'zod';
import { DURATION_HINT, parseDuration } from './duration';
import { PROBER_NAMES } from '../contract/endpoints';

const duration = z.string().refine((text) => parseDuration(text) !== undefined, {
  message: `must be ${DURATION_HINT}`,
});

/** A regular expression as written in the file; compiled (and checked) by the config loader. */
const regexp = z.string();

const ipProtocol = z.enum(['ip4', 'ip6']);

/** Upstream defaults to ip6 with fallback to ip4: a dual-stack target is probed over IPv6 first. */
const ipProtocolFields = {
  preferred_ip_protocol: ipProtocol.default('ip6'),
  ip_protocol_fallback: z.boolean().default(true),
};

const tlsVersion = z.enum(['TLS10', 'TLS11', 'TLS12', 'TLS13']);

export const tlsConfigSchema = z.strictObject({
  ca: z.string().optional(),
  ca_file: z.string().optional(),
  cert: z.string().optional(),
  cert_file: z.string().optional(),
  key: z.string().optional(),
  key_file: z.string().optional(),
  server_name: z.string().optional(),
  insecure_skip_verify: z.boolean().default(false),
  min_version: tlsVersion.optional(),
  max_version: tlsVersion.optional(),
});

const basicAuthSchema = z.strictObject({
  username: z.string().optional(),
  username_file: z.string().optional(),
  password: z.string().optional(),
  password_file: z.string().optional(),
});

const authorizationSchema = z.strictObject({
  type: z.string().default('Bearer'),
  credentials: z.string().optional(),
  credentials_file: z.string().optional(),
});

const oauth2Schema = z.strictObject({
  client_id: z.string(),
  client_secret: z.string().optional(),
  client_secret_file: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  token_url: z.string(),
  endpoint_params: z.record(z.string(), z.string()).optional(),
  tls_config: tlsConfigSchema.optional(),
  proxy_url: z.string().optional(),
});

/** `http_headers`: each header from literal values, secret values, or files read at every probe. */
const httpHeaderSchema = z.strictObject({
  values: z.array(z.string()).optional(),
  secrets: z.array(z.string()).optional(),
  files: z.array(z.string()).optional(),
});

const headerMatchSchema = z.strictObject({
  header: z.string(),
  regexp,
  allow_missing: z.boolean().default(false),
});

export const httpProbeSchema = z.strictObject({
  valid_status_codes: z.array(z.number().int().min(100).max(599)).optional(),
  valid_http_versions: z.array(z.string()).optional(),
  ...ipProtocolFields,
  /** probekit addition (tcp, icmp and dns have it upstream): the local address probe connections leave from. */
  source_ip_address: z.string().optional(),
  skip_resolve_phase_with_proxy: z.boolean().default(false),
  /** Deprecated upstream in favour of `follow_redirects`, still accepted: the seed's modules use it. */
  no_follow_redirects: z.boolean().optional(),
  fail_if_ssl: z.boolean().default(false),
  fail_if_not_ssl: z.boolean().default(false),
  method: z.string().default('GET'),
  headers: z.record(z.string(), z.string()).optional(),
  fail_if_body_matches_regexp: z.array(regexp).optional(),
  fail_if_body_not_matches_regexp: z.array(regexp).optional(),
  fail_if_header_matches: z.array(headerMatchSchema).optional(),
  fail_if_header_not_matches: z.array(headerMatchSchema).optional(),
  body: z.string().optional(),
  body_file: z.string().optional(),
  compression: z.enum(['', 'gzip', 'br', 'deflate', 'identity']).default(''),
  /** Bytes, or a size with a unit as upstream writes them (`1MB`, `512KiB`); 0 means no limit. */
  body_size_limit: z.union([z.number().int().min(0), z.string()]).optional(),
  // prometheus/common's HTTP client settings, inline in the http section as upstream has them.
  basic_auth: basicAuthSchema.optional(),
  authorization: authorizationSchema.optional(),
  bearer_token: z.string().optional(),
  bearer_token_file: z.string().optional(),
  oauth2: oauth2Schema.optional(),
  tls_config: tlsConfigSchema.default({ insecure_skip_verify: false }),
  proxy_url: z.string().optional(),
  no_proxy: z.string().optional(),
  proxy_from_environment: z.boolean().default(false),
  proxy_connect_header: z.record(z.string(), z.array(z.string())).optional(),
  follow_redirects: z.boolean().default(true),
  enable_http2: z.boolean().default(true),
  enable_http3: z.boolean().optional(),
  http_headers: z.record(z.string(), httpHeaderSchema).optional(),
});

/** Text, or bytes written in YAML as `!!binary <base64>` (upstream's example sends a PostgreSQL SSLRequest so). */
const textOrBytes = z.union([z.string(), z.instanceof(Uint8Array)]);

const queryResponseSchema = z
  .strictObject({
    /** Read lines until one matches; its captures fill `${1}`/`${name}` in `send` and in label values. */
    expect: regexp.optional(),
    /** Read exactly these bytes next and fail when they differ. */
    expect_bytes: textOrBytes.optional(),
    /** probe_expect_info labels, values expanded from `expect`'s captures. */
    labels: z.array(z.strictObject({ name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name'), value: z.string() })).optional(),
    /** A line to write, a newline added. */
    send: textOrBytes.optional(),
    /** Upgrade the connection to TLS (tls_config applies) after this step. */
    starttls: z.boolean().default(false),
  })
  .refine((step) => step.expect === undefined || step.expect_bytes === undefined, {
    message: 'expect and expect_bytes are mutually exclusive; split them into two steps',
    path: ['expect_bytes'],
  });

export const tcpProbeSchema = z.strictObject({
  ...ipProtocolFields,
  source_ip_address: z.string().optional(),
  query_response: z.array(queryResponseSchema).optional(),
  tls: z.boolean().default(false),
  tls_config: tlsConfigSchema.default({ insecure_skip_verify: false }),
});

/** Upstream's default TTL for echo requests (the Linux default too). */
export const DEFAULT_ICMP_TTL = 64;

export const icmpProbeSchema = z.strictObject({
  ...ipProtocolFields,
  source_ip_address: z.string().optional(),
  /** Bytes of echo payload; 0 sends upstream's 28-byte text. */
  payload_size: z.number().int().min(0).max(65_000).optional(),
  dont_fragment: z.boolean().default(false),
  ttl: z.number().int().min(0, 'must be between 0 and 255').max(255, 'must be between 0 and 255').default(DEFAULT_ICMP_TTL),
});

const rrValidatorSchema = z.strictObject({
  fail_if_matches_regexp: z.array(regexp).optional(),
  fail_if_all_match_regexp: z.array(regexp).optional(),
  fail_if_not_matches_regexp: z.array(regexp).optional(),
  fail_if_none_matches_regexp: z.array(regexp).optional(),
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

export const dnsProbeSchema = z
  .strictObject({
    ...ipProtocolFields,
    dns_over_tls: z.boolean().default(false),
    tls_config: tlsConfigSchema.default({ insecure_skip_verify: false }),
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

export const grpcProbeSchema = z.strictObject({
  /** The service name sent in the health check; empty asks about the server as a whole. */
  service: z.string().default(''),
  tls: z.boolean().default(false),
  tls_config: tlsConfigSchema.default({ insecure_skip_verify: false }),
  ...ipProtocolFields,
});

export const moduleSchema = z.strictObject({
  prober: z.enum(PROBER_NAMES),
  /** Unset: the probe gets the scrape's own timeout (less the offset), as upstream does. */
  timeout: duration.optional(),
  http: httpProbeSchema.optional(),
  tcp: tcpProbeSchema.optional(),
  icmp: icmpProbeSchema.optional(),
  dns: dnsProbeSchema.optional(),
  grpc: grpcProbeSchema.optional(),
});

export const configSchema = z.strictObject({
  modules: z.record(z.string(), moduleSchema),
});

/** A module as written by a user (defaults not yet applied). */
export type ModuleInput = z.input<typeof moduleSchema>;
/** A module with every default applied, as probers receive it. */
export type Module = z.output<typeof moduleSchema>;
export type HttpProbe = z.output<typeof httpProbeSchema>;
export type TcpProbe = z.output<typeof tcpProbeSchema>;
export type IcmpProbe = z.output<typeof icmpProbeSchema>;
export type DnsProbe = z.output<typeof dnsProbeSchema>;
export type DnsRrValidator = z.output<typeof rrValidatorSchema>;
export type QueryResponse = z.output<typeof queryResponseSchema>;
export type GrpcProbe = z.output<typeof grpcProbeSchema>;
export type TlsConfig = z.output<typeof tlsConfigSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema>;
