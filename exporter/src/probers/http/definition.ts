/**
 * The http prober's definition: its section of a module (upstream's fields and defaults, plus
 * source_ip_address), upstream's load-time rules across those fields, and the section compiled.
 */
import { z } from 'zod';
import type { Problem } from '../../contract/problems';
import type { CelProgram } from '../../config/cel';
import { regexpSchema, type Pattern } from '../../config/regexp';
import { byteSizeProblem, parseByteSize } from '../../config/size';
import { accepted, defineProber, refused, type CompileContext, type TargetGrammar } from '../definition';
import { compileIpPreference, ipProtocolFields, type IpPreference } from '../shared/ip-protocol';
import { compileTlsConfig, DEFAULT_TLS_CONFIG, tlsConfigSchema, tlsConfigWithAbsolutePaths, type TlsSettings } from '../shared/tls-config';
import { compileProxy, proxyProblems, type ProxyChoice } from './proxy';
import { compileRequestPlan, type RequestPlan } from './request-plan';

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

/** prometheus/common's proxy fields, in the http section and in its oauth2 section alike. */
const proxyFields = {
  proxy_url: z.string().optional(),
  no_proxy: z.string().optional(),
  proxy_from_environment: z.boolean().default(false),
  proxy_connect_header: z.record(z.string(), z.array(z.string())).optional(),
};

/** Client credentials (the grant upstream's probes use); the token requests have their own TLS and proxy settings. */
const oauth2Schema = z.strictObject({
  client_id: z.string(),
  client_secret: z.string().optional(),
  client_secret_file: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  token_url: z.string(),
  endpoint_params: z.record(z.string(), z.string()).optional(),
  tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
  ...proxyFields,
});

/** `http_headers`: each header from literal values, secret values, or files read at every probe. */
const httpHeaderSchema = z.strictObject({
  values: z.array(z.string()).optional(),
  secrets: z.array(z.string()).optional(),
  files: z.array(z.string()).optional(),
});

const headerMatchSchema = z.strictObject({
  header: z.string(),
  regexp: regexpSchema,
  allow_missing: z.boolean().default(false),
});

export const httpSectionSchema = z.strictObject({
  valid_status_codes: z.array(z.number().int().min(100).max(599)).optional(),
  valid_http_versions: z.array(z.string()).optional(),
  ...ipProtocolFields,
  /** probekit addition (tcp, icmp and dns have it upstream): the local address probe connections leave from. */
  source_ip_address: z.string().optional(),
  skip_resolve_phase_with_proxy: z.boolean().default(false),
  /** Deprecated upstream in favour of `follow_redirects`, still accepted: probekit's documented http_2xx modules set it. */
  no_follow_redirects: z.boolean().optional(),
  fail_if_ssl: z.boolean().default(false),
  fail_if_not_ssl: z.boolean().default(false),
  method: z.string().default('GET'),
  headers: z.record(z.string(), z.string()).optional(),
  fail_if_body_matches_regexp: z.array(regexpSchema).optional(),
  fail_if_body_not_matches_regexp: z.array(regexpSchema).optional(),
  /** CEL over the body parsed as JSON (variable `body`): the probe fails when it is true. */
  fail_if_body_json_matches_cel: z.string().optional(),
  /** CEL over the body parsed as JSON (variable `body`): the probe fails unless it is true. */
  fail_if_body_json_not_matches_cel: z.string().optional(),
  fail_if_header_matches: z.array(headerMatchSchema).optional(),
  fail_if_header_not_matches: z.array(headerMatchSchema).optional(),
  body: z.string().optional(),
  body_file: z.string().optional(),
  compression: z.enum(['', 'gzip', 'br', 'deflate', 'identity']).default(''),
  /** Bytes, or a size with a unit as upstream writes them (`1MB`, `512KiB`); 0 means no limit. */
  body_size_limit: z.union([z.number(), z.string()]).optional(),
  // prometheus/common's HTTP client settings, inline in the http section as upstream has them.
  basic_auth: basicAuthSchema.optional(),
  authorization: authorizationSchema.optional(),
  bearer_token: z.string().optional(),
  bearer_token_file: z.string().optional(),
  oauth2: oauth2Schema.optional(),
  tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
  ...proxyFields,
  follow_redirects: z.boolean().default(true),
  enable_http2: z.boolean().default(true),
  enable_http3: z.boolean().optional(),
  http_headers: z.record(z.string(), httpHeaderSchema).optional(),
});

export type HttpSection = z.output<typeof httpSectionSchema>;

/**
 * Fields the schema knows (they are upstream's) that this exporter does not implement, refused by name with
 * the reason: Node has no QUIC client in its stable API, so there is no HTTP/3 to probe with.
 */
const UNSUPPORTED_HTTP_FIELDS = { enable_http3: 'HTTP/3 needs a QUIC client, which Node does not have in its stable API' } as const;

