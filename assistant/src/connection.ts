/**
 * How probekit reaches a search engine: one place that builds the official client from a URL, the credentials
 * and the TLS choice, and one place that turns every failure into a single line a user can act on.
 */
import { readFileSync } from 'node:fs';
import { Client, errors, SniffingTransport, type TransportOptions } from '@elastic/elasticsearch';

export interface SearchEngineTls {
  /** Skip certificate verification (the documented example invocation does); the CLI warns when it is set. @default false */
  readonly insecure?: boolean;
  /** PEM file of the CA that signed the engine's certificate, for a private CA. */
  readonly caFile?: string;
  /** The same CA as PEM text, for callers that hold it in memory (a Pulumi config value, a test). */
  readonly ca?: string;
}

export type SearchEngineCredentials =
  | { readonly username: string; readonly password: string }
  /** The `encoded` value of an API key, presented as `Authorization: ApiKey <encoded>`. */
  | { readonly apiToken: string };

export interface SearchEngineConnection {
  readonly url: string;
  readonly tls?: SearchEngineTls;
  /** Time to wait for one answer. @default 10000 */
  readonly timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

export type SearchEngineFailure =
  | 'unauthorized'
  | 'forbidden'
  | 'bad-request'
  | 'not-found'
  | 'server-error'
  | 'connection-refused'
  | 'unresolved-host'
  | 'tls'
  | 'timeout'
  | 'not-elasticsearch'
  | 'unsupported-version'
  | 'connection'
  | 'bad-input';

/** A failure talking to the search engine, with a message of one line that never holds a credential. */
export class SearchEngineError extends Error {
  constructor(
    readonly failure: SearchEngineFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'SearchEngineError';
  }
}

/** The URL as it may be shown: without any user name or password written into it. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Why `url` cannot be a search engine's address, with the fix; undefined when it can. A fix that repeats the URL
 * is given only for one without credentials (an `@` in it), so that no password is ever echoed.
 */
export function urlProblem(url: string): string | undefined {
  const credentials = 'holds credentials; pass them separately (--username with --password-env/--password-file, or the API token)';
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) {
    if (url.includes('@')) return credentials;
    return url === '' ? "is empty; give the engine's address, e.g. https://elasticsearch.example:9200" : `not a URL; write https://${url}`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a URL; give the engine's address, e.g. https://elasticsearch.example:9200";
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `protocol ${parsed.protocol} is not supported; use https:// (or http:// for an engine without TLS)`;
  }
  return parsed.username || parsed.password ? credentials : undefined;
}

function checkedUrl(url: string): URL {
  const problem = urlProblem(url);
  if (problem !== undefined) throw new SearchEngineError('bad-input', `url: ${problem}`);
  return new URL(url);
}

function readCa(tls: SearchEngineTls | undefined): string | undefined {
  if (tls?.ca !== undefined) return tls.ca;
  if (tls?.caFile === undefined) return undefined;
  try {
    return readFileSync(tls.caFile, 'utf8');
  } catch (error) {
    throw new SearchEngineError('bad-input', `ca-file: cannot read ${tls.caFile} (${(error as NodeJS.ErrnoException).code ?? 'error'}); give the PEM file of the engine's CA`);
  }
}

/** The major of Elasticsearch's REST API the official client (@elastic/elasticsearch 9) is written for. */
export const CLIENT_API_MAJOR = 9;

/** The Elasticsearch versions probekit supports, as the docs and messages name them. */
export const SUPPORTED_VERSIONS = '7.17, 8.x and 9.x';

export interface EngineVersion {
  /** As the engine reports it (`8.19.4`). */
  readonly number: string;
  readonly major: number;
  readonly minor: number;
}

/**
 * The media types a request is sent with. For a known server major, Elasticsearch's vendored types with
 * `compatible-with` set to the REST API that server speaks (7, 8 or 9; a later major is asked for 9, which it takes
 * as its previous one): each server refuses a version it does not know, and a request whose Accept and
 * Content-Type name different versions. For an unknown one, plain JSON, which every version takes as its own API.
 */
