/**
 * `--web.config.file`: who may talk to the exporter, in the Prometheus exporter-toolkit's format, so a file
 * written for blackbox_exporter works unchanged. `tls_server_config` serves HTTPS (certificate, client
 * certificates checked against a CA, TLS versions, cipher suites, curves), `basic_auth_users` asks for a
 * user and password checked against bcrypt hashes, `http_server_config.headers` adds the few security
 * headers the toolkit allows, `rate_limit` caps requests. The file is read at start (refused with the field
 * and the fix) and again with every config reload; a file that fails keeps the previous one in force.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { dirname, resolve } from 'node:path';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContextOptions, type TLSSocket } from 'node:tls';
import { z } from 'zod';
import { parseGoDuration, GO_DURATION_HINT } from '../config/duration';
import { ConfigError, configText, decodeConfigText } from '../config/load';
import { readProblem, readRegularFile, readRegularFileSync } from '../config/regular-file';
import { LineIndex } from '../config/yaml';
import { schemaProblems, type Problem } from '../contract/problems';
import { TLS12_CIPHER_SUITES, TLS13_CIPHER_SUITES } from '../probers/shared/go-tls';
import { ip16 } from '../probers/shared/ip-bytes';
import { bcryptCost, PasswordChecks, type CheckOutcome } from './password-checks';

const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
const TLS_VERSION_ORDER = Object.keys(TLS_VERSIONS);

const CURVES: Readonly<Record<string, string>> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' };

const CLIENT_AUTH_TYPES = ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'RequireClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'] as const;
type ClientAuthType = (typeof CLIENT_AUTH_TYPES)[number];

/** The only response headers the toolkit lets a web config set, with the values it allows (none listed: any). */
const ALLOWED_HEADERS: Readonly<Record<string, readonly string[] | undefined>> = {
  'Strict-Transport-Security': undefined,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': undefined,
  'Content-Security-Policy': undefined,
};

const oneOf = (names: readonly string[]): string => names.join(', ');

const webConfigSchema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert: z.string().optional(),
      key: z.string().optional(),
      client_ca: z.string().optional(),
      cert_file: z.string().optional(),
      key_file: z.string().optional(),
      client_auth_type: z.enum(CLIENT_AUTH_TYPES).optional(),
      client_ca_file: z.string().optional(),
      cipher_suites: z
        .array(
          z.string().refine((name) => name in TLS12_CIPHER_SUITES || TLS13_CIPHER_SUITES.includes(name), {
            message: `is not a cipher suite Go accepts; use one of ${oneOf([...Object.keys(TLS12_CIPHER_SUITES), ...TLS13_CIPHER_SUITES])}`,
          }),
        )
        .optional(),
      curve_preferences: z.array(z.enum(Object.keys(CURVES) as [string, ...string[]])).optional(),
      min_version: z.enum(TLS_VERSION_ORDER as [string, ...string[]]).default('TLS12'),
      max_version: z.enum(TLS_VERSION_ORDER as [string, ...string[]]).default('TLS13'),
      prefer_server_cipher_suites: z.boolean().default(true),
      client_allowed_sans: z.array(z.string()).optional(),
    })
    .optional(),
  http_server_config: z
    .strictObject({
      /** Accepted for compatibility: this exporter serves HTTP/1.1 only. */
      http2: z.boolean().default(true),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  rate_limit: z
    .strictObject({
      burst: z.number().int().nonnegative().default(0),
      interval: z
        .string()
        .refine((text) => parseGoDuration(text) !== undefined, { message: `must be ${GO_DURATION_HINT}` })
        .optional(),
    })
    .optional(),
  basic_auth_users: z.record(z.string(), z.string()).optional(),
});

type WebConfigFile = z.output<typeof webConfigSchema>;

/** What the TLS listener needs, read and checked: the context options and how client certificates are treated. */
export interface WebTls {
  readonly context: SecureContextOptions;
  /** Ask the client for a certificate. */
  readonly requestCert: boolean;
  /** Refuse in the handshake a certificate the CA did not sign (and a missing one). */
  readonly rejectUnauthorized: boolean;
  /** After the handshake: a client without a certificate is refused. */
  readonly requireCertificate: boolean;
  /** After the handshake: a certificate given must be one the CA signed. */
  readonly verifyGiven: boolean;
  /** When set, a client certificate must name one of these (DNS, e-mail, IP or URI). */
  readonly allowedSans?: readonly string[];
  /** The files the context was read from, to notice a renewed certificate. */
  readonly files: readonly string[];
}