/** Headers that http_headers may not set: each has its own field, or is the transport's business. */
const RESERVED_HEADERS = ['authorization', 'host', 'content-length', 'transfer-encoding', 'connection', 'upgrade'];

/**
 * Whether an Accept-Encoding header still admits `compression` with a non-zero quality (upstream refuses
 * a config whose header would make the server never send the compression it is told to expect).
 */
export function acceptEncodingAllows(compression: string, acceptEncoding: string): boolean {
  if (compression === '' || acceptEncoding === '') return true;
  return acceptEncoding.split(',').some((part) => {
    const [name, ...parameters] = part.split(';').map((piece) => piece.trim());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    const q = quality === undefined ? 1 : Number(quality.slice(2));
    return (name.toLowerCase() === compression || name === '*') && q > 0;
  });
}

/** Upstream's load-time checks of an http section, plus the fields this exporter does not implement. */
function httpRules(http: HttpSection): Problem[] {
  const problems: Problem[] = [];
  for (const [field, reason] of Object.entries(UNSUPPORTED_HTTP_FIELDS) as Array<[keyof typeof UNSUPPORTED_HTTP_FIELDS, string]>) {
    if (http[field] !== undefined && http[field] !== false) problems.push({ path: [field], message: `${field} is not supported by probekit-exporter (${reason}); remove it` });
  }
  if (http.body !== undefined && http.body_file !== undefined) problems.push({ path: ['body_file'], message: 'set body or body_file, not both' });
  for (const [name, value] of Object.entries(http.headers ?? {})) {
    if (name.toLowerCase() === 'accept-encoding' && !acceptEncodingAllows(http.compression, value)) {
      problems.push({ path: ['headers', name], message: `"${name}: ${value}" refuses the configured compression "${http.compression}"; make them agree` });
    }
  }
  if (http.bearer_token !== undefined && http.bearer_token_file !== undefined) {
    problems.push({ path: ['bearer_token_file'], message: 'set bearer_token or bearer_token_file, not both' });
  }
  const schemes = [
    http.basic_auth && 'basic_auth',
    http.authorization && 'authorization',
    http.oauth2 && 'oauth2',
    (http.bearer_token ?? http.bearer_token_file) !== undefined && 'bearer_token',
  ].filter(Boolean);
  if (schemes.length > 1) problems.push({ path: [String(schemes[1])], message: `set only one of ${schemes.join(', ')}` });
  if (http.basic_auth?.password !== undefined && http.basic_auth.password_file !== undefined) {
    problems.push({ path: ['basic_auth', 'password_file'], message: 'set basic_auth password or password_file, not both' });
  }
  if (http.basic_auth?.username !== undefined && http.basic_auth.username_file !== undefined) {
    problems.push({ path: ['basic_auth', 'username_file'], message: 'set basic_auth username or username_file, not both' });
  }
  if (http.authorization) {
    if (http.authorization.type.toLowerCase() === 'basic') problems.push({ path: ['authorization', 'type'], message: 'authorization type Basic: use basic_auth instead' });
    if (http.authorization.credentials !== undefined && http.authorization.credentials_file !== undefined) {
      problems.push({ path: ['authorization', 'credentials_file'], message: 'set authorization credentials or credentials_file, not both' });
    }
  }
  for (const name of Object.keys(http.http_headers ?? {})) {
    if (RESERVED_HEADERS.includes(name.toLowerCase())) problems.push({ path: ['http_headers', name], message: `header ${name} cannot be set through http_headers; use its own field` });
  }
  problems.push(...proxyProblems(http));
  if (http.oauth2) {
    problems.push(...proxyProblems(http.oauth2, ['oauth2']));
    if (http.oauth2.client_secret !== undefined && http.oauth2.client_secret_file !== undefined) {
      problems.push({ path: ['oauth2', 'client_secret_file'], message: 'set oauth2 client_secret or client_secret_file, not both' });
    }
    if (http.oauth2.client_id === '') problems.push({ path: ['oauth2', 'client_id'], message: 'oauth2 needs a client_id' });
  }
  return problems;
}

/** Where an http module's client-credentials tokens come from; ./oauth2.ts fetches and caches them. */
export interface OAuth2Settings {
  readonly clientId: string;
  readonly clientSecret: { readonly text: string } | { readonly file: string };
  readonly scopes: readonly string[];
  readonly tokenUrl: URL;
  readonly endpointParams: Readonly<Record<string, string>>;
  readonly tls: TlsSettings;
  readonly proxy?: ProxyChoice;
}

/** A header check of fail_if_header_matches or fail_if_header_not_matches. */
export interface HeaderCheck {
  readonly header: string;
  readonly pattern: Pattern;
  readonly allowMissing: boolean;
}