export function mediaTypes(major: number | undefined): NonNullable<TransportOptions['vendoredHeaders']> {
  if (major === undefined) return { jsonContentType: 'application/json', ndjsonContentType: 'application/x-ndjson', accept: 'application/json, text/plain' };
  const version = Math.min(major, CLIENT_API_MAJOR);
  return {
    jsonContentType: `application/vnd.elasticsearch+json; compatible-with=${version}`,
    ndjsonContentType: `application/vnd.elasticsearch+x-ndjson; compatible-with=${version}`,
    accept: `application/vnd.elasticsearch+json; compatible-with=${version},text/plain`,
  };
}

/** The client's own transport, with the media types of one server instead of the client's fixed version 9. */
function transportFor(major: number | undefined): typeof SniffingTransport {
  const vendoredHeaders = mediaTypes(major);
  return class extends SniffingTransport {
    constructor(options: TransportOptions) {
      super({ ...options, vendoredHeaders });
    }
  };
}

/**
 * The official client for one engine; no retries, so that a failure is reported once and at once. `major` is the
 * server's major version when known (see connectSearchEngine); without it, requests are plain JSON.
 */
export function createSearchClient(connection: SearchEngineConnection, credentials: SearchEngineCredentials, major?: number): Client {
  const url = checkedUrl(connection.url);
  const ca = readCa(connection.tls);
  return new Client({
    node: url.toString(),
    auth: 'apiToken' in credentials ? { apiKey: credentials.apiToken } : { username: credentials.username, password: credentials.password },
    tls: { rejectUnauthorized: !(connection.tls?.insecure ?? false), ...(ca === undefined ? {} : { ca }) },
    maxRetries: 0,
    requestTimeout: connection.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    Transport: transportFor(major),
  });
}

export interface SearchEngine {
  /** The client, speaking the server's REST API version. */
  readonly client: Client;
  /** The server's version; undefined when the credentials may not read it (no `monitor` cluster privilege). */
  readonly version?: EngineVersion;
  readonly url: string;
}