/** A web config file, loaded: what the server applies to every connection and request. */
export interface WebConfig {
  readonly file: string;
  readonly tls?: WebTls;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** User name → bcrypt hash; empty: no authentication. */
  readonly users: ReadonlyMap<string, string>;
  readonly rateLimit?: { readonly burst: number; readonly intervalMs: number };
}

/** A bcrypt hash as Go's bcrypt.Cost reads it: version 2, 2a, 2b or 2y, a two-digit cost from 4 to 31, 53 characters of salt and hash. */
function bcryptProblem(hash: string): string | undefined {
  const match = /^\$2[abxy]?\$(\d\d)\$[./A-Za-z0-9]{53}$/.exec(hash);
  if (!match) return 'is not a bcrypt hash; write the hash (htpasswd -nBC 10 USER, or python3 -c "import bcrypt; print(bcrypt.hashpw(b\'PASSWORD\', bcrypt.gensalt()).decode())"), never the password';
  const cost = Number(match[1]);
  if (cost < 4 || cost > 31) return `has bcrypt cost ${cost}; use a cost from 4 to 31 (10 is usual)`;
  return undefined;
}

/** Reads a PEM file the web config names; a problem at `field` when it cannot. */
function readPem(path: string, field: string, problems: Problem[]): string | undefined {
  try {
    return readRegularFileSync(path).toString('utf8');
  } catch (error) {
    problems.push({
      path: ['tls_server_config', field],
      message: `cannot read ${path}: ${readProblem(error)}; give a readable PEM file (relative paths are taken from the web config file's directory)`,
    });
    return undefined;
  }
}

function compileTls(config: NonNullable<WebConfigFile['tls_server_config']>, directory: string, problems: Problem[]): WebTls | undefined {
  const path = (file: string): string => resolve(directory, file);
  const field = (name: string): Problem['path'] => ['tls_server_config', name];
  const before = problems.length;
  if (!config.cert_file && !config.cert) problems.push({ path: field('cert_file'), message: 'is missing: TLS needs the server certificate; set cert_file (or cert)' });
  if (!config.key_file && !config.key) problems.push({ path: field('key_file'), message: 'is missing: TLS needs the private key of the certificate; set key_file (or key)' });
  const clientAuth: ClientAuthType = config.client_auth_type ?? 'NoClientCert';
  const hasClientCa = Boolean(config.client_ca_file || config.client_ca);
  if (hasClientCa && clientAuth === 'NoClientCert') {
    problems.push({
      path: field('client_auth_type'),
      message: 'is NoClientCert while a client CA is set: set client_auth_type to RequireAndVerifyClientCert (or VerifyClientCertIfGiven), or drop the client CA',
    });
  }
  if ((clientAuth === 'RequireAndVerifyClientCert' || clientAuth === 'VerifyClientCertIfGiven') && !hasClientCa) {
    problems.push({ path: field('client_ca_file'), message: `is missing: client_auth_type ${clientAuth} checks client certificates against it; set client_ca_file` });
  }
  if (TLS_VERSION_ORDER.indexOf(config.min_version) > TLS_VERSION_ORDER.indexOf(config.max_version)) {
    problems.push({ path: field('max_version'), message: `is ${config.max_version}, below min_version ${config.min_version}; raise max_version or lower min_version` });
  }
  if (problems.length > before) return undefined;

  const files: string[] = [];
  const pem = (file: string | undefined, text: string | undefined, name: string): string | undefined => {
    if (!file) return text;
    files.push(path(file));
    return readPem(path(file), name, problems);
  };
  const cert = pem(config.cert_file, config.cert, 'cert_file');
  const key = pem(config.key_file, config.key, 'key_file');
  const ca = hasClientCa ? pem(config.client_ca_file, config.client_ca, 'client_ca_file') : undefined;
  if (cert === undefined || key === undefined || (hasClientCa && ca === undefined)) return undefined;

  const tls12Suites = (config.cipher_suites ?? []).filter((name) => name in TLS12_CIPHER_SUITES).map((name) => TLS12_CIPHER_SUITES[name]);
  const context: SecureContextOptions = {
    cert,
    key,
    ca,
    minVersion: TLS_VERSIONS[config.min_version as keyof typeof TLS_VERSIONS],
    maxVersion: TLS_VERSIONS[config.max_version as keyof typeof TLS_VERSIONS],
    honorCipherOrder: config.prefer_server_cipher_suites,
    // As in Go, the list limits TLS 1.2 and older; TLS 1.3 keeps its three suites.
    ciphers: tls12Suites.length > 0 ? [...TLS13_CIPHER_SUITES, ...tls12Suites].join(':') : undefined,
    ecdhCurve: config.curve_preferences?.map((curve) => CURVES[curve]).join(':'),
  };
  try {
    createSecureContext(context);
  } catch (error) {
    problems.push({
      path: field(config.key_file ? 'key_file' : 'key'),
      message: `the certificate and key do not make a TLS identity (${(error as Error).message}); give the key that belongs to the certificate, both in PEM`,
    });
    return undefined;
  }
  if (ca !== undefined) {
    try {
      new X509Certificate(ca);
    } catch {
      problems.push({ path: field(config.client_ca_file ? 'client_ca_file' : 'client_ca'), message: 'holds no PEM certificate; give the CA that signs the client certificates' });
      return undefined;
    }
  }
  return {
    context,
    requestCert: clientAuth !== 'NoClientCert',
    rejectUnauthorized: clientAuth === 'RequireAndVerifyClientCert',
    requireCertificate: clientAuth === 'RequireAnyClientCert' || clientAuth === 'RequireClientCert' || clientAuth === 'RequireAndVerifyClientCert',
    verifyGiven: clientAuth === 'VerifyClientCertIfGiven' || clientAuth === 'RequireAndVerifyClientCert',
    allowedSans: config.client_allowed_sans,
    files,
  };
}