export interface HttpSettings {
  readonly ip: IpPreference;
  readonly sourceAddress?: string;
  /** Empty: any 2xx. */
  readonly validStatusCodes: readonly number[];
  /** Empty: any version. */
  readonly validHttpVersions: readonly string[];
  readonly skipResolvePhaseWithProxy: boolean;
  readonly followRedirects: boolean;
  readonly failIfSsl: boolean;
  readonly failIfNotSsl: boolean;
  readonly failIfBodyMatches: readonly Pattern[];
  readonly failIfBodyNotMatches: readonly Pattern[];
  readonly failIfBodyJsonMatchesCel?: CelProgram;
  readonly failIfBodyJsonNotMatchesCel?: CelProgram;
  readonly failIfHeaderMatches: readonly HeaderCheck[];
  readonly failIfHeaderNotMatches: readonly HeaderCheck[];
  readonly compression: HttpSection['compression'];
  /** Bytes, as written; 0 when written as 0 or less (no limit); undefined when not written (./body.ts caps a checked body then). */
  readonly bodySizeLimit?: number;
  readonly tls: TlsSettings;
  readonly proxy?: ProxyChoice;
  /** Where client-credentials tokens for the Authorization header come from (./oauth2.ts caches them per module). */
  readonly oauth2?: OAuth2Settings;
  readonly enableHttp2: boolean;
  readonly request: RequestPlan;
}

function compileOAuth2(oauth2: NonNullable<HttpSection['oauth2']>, context: CompileContext): OAuth2Settings | undefined {
  let tokenUrl: URL | undefined;
  try {
    tokenUrl = /^https?:\/\//.test(oauth2.token_url) ? new URL(oauth2.token_url) : undefined;
  } catch {
    tokenUrl = undefined;
  }
  if (tokenUrl === undefined) {
    context.problem(['oauth2', 'token_url'], 'must be an http:// or https:// URL');
    return undefined;
  }
  return {
    clientId: oauth2.client_id,
    clientSecret: oauth2.client_secret_file ? { file: oauth2.client_secret_file } : { text: oauth2.client_secret ?? '' },
    scopes: oauth2.scopes ?? [],
    tokenUrl,
    endpointParams: oauth2.endpoint_params ?? {},
    tls: compileTlsConfig(oauth2.tls_config),
    proxy: compileProxy(oauth2, context, ['oauth2']),
  };
}

function compileHttp(http: HttpSection, context: CompileContext): HttpSettings {
  const patterns = (field: 'fail_if_body_matches_regexp' | 'fail_if_body_not_matches_regexp'): Pattern[] => (http[field] ?? []).map((source, index) => context.pattern([field, index], source));
  const headerChecks = (field: 'fail_if_header_matches' | 'fail_if_header_not_matches'): HeaderCheck[] =>
    (http[field] ?? []).map((check, index) => ({ header: check.header, pattern: context.pattern([field, index, 'regexp'], check.regexp), allowMissing: check.allow_missing }));
  const cel = (field: 'fail_if_body_json_matches_cel' | 'fail_if_body_json_not_matches_cel'): CelProgram | undefined => {
    const source = http[field];
    return source === undefined ? undefined : context.cel([field], source);
  };
  let bodySizeLimit: number | undefined;
  if (http.body_size_limit !== undefined) {
    const bytes = parseByteSize(http.body_size_limit);
    if (bytes === undefined) context.problem(['body_size_limit'], byteSizeProblem(http.body_size_limit));
    // Zero or negative means no limit, as upstream reads it.
    else bodySizeLimit = Math.max(0, bytes);
  }
  return {
    ip: compileIpPreference(http),
    sourceAddress: http.source_ip_address,
    validStatusCodes: http.valid_status_codes ?? [],
    validHttpVersions: http.valid_http_versions ?? [],
    skipResolvePhaseWithProxy: http.skip_resolve_phase_with_proxy,
    // The deprecated no_follow_redirects, when written, wins, as upstream reads it.
    followRedirects: http.no_follow_redirects === undefined ? http.follow_redirects : !http.no_follow_redirects,
    failIfSsl: http.fail_if_ssl,
    failIfNotSsl: http.fail_if_not_ssl,
    failIfBodyMatches: patterns('fail_if_body_matches_regexp'),
    failIfBodyNotMatches: patterns('fail_if_body_not_matches_regexp'),
    failIfBodyJsonMatchesCel: cel('fail_if_body_json_matches_cel'),
    failIfBodyJsonNotMatchesCel: cel('fail_if_body_json_not_matches_cel'),
    failIfHeaderMatches: headerChecks('fail_if_header_matches'),
    failIfHeaderNotMatches: headerChecks('fail_if_header_not_matches'),
    compression: http.compression,
    bodySizeLimit,
    tls: compileTlsConfig(http.tls_config),
    proxy: compileProxy(http, context),
    oauth2: http.oauth2 && compileOAuth2(http.oauth2, context),
    enableHttp2: http.enable_http2,
    request: compileRequestPlan(http),
  };
}