/** `8.19.4` as numbers; undefined for what is not a version. */
export function parseEngineVersion(number: string): EngineVersion | undefined {
  const match = /^(\d+)\.(\d+)/.exec(number);
  return match ? { number, major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

/** Why a version cannot be served, or undefined. */
export function versionProblem(version: EngineVersion): string | undefined {
  const supported = version.major > 7 || (version.major === 7 && version.minor >= 17);
  return supported ? undefined : `Elasticsearch ${version.number}, which probekit does not support (it supports ${SUPPORTED_VERSIONS}); upgrade the engine`;
}

/**
 * A client for one engine that speaks its version: `GET /` (in plain JSON, which every version takes) reads the
 * version, then the client is made for it. Credentials that may not read it (403) get a plain-JSON client.
 */
export async function connectSearchEngine(connection: SearchEngineConnection, credentials: SearchEngineCredentials, doing = 'connecting'): Promise<SearchEngine> {
  const probe = createSearchClient(connection, credentials);
  let version: EngineVersion | undefined;
  try {
    const info = await probe.info();
    version = parseEngineVersion(info.version.number);
  } catch (error) {
    const failure = describeFailure(error, connection.url, doing, 'apiToken' in credentials ? 'API token' : 'user name and password');
    if (failure.failure !== 'forbidden') throw failure;
  } finally {
    await probe.close();
  }
  if (version !== undefined) {
    const problem = versionProblem(version);
    if (problem !== undefined) throw new SearchEngineError('unsupported-version', `${doing} failed: ${displayUrl(connection.url)} runs ${problem}`);
  }
  return { client: createSearchClient(connection, credentials, version?.major), url: connection.url, ...(version ? { version } : {}) };
}

interface ElasticsearchErrorCause {
  type?: string;
  reason?: string;
  caused_by?: ElasticsearchErrorCause;
}

interface ElasticsearchErrorBody {
  error?: (ElasticsearchErrorCause & { root_cause?: ElasticsearchErrorCause[] }) | string;
  status?: number;
}

/** "type: reason" of Elasticsearch's error body, the root cause first when it says more. */
export function errorBodyReason(body: unknown): string | undefined {
  const error = (body as ElasticsearchErrorBody | undefined)?.error;
  if (typeof error === 'string') return error;
  if (error === undefined || error === null) return undefined;
  const cause = error.root_cause?.[0] ?? error;
  const main = cause.reason === undefined ? cause.type : cause.type === undefined ? cause.reason : `${cause.type}: ${cause.reason}`;
  const deeper = error.caused_by?.reason;
  return deeper === undefined ? main : `${main} (caused by: ${deeper})`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Turns what the client threw into a SearchEngineError. `doing` names the operation ("creating the API key");
 * `credentialHint` says which credential to check after a 401. Messages are built from our own words, the status
 * and Elasticsearch's error reason, never from request metadata, so no credential can leak into them.
 */
export function describeFailure(error: unknown, url: string, doing: string, credentialHint: string): SearchEngineError {
  if (error instanceof SearchEngineError) return error;
  const where = displayUrl(url);
  if (error instanceof errors.ResponseError) {
    const status = error.statusCode ?? 0;
    const reason = errorBodyReason(error.body);
    const detail = reason === undefined ? '' : `: ${oneLine(reason)}`;
    if (status === 401) return new SearchEngineError('unauthorized', `${doing} failed: ${where} did not accept the ${credentialHint} (401)${detail}`, status);
    if (status === 403) return new SearchEngineError('forbidden', `${doing} failed: ${where} refused it to these credentials (403)${detail}`, status);
    if (status === 400) return new SearchEngineError('bad-request', `${doing} failed: ${where} rejected the request (400)${detail}`, status);
    if (status === 404) return new SearchEngineError('not-found', `${doing} failed: ${where} has no such resource (404)${detail}`, status);
    return new SearchEngineError('server-error', `${doing} failed: ${where} answered ${status}${detail}`, status);
  }
  if (error instanceof errors.TimeoutError) {
    return new SearchEngineError('timeout', `${doing} failed: no answer from ${where} in time (timeout); check that the engine is up and reachable from here`);
  }
  if (error instanceof errors.ProductNotSupportedError) {
    return new SearchEngineError(
      'not-elasticsearch',
      `${doing} failed: ${where} does not answer as Elasticsearch 7.14 or later (no x-elastic-product header); check the URL (probekit supports ${SUPPORTED_VERSIONS})`,
    );
  }
  if (error instanceof errors.ConnectionError) {
    const message = error.message;
    if (/ECONNREFUSED/.test(message)) {
      return new SearchEngineError('connection-refused', `${doing} failed: connection to ${where} refused; check the URL and port and that the engine is running`);
    }
    if (/ENOTFOUND|EAI_AGAIN/.test(message)) {
      return new SearchEngineError('unresolved-host', `${doing} failed: the host of ${where} does not resolve; check the URL`);
    }
    if (/certificate|self[- ]signed|altname|SSL|TLS|CERT_|handshake/i.test(message)) {
      return new SearchEngineError(
        'tls',
        `${doing} failed: TLS verification of ${where} failed (${oneLine(message.split(' - Local:')[0])}); give the engine's CA with --ca-file, or --insecure to skip verification`,
      );
    }
    if (/timed? ?out|ETIMEDOUT/i.test(message)) {
      return new SearchEngineError('timeout', `${doing} failed: no answer from ${where} in time (timeout); check that the engine is up and reachable from here`);
    }
    return new SearchEngineError('connection', `${doing} failed: cannot talk to ${where} (${oneLine(message.split(' - Local:')[0])})`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SearchEngineError('connection', `${doing} failed: ${oneLine(message)}`);
}