/** Checks what the schema cannot see and reads the files; problems name the field and the fix. */
function compileWebConfig(config: WebConfigFile, file: string, problems: Problem[]): WebConfig {
  const tlsSection = config.tls_server_config;
  const tlsEnabled = Boolean(
    tlsSection && (tlsSection.cert_file || tlsSection.cert || tlsSection.key_file || tlsSection.key || tlsSection.client_ca_file || tlsSection.client_ca || tlsSection.client_auth_type),
  );
  const tls = tlsSection && tlsEnabled ? compileTls(tlsSection, dirname(resolve(file)), problems) : undefined;
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(config.http_server_config?.headers ?? {})) {
    const path = ['http_server_config', 'headers', name];
    if (!Object.hasOwn(ALLOWED_HEADERS, name)) problems.push({ path, message: `cannot be configured; the headers a web config may set are ${oneOf(Object.keys(ALLOWED_HEADERS))}` });
    else if (ALLOWED_HEADERS[name] && !ALLOWED_HEADERS[name]!.includes(value)) problems.push({ path, message: `must be one of ${oneOf(ALLOWED_HEADERS[name]!)}` });
    else headers.push([name, value]);
  }
  const users = new Map<string, string>();
  for (const [user, hash] of Object.entries(config.basic_auth_users ?? {})) {
    const problem = bcryptProblem(hash);
    // The hash is not repeated in the message: it is a secret of a kind.
    if (problem) problems.push({ path: ['basic_auth_users', user], message: problem });
    else users.set(user, hash);
  }
  const interval = config.rate_limit?.interval === undefined ? 0 : parseGoDuration(config.rate_limit.interval)!;
  return { file, tls, headers, users, rateLimit: interval > 0 ? { burst: config.rate_limit!.burst, intervalMs: interval } : undefined };
}

/** Parses web config text; `file` names it in messages and anchors relative paths. Throws ConfigError. */
export function parseWebConfig(text: string, file: string): WebConfig {
  const { decoded, located } = decodeConfigText(text, new LineIndex(text), file, webConfigSchema);
  const parsed = webConfigSchema.safeParse(decoded ?? {}, { reportInput: true });
  if (!parsed.success) throw new ConfigError(file, located(schemaProblems(webConfigSchema, parsed.error.issues)));
  const problems: Problem[] = [];
  const config = compileWebConfig(parsed.data, file, problems);
  if (problems.length > 0) throw new ConfigError(file, located(problems));
  return config;
}