/** Every file an http section names: TLS material, the body, credentials and header values. */
function httpWithAbsolutePaths(http: HttpSection, absolute: (path: string) => string): HttpSection {
  const resolve = (path: string | undefined): string | undefined => (path === undefined || path === '' ? path : absolute(path));
  return {
    ...http,
    body_file: resolve(http.body_file),
    bearer_token_file: resolve(http.bearer_token_file),
    tls_config: tlsConfigWithAbsolutePaths(http.tls_config, absolute),
    basic_auth: http.basic_auth && { ...http.basic_auth, password_file: resolve(http.basic_auth.password_file), username_file: resolve(http.basic_auth.username_file) },
    authorization: http.authorization && { ...http.authorization, credentials_file: resolve(http.authorization.credentials_file) },
    oauth2: http.oauth2 && { ...http.oauth2, client_secret_file: resolve(http.oauth2.client_secret_file), tls_config: tlsConfigWithAbsolutePaths(http.oauth2.tls_config, absolute) },
    http_headers: http.http_headers && Object.fromEntries(Object.entries(http.http_headers).map(([name, header]) => [name, { ...header, files: header.files?.map((file) => resolve(file) ?? file) }])),
  };
}

/** A URL whose host may be an IPv6 address with a zone, which WHATWG URLs cannot hold: the zone is kept beside it. */
export interface ZonedUrl {
  /** The URL without the zone: its host is what the Host header says, as Go's client strips the zone there too. */
  readonly url: URL;
  /** The zone (an interface name or index), when the host is written `[fe80::1%25eth0]` as RFC 6874 has it. */
  readonly zone?: string;
}

export interface HttpTarget extends ZonedUrl {
  /** Whether the target was written with its scheme (http:// or https://, in lower case). */
  readonly schemeWritten: boolean;
}

/** `//[v6%25zone]` at the start of a URL's authority (after any scheme and user info). */
const ZONED_AUTHORITY = /^((?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/(?:[^/?#@[\]]*@)?\[[0-9A-Fa-f:.]+)%25([^\]/?#]+)\]/;

/**
 * Parses `text` (against `base` when relative: a path keeps the base's host and zone) with a zone written as
 * Go's url.Parse reads it, `%25` then the escaped zone. Throws as `new URL` does.
 */
export function parseZonedUrl(text: string, base?: ZonedUrl): ZonedUrl {
  const zoned = ZONED_AUTHORITY.exec(text);
  if (zoned) return { url: new URL(`${zoned[1]}]${text.slice(zoned[0].length)}`, base?.url), zone: decodeURIComponent(zoned[2]) };
  const url = new URL(text, base?.url);
  const hasAuthority = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\//.test(text.trimStart());
  return hasAuthority || base?.zone === undefined ? { url } : { url, zone: base.zone };
}

/** A URL; as upstream, a target that does not start with exactly http:// or https:// is taken as http://. */
export const httpTarget: TargetGrammar<HttpTarget> = {
  parse(target) {
    // Go's url.Parse refuses these, so upstream fails the probe; a WHATWG parser would encode them and go on.
    const control = [...target].find((character) => character < ' ' || character === '\u007f');
    if (control !== undefined) {
      const code = control.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
      return refused(`holds the control character U+00${code}; remove it, or write it percent-encoded (%${code})`);
    }
    // The query is the one part Go leaves as written.
    if (/%(?![0-9A-Fa-f]{2})/.test(target.replace(/\?[^#]*/, (query) => query.replace(/%/g, ''))))
      return refused('holds a % not followed by two hex digits outside its query; write a literal % as %25');
    const schemeWritten = /^https?:\/\//.test(target);
    try {
      return accepted({ ...parseZonedUrl(schemeWritten ? target : `http://${target}`), schemeWritten });
    } catch {
      return refused('is not a URL; write it as http://host[:port]/path or https://host[:port]/path');
    }
  },
  strictProblem({ schemeWritten }, written) {
    // A bare host is probed over plain HTTP, rarely what a spec that monitors https sites means.
    if (schemeWritten) return undefined;
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(written)?.[1];
    if (scheme === undefined) return `has no scheme; write https://${written} or http://${written}, so that whether the probe uses TLS is written down`;
    if (/^https?$/i.test(scheme)) return `has scheme ${scheme}; write it in lower case, the only way the exporter reads it`;
    return `has scheme ${scheme}; an http module probes http:// and https:// URLs`;
  },
};

export const httpDefinition = defineProber({
  name: 'http',
  schema: httpSectionSchema,
  rules: httpRules,
  withAbsolutePaths: httpWithAbsolutePaths,
  compile: compileHttp,
  target: httpTarget,
});