export async function loadWebConfig(file: string): Promise<WebConfig> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(file);
  } catch (error) {
    throw new ConfigError(file, [{ path: [], message: `cannot read the web config file: ${readProblem(error)}` }]);
  }
  return parseWebConfig(configText(bytes, file), file);
}

/** Stands in for an unknown user's hash (of a password nobody sends), so that a wrong name costs as long as a wrong password. */
const UNKNOWN_USER_HASH = '$2b$10$hn18TNOnngk4xpWxcBwT0uLbdBQQsqQFy7HiWE5l2aSYWvCmBQAC6';
/**
 * Passwords that matched, remembered (as digests), as the toolkit remembers its answers: a scraper sends the
 * same credentials every few seconds. Only matches: wrong passwords sent by the thousand must not push a
 * scraper's out.
 */
const AUTH_CACHE_SIZE = 100;

/** Why the client certificate of `socket` is refused under `tls`, or undefined when it is accepted. */
export function clientCertificateRefusal(tls: WebTls, socket: TLSSocket): string | undefined {
  const certificate = socket.getPeerCertificate();
  const given = certificate !== null && Object.keys(certificate).length > 0;
  if (!given) return tls.requireCertificate ? 'no client certificate' : undefined;
  if (tls.verifyGiven && !socket.authorized) return `client certificate not trusted: ${String(socket.authorizationError)}`;
  if (tls.allowedSans && !certificateNames(certificate.subjectaltname ?? '').some((name) => tls.allowedSans!.some((allowed) => sanMatches(name, allowed)))) {
    return 'client certificate names none of client_allowed_sans';
  }
  return undefined;
}

/** A certificate's subject alternative names as Node writes them (`DNS:a, IP Address:0:0:0:0:0:0:0:1, URI:"u,v"`). */
function certificateNames(subjectAltName: string): Array<{ readonly type: string; readonly value: string }> {
  const names: Array<{ type: string; value: string }> = [];
  // A value holding a comma or quote is written as a JSON string.
  const entry = /([^:,]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g;
  for (let match = entry.exec(subjectAltName); match && match[0] !== ''; match = entry.exec(subjectAltName)) {
    const raw = match[2];
    names.push({ type: match[1], value: raw.startsWith('"') ? (JSON.parse(raw) as string) : raw });
  }
  return names;
}

/**
 * Whether a certificate's name is the allowed one. An IP SAN is compared as an address, as Go compares the
 * address it parsed: Node writes ::1 as 0:0:0:0:0:0:0:1, and ::ffff:127.0.0.1 is 127.0.0.1. Other names
 * are compared as text, as the toolkit does.
 */
function sanMatches(name: { readonly type: string; readonly value: string }, allowed: string): boolean {
  if (name.type !== 'IP Address') return name.value === allowed;
  if (isIP(name.value) === 0 || isIP(allowed) === 0 || allowed.includes('%')) return false;
  const [a, b] = [ip16(name.value), ip16(allowed)];
  return a.every((byte, index) => byte === b[index]);
}

/**
 * The web config in force, applied to each request: the rate limit, the headers, basic auth. `reload`
 * swaps in a newly loaded file; TLS cannot be switched on or off without a restart, as the listener's kind
 * changes.
 */
export class WebGate {
  private authCache = new Set<string>();
  private readonly checks = new PasswordChecks();
  private tokens = 0;
  private refilledAt = Date.now();
  private server?: HttpsServer;
  private watchedStamp = '';
  private watcher?: NodeJS.Timeout;

  constructor(
    private current: WebConfig,
    /** Told when a password check ran past its limit: the user and the bcrypt cost of their hash. */
    private readonly onAbandoned: (user: string, cost: number) => void = () => undefined,
  ) {
    this.tokens = current.rateLimit?.burst ?? 0;
  }

  /** Ends the password checks' worker. */
  close(): Promise<void> {
    return this.checks.stop();
  }

  get tls(): WebTls | undefined {
    return this.current.tls;
  }

  /** Problems that keep `next` from replacing the config in force; empty when it may. */
  replacementProblems(next: WebConfig): Problem[] {
    if (Boolean(next.tls) === Boolean(this.current.tls)) return [];
    return [{ path: ['tls_server_config'], message: `${next.tls ? 'turns TLS on' : 'turns TLS off'}, which takes a restart of the exporter; restart it, or reload with TLS as it was` }];
  }

  replace(next: WebConfig): void {
    this.current = next;
    this.authCache = new Set();
    this.tokens = Math.min(this.tokens, next.rateLimit?.burst ?? 0);
    if (this.server && next.tls) this.applyTls(this.server, next.tls);
  }

  /**
   * Applies the TLS settings to `server` and, as the toolkit reads its certificate on every handshake,
   * looks every `checkMs` for renewed certificate files (cert-manager renews them in place) and applies them.
   */
  attach(server: HttpsServer, onError: (error: Error) => void, checkMs = 10_000): void {
    this.server = server;
    server.on('secureConnection', (socket: TLSSocket) => {
      const tls = this.current.tls;
      const refusal = tls && clientCertificateRefusal(tls, socket);
      if (refusal) socket.destroy();
    });
    this.watchedStamp = this.stamp();
    this.watcher = setInterval(() => {
      const stamp = this.stamp();
      if (stamp === this.watchedStamp) return;
      this.watchedStamp = stamp;
      try {
        this.replace(parseWebConfig(configText(readRegularFileSync(this.current.file), this.current.file), this.current.file));
      } catch (error) {
        onError(error as Error);
      }
    }, checkMs).unref();
    server.once('close', () => clearInterval(this.watcher));
  }

  private stamp(): string {
    return (this.current.tls?.files ?? [])
      .map((file) => {
        try {
          const stats = statSync(file);
          return `${stats.mtimeMs}:${stats.size}:${stats.ino}`;
        } catch {
          return 'missing';
        }
      })
      .join('|');
  }

  private applyTls(server: HttpsServer, tls: WebTls): void {
    server.setSecureContext(tls.context);
    // Read by Node for each new connection.
    Object.assign(server, { requestCert: tls.requestCert, rejectUnauthorized: tls.rejectUnauthorized });
  }

  /** True when the request may go on; otherwise the answer (429 or 401) has been sent. */
  async admit(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const { rateLimit, headers, users } = this.current;
    if (rateLimit && !this.takeToken(rateLimit)) {
      response.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('Too Many Requests\n');
      return false;
    }
    for (const [name, value] of headers) response.setHeader(name, value);
    if (users.size === 0) return true;
    const credentials = basicCredentials(request.headers.authorization);
    const outcome = credentials ? await this.checkPassword(users, credentials.user, credentials.password) : 'mismatch';
    if (outcome === 'match') return true;
    if (outcome === 'busy') {
      response.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('Too Many Requests: too many passwords wait to be checked; retry\n');
      return false;
    }
    response.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Basic' });
    response.end('Unauthorized\n');
    return false;
  }

  private takeToken(limit: { burst: number; intervalMs: number }): boolean {
    const now = Date.now();
    this.tokens = Math.min(limit.burst, this.tokens + (now - this.refilledAt) / limit.intervalMs);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Checks off this thread (./password-checks.ts); an unknown user is checked against a stand-in hash, so a wrong name costs as long as a wrong password. */
  private async checkPassword(users: ReadonlyMap<string, string>, user: string, password: string): Promise<CheckOutcome> {
    const hash = users.get(user);
    // The key is a digest: the cache must not keep passwords in memory in clear.
    const key = createHash('sha256')
      .update(JSON.stringify([user, hash ?? '', password]))
      .digest('base64');
    if (this.authCache.has(key)) return 'match';
    const outcome = await this.checks.check(password, hash ?? UNKNOWN_USER_HASH);
    if (outcome === 'abandoned') this.onAbandoned(user, bcryptCost(hash ?? UNKNOWN_USER_HASH));
    if (outcome !== 'match' || hash === undefined) return outcome === 'match' ? 'mismatch' : outcome;
    if (this.authCache.size >= AUTH_CACHE_SIZE) this.authCache.delete(this.authCache.values().next().value!);
    this.authCache.add(key);
    return 'match';
  }
}

/** User and password of an `Authorization: Basic …` header, as Go's Request.BasicAuth reads it. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^basic (.*)$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
