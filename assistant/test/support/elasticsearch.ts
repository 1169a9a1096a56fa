/**
 * A contract server for Elasticsearch's REST API. No real Elasticsearch can run here (no JVM, no network to fetch
 * it), so the tests talk to this HTTPS server on loopback instead, set to answer as 7.17, 8.x or 9.x does. It
 * refuses what the real versions refuse, and computes what they compute:
 * - Media types: `Accept`/`Content-Type` with `compatible-with=N` are checked as each major checks them (9.x takes
 *   8 and 9, 8.x takes 7 and 8, 7.17 takes 7; with a body, both headers must name the same version or neither; a
 *   header listing several types is a media range and counts as none), refused with `media_type_header_exception`.
 * - Security: basic and `ApiKey` authentication, API keys limited by their owner, privileges per index or data
 *   stream (a data stream's privileges cover its backing indices), `_has_privileges`, key creation with
 *   `expiration` and `metadata`.
 * - Indices and data streams: hidden `.ds-` backing indices, `_data_stream`, `_cat/indices`, `_mapping` (field
 *   aliases), `_field_caps` (type conflicts, unmapped indices).
 * - Search (elasticsearch-contract/): unknown keys refused (`parsing_exception`), one shard per index, text fields
 *   refused in aggregations and sorts (field data), unmapped sort fields failing unless `unmapped_type` is given,
 *   partial results with `_shards.failures`, timed-out shards, `search_after`, date math and time zones in range
 *   queries and date histograms, and the aggregations terms, date_histogram, filters, filter, top_hits, min, max,
 *   cardinality and value_count computed over every matching document.
 * It records every request so that tests can assert exactly what was sent.
 *
 * Sources checked for these behaviours (read, not copied):
 * - github.com/elastic/elasticsearch server/src/main/java/org/elasticsearch/rest/RestCompatibleVersionHelper.java
 *   (the version rules and their messages), libs/core/src/main/java/org/elasticsearch/core/RestApiVersion.java
 *   (9.x: current 9, minimum 8; 8.x: current 8, minimum 7; 7.x knows no version before 7),
 *   libs/x-content/.../ParsedMediaType.java (a header with a comma is a media range and is ignored),
 *   server/.../rest/RestRequest.java (MediaTypeHeaderException: "Invalid media-type value on headers [...]").
 * - x-pack/plugin/ml/src/main/java/org/elasticsearch/xpack/ml/MachineLearning.java: the `categorize_text`
 *   aggregation is licensed PLATINUM, so it is not available under the basic licence and probekit does not use it.
 * - elastic.co/guide/en/elasticsearch/reference/current/query-dsl-range-query.html (date math rounding of gt, gte,
 *   lt, lte; time_zone), .../search-aggregations-bucket-datehistogram-aggregation.html (calendar and fixed
 *   intervals, time_zone, extended_bounds), .../paginate-search-results.html (search_after),
 *   .../sort-search-results.html (unmapped_type), .../field-alias.html, .../search-field-caps.html,
 *   .../data-streams.html and indices-get-data-stream.html, .../security-api-create-api-key.html (expiration,
 *   metadata), .../rest-api-compatibility.html, .../mapping-index-field.html (`_index` in queries, aggregations, sorts).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeTlsPem, type TlsPem } from '../../../exporter/loopback/tls-fixtures';
import { ContractError, isObject } from './elasticsearch-contract/errors';
import { IndexMapping, TEXT_TYPES, type StoredDoc } from './elasticsearch-contract/fields';
import { count, search, type Shard } from './elasticsearch-contract/search';

export { sourceValue } from './elasticsearch-contract/fields';

/** The versions the tests run against, one per supported major. */
export const CONTRACT_VERSIONS = ['7.17.29', '8.19.4', '9.1.4'] as const;
export type ContractVersion = (typeof CONTRACT_VERSIONS)[number] | string;

export interface ContractRole {
  readonly cluster: readonly string[];
  readonly index: readonly { readonly names: readonly string[]; readonly privileges: readonly string[] }[];
}

export interface ContractUser {
  readonly password: string;
  /** Role name to its privileges. */
  readonly roles: Readonly<Record<string, ContractRole>>;
}

export interface ContractIndex {
  /** The `mappings` object of the index (`{ properties: ... }`). */
  readonly mappings: { readonly properties: Record<string, unknown> };
  readonly documents: readonly Record<string, unknown>[];
  /** @default 'green' */
  readonly health?: 'green' | 'yellow' | 'red';
}

export interface ContractDataStream {
  /** Backing indices, oldest first; each becomes `.ds-<name>-<created>-<generation>`. */
  readonly generations: readonly (ContractIndex & { readonly created: string })[];
  /** @default '@timestamp' */
  readonly timestampField?: string;
}

export interface ContractApiKey {
  readonly id: string;
  readonly name: string;
  readonly apiKey: string;
  readonly owner: string;
  readonly roleDescriptors: Readonly<Record<string, ContractRole>>;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly creation: number;
  readonly expiration?: number;
  invalidated: boolean;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body parsed, or undefined when there was none. */
  readonly body: unknown;
}

export interface ContractResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export interface ContractElasticsearchOptions {
  /** The version `GET /` reports, which also decides the media types accepted. @default the 9.x of CONTRACT_VERSIONS */
  readonly version?: ContractVersion;
  readonly users?: Readonly<Record<string, ContractUser>>;
  readonly indices?: Readonly<Record<string, ContractIndex>>;
  readonly dataStreams?: Readonly<Record<string, ContractDataStream>>;
  /** Indices whose shard fails every search with this cause (a node gone, a breaker tripped). */
  readonly shardFailures?: Readonly<Record<string, { readonly type: string; readonly reason: string }>>;
  /** Indices whose shard hits the cluster's search timeout: they answer nothing and the response says `timed_out`. */
  readonly timedOutIndices?: readonly string[];
  /** The server's clock, for `now` in date math. @default Date.now */
  readonly now?: () => number;
  /** Hold every answer this long (to test client timeouts). @default 0 */
  readonly delayMs?: number;
  /** Answer without the product header, as a server that is not Elasticsearch would. @default false */
  readonly notElasticsearch?: boolean;
  /** Answers instead of the contract when it returns something (for failures no contract rule produces). */
  readonly override?: (request: RecordedRequest) => ContractResponse | undefined;
  /** Reuse a CA across servers; one is made per server otherwise. */
  readonly pki?: TlsPem;
}

/** Cluster privileges and the ones they imply (Elasticsearch's built-in privilege hierarchy, the part we use). */
const CLUSTER_IMPLIES: Record<string, readonly string[]> = {
  all: ['monitor', 'manage', 'manage_security', 'manage_api_key', 'manage_own_api_key'],
  manage: ['monitor'],
  manage_security: ['manage_api_key', 'manage_own_api_key'],
  manage_api_key: ['manage_own_api_key'],
};
const INDEX_IMPLIES: Record<string, readonly string[]> = {
  all: ['read', 'view_index_metadata', 'monitor', 'manage', 'write'],
  manage: ['monitor', 'view_index_metadata'],
};
const KNOWN_CLUSTER_PRIVILEGES = new Set(['all', 'monitor', 'manage', 'manage_security', 'manage_api_key', 'manage_own_api_key', 'none']);
const KNOWN_INDEX_PRIVILEGES = new Set(['all', 'read', 'view_index_metadata', 'monitor', 'manage', 'write', 'none']);

type Principal =
  | { readonly kind: 'user'; readonly username: string; readonly user: ContractUser }
  | { readonly kind: 'api_key'; readonly username: string; readonly user: ContractUser; readonly key: ContractApiKey };

function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

function grants(held: readonly string[], wanted: string, implies: Record<string, readonly string[]>): boolean {
  return held.some((privilege) => privilege === wanted || (implies[privilege] ?? []).includes(wanted));
}

function rolesGrantCluster(roles: Iterable<ContractRole>, wanted: string): boolean {
  return [...roles].some((role) => grants(role.cluster, wanted, CLUSTER_IMPLIES));
}

/** Whether a set of roles grants `wanted` on any of `names`; a name may itself be a pattern (as in _has_privileges). */
function rolesGrantIndex(roles: Iterable<ContractRole>, names: readonly string[], wanted: string): boolean {
  return [...roles].some((role) =>
    role.index.some((entry) => entry.names.some((pattern) => names.some((name) => globToRegExp(pattern).test(name))) && grants(entry.privileges, wanted, INDEX_IMPLIES)),
  );
}

/** An API key may do what both its own role descriptors and its owner allow; with no descriptors, what the owner may. */
function principalRoleSets(principal: Principal): ContractRole[][] {
  const owner = Object.values(principal.user.roles);
  if (principal.kind === 'user') return [owner];
  const own = Object.values(principal.key.roleDescriptors);
  return own.length === 0 ? [owner] : [owner, own];
}

function hasCluster(principal: Principal, wanted: string): boolean {
  return principalRoleSets(principal).every((roles) => rolesGrantCluster(roles, wanted));
}

function describePrincipal(principal: Principal): string {
  return principal.kind === 'user'
    ? `user [${principal.username}] with effective roles [${Object.keys(principal.user.roles).join(',')}]`
    : `API key id [${principal.key.id}] of user [${principal.username}]`;
}

/** Elasticsearch reads a media type from a header this way (ParsedMediaType): several types are a range, ignored. */
function parseMediaType(header: string | undefined, name: string): { type: string; version?: number } | undefined {
  if (header === undefined || header === '' || header.includes(',') || header === '*/*') return undefined;
  const [essence, ...parameters] = header.toLowerCase().split(';');
  const parts = essence!.split('/');
  const invalid = () =>
    new ContractError(400, 'media_type_header_exception', `Invalid media-type value on headers [${name}]`, {
      caused_by: { type: 'illegal_argument_exception', reason: `invalid media-type [${header}]` },
    });
  if (parts.length !== 2 || !/^[\w!#$%&'*+.^`|~-]+$/.test(parts[0]!.trim()) || !/^[\w!#$%&'*+.^`|~-]+$/.test(parts[1]!.trim())) throw invalid();
  let version: number | undefined;
  for (const parameter of parameters) {
    const text = parameter.trim();
    if (text === '') continue;
    const [key, value, extra] = text.split('=');
    if (value === undefined || extra !== undefined || /\s$/.test(key!) || /^\s/.test(value)) throw invalid();
    if (key === 'compatible-with') {
      if (!/^\d+$/.test(value)) throw invalid();
      version = Number(value);
    }
  }
  return { type: `${parts[0]!.trim()}/${parts[1]!.trim()}`, ...(version === undefined ? {} : { version }) };
}

const BODY_TYPES = new Set(['application/json', 'application/vnd.elasticsearch+json', 'application/x-ndjson', 'application/vnd.elasticsearch+x-ndjson']);

interface ConcreteIndex {
  readonly name: string;
  readonly mapping: IndexMapping;
  readonly docs: StoredDoc[];
  readonly source: ContractIndex;
  readonly hidden: boolean;
  readonly dataStream?: string;
}

export class ContractElasticsearch {
  readonly requests: RecordedRequest[] = [];
  readonly apiKeys = new Map<string, ContractApiKey>();
  readonly pki: TlsPem;
  readonly version: string;
  private readonly major: number;
  private readonly server: Server;
  private readonly concrete = new Map<string, ConcreteIndex>();
  private readonly dataStreams = new Map<string, { readonly backing: string[]; readonly timestampField: string }>();
  private port = 0;

  private constructor(private readonly options: ContractElasticsearchOptions) {
    this.pki = options.pki ?? makeTlsPem();
    this.version = options.version ?? CONTRACT_VERSIONS[2];
    this.major = Number(this.version.split('.')[0]);
    for (const [name, index] of Object.entries(options.indices ?? {})) this.addIndex(name, index, name.startsWith('.'));
    for (const [name, stream] of Object.entries(options.dataStreams ?? {})) {
      const backing = stream.generations.map((generation, i) => {
        const backingName = `.ds-${name}-${generation.created}-${String(i + 1).padStart(6, '0')}`;
        this.addIndex(backingName, generation, true, name);
        return backingName;
      });
      this.dataStreams.set(name, { backing, timestampField: stream.timestampField ?? '@timestamp' });
    }
    this.server = createServer({ cert: this.pki.serverCert, key: this.pki.serverKey }, (req, res) => void this.handle(req, res));
  }

  private addIndex(name: string, index: ContractIndex, hidden: boolean, dataStream?: string): void {
    const mapping = new IndexMapping(index.mappings.properties);
    const docs = index.documents.map((source, ordinal) => ({ index: name, ordinal, id: `${name}-${ordinal + 1}`, source, mapping, cache: new Map<string, unknown[]>() }));
    this.concrete.set(name, { name, mapping, docs, source: index, hidden, ...(dataStream ? { dataStream } : {}) });
  }

  static async start(options: ContractElasticsearchOptions = {}): Promise<ContractElasticsearch> {
    const es = new ContractElasticsearch(options);
    await new Promise<void>((resolve) => es.server.listen(0, '127.0.0.1', resolve));
    es.port = (es.server.address() as AddressInfo).port;
    return es;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** The backing indices of a data stream, oldest first. */
  backingIndices(dataStream: string): readonly string[] {
    return this.dataStreams.get(dataStream)?.backing ?? [];
  }

  /** Adds a key as if created earlier; returns its `encoded` API token. */
  addApiKey(owner: string, name: string, roleDescriptors: Record<string, ContractRole>): { id: string; encoded: string } {
    const key = this.storeKey(owner, name, roleDescriptors, {}, undefined);
    return { id: key.id, encoded: Buffer.from(`${key.id}:${key.apiKey}`).toString('base64') };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private storeKey(owner: string, name: string, roleDescriptors: Record<string, ContractRole>, metadata: Record<string, unknown>, expiration: number | undefined): ContractApiKey {
    const key: ContractApiKey = {
      id: randomBytes(15).toString('base64url'),
      name,
      apiKey: randomBytes(16).toString('base64url'),
      owner,
      roleDescriptors,
      metadata,
      creation: Date.now(),
      ...(expiration === undefined ? {} : { expiration }),
      invalidated: false,
    };
    this.apiKeys.set(key.id, key);
    return key;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'https://localhost');
    let answer: ContractResponse;
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
    const request: RecordedRequest = { method: req.method ?? 'GET', path: decodeURIComponent(url.pathname), query: Object.fromEntries(url.searchParams), headers: req.headers, body };
    this.requests.push(request);
    let accept: { type: string; version?: number } | undefined;
    try {
      accept = this.checkMediaTypes(req.headers, text !== '');
      if (typeof body === 'string') throw new ContractError(400, 'x_content_parse_exception', '[1:1] Unexpected character: the body is not JSON');
      answer = this.options.override?.(request) ?? this.route(request);
    } catch (error) {
      if (!(error instanceof ContractError)) throw error;
      const { root_cause: rootCause, ...extra } = error.extra;
      const cause = { type: error.type, reason: error.message, ...extra };
      const body = error.status === 406 ? { error: error.message, status: 406 } : { error: { root_cause: rootCause ?? [{ type: error.type, reason: error.message }], ...cause }, status: error.status };
      answer = { status: error.status, body, headers: error.headers };
    }
    if (this.options.delayMs) await new Promise((resolve) => setTimeout(resolve, this.options.delayMs));
    if (res.destroyed) return;
    // The answer is in the media type asked for: the vendored type, with the version the request was served at.
    const vendored = accept?.type === 'application/vnd.elasticsearch+json';
    const headers: Record<string, string> = {
      'content-type': vendored ? `application/vnd.elasticsearch+json;compatible-with=${accept!.version ?? this.major}` : 'application/json',
      ...(this.options.notElasticsearch ? {} : { 'x-elastic-product': 'Elasticsearch' }),
      ...answer.headers,
    };
    res.writeHead(answer.status, headers);
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  }

  /** What RestRequest and RestCompatibleVersionHelper check before anything else, authentication included. */
  private checkMediaTypes(headers: IncomingHttpHeaders, hasContent: boolean): { type: string; version?: number } | undefined {
    const acceptHeader = headers.accept;
    const contentTypeHeader = headers['content-type'];
    const accept = parseMediaType(acceptHeader, 'Accept');
    const contentType = parseMediaType(contentTypeHeader, 'Content-Type');
    if (hasContent && (contentType === undefined || !BODY_TYPES.has(contentType.type))) {
      throw new ContractError(406, 'media_type_header_exception', `Content-Type header [${contentTypeHeader ?? ''}] is not supported`);
    }
    const current = this.major;
    // 7.x knows no REST API before its own; later majors also take the previous one.
    const minimum = current <= 7 ? current : current - 1;
    const acceptVersion = accept?.version ?? current;
    const contentVersion = contentType?.version ?? current;
    const refuse = (reason: string) =>
      new ContractError(400, 'media_type_header_exception', 'Invalid media-type value on headers [Accept, Content-Type]', { caused_by: { type: 'status_exception', reason } });
    if (acceptVersion > current || acceptVersion < minimum) {
      throw refuse(`Accept version must be either version ${current} or ${minimum}, but found ${acceptVersion}. Accept=${acceptHeader ?? ''}`);
    }
    if (hasContent) {
      if (contentVersion > current || contentVersion < minimum) {
        throw refuse(`Content-Type version must be either version ${current} or ${minimum}, but found ${contentVersion}. Content-Type=${contentTypeHeader ?? ''}`);
      }
      if (contentVersion !== acceptVersion) {
        throw refuse(
          `A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version and the compatible versions must match. Accept=${acceptHeader ?? ''}, Content-Type=${contentTypeHeader ?? ''}`,
        );
      }
      if ((contentType?.version === undefined) !== (accept?.version === undefined)) {
        throw refuse(
          `A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version. Accept=${acceptHeader ?? ''}, Content-Type=${contentTypeHeader ?? ''}`,
        );
      }
    }
    return accept;
  }

  private authenticate(request: RecordedRequest): Principal {
    const header = String(request.headers.authorization ?? '');
    const challenge = { 'www-authenticate': 'Basic realm="security", charset="UTF-8", ApiKey' };
    const extra = { header: { 'WWW-Authenticate': ['Basic realm="security", charset="UTF-8"', 'ApiKey'] } };
    const fail = (reason: string) => new ContractError(401, 'security_exception', reason, extra, challenge);
    const [scheme, credentials = ''] = header.split(' ');
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const [left, right] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
    if (scheme === 'Basic') {
      const user = this.options.users?.[left];
      if (!user || user.password !== right) throw fail(`unable to authenticate user [${left}] for REST request [${request.path}]`);
      return { kind: 'user', username: left, user };
    }
    if (scheme === 'ApiKey') {
      const key = this.apiKeys.get(left);
      const owner = key && this.options.users?.[key.owner];
      const expired = key?.expiration !== undefined && key.expiration <= Date.now();
      if (!key || !owner || key.apiKey !== right || key.invalidated || expired) {
        throw fail('unable to authenticate with provided credentials and anonymous access is not allowed for this request');
      }
      return { kind: 'api_key', username: key.owner, user: owner, key };
    }
    throw fail(`missing authentication credentials for REST request [${request.path}]`);
  }

  private requireCluster(principal: Principal, action: string, privilege: string, grantedBy: string): void {
    if (!hasCluster(principal, privilege)) {
      throw new ContractError(403, 'security_exception', `action [${action}] is unauthorized for ${describePrincipal(principal)}, this action is granted by the cluster privileges [${grantedBy}]`);
    }
  }

  /** Privileges on a backing index are those on it or on its data stream. */
  private hasIndex(principal: Principal, name: string, wanted: string): boolean {
    const dataStream = this.concrete.get(name)?.dataStream;
    const names = dataStream ? [name, dataStream] : [name];
    return principalRoleSets(principal).every((roles) => rolesGrantIndex(roles, names, wanted));
  }

  private route(request: RecordedRequest): ContractResponse {
    const principal = this.authenticate(request);
    const { method, path } = request;
    const parts = path.split('/').filter(Boolean);
    if (path === '/_security/api_key') {
      if (method === 'POST' || method === 'PUT') return this.createKey(principal, request.body);
      if (method === 'GET') return this.getKeys(principal, request.query);
      if (method === 'DELETE') return this.invalidateKeys(principal, request.body);
    }
    if (path === '/_security/_authenticate' && method === 'GET') return { status: 200, body: this.authenticateBody(principal) };
    if (path === '/_security/user/_has_privileges' && (method === 'GET' || method === 'POST')) return this.hasPrivileges(principal, request.body);
    if (path === '/' && method === 'GET') {
      this.requireCluster(principal, 'cluster:monitor/main', 'monitor', 'monitor,manage,all');
      return { status: 200, body: this.infoBody() };
    }
    if (parts[0] === '_cat' && parts[1] === 'indices' && method === 'GET') return this.catIndices(principal, parts[2], request.query);
    if (parts[0] === '_data_stream' && parts.length <= 2 && method === 'GET') return this.getDataStreams(principal, parts[1] ?? '*');
    if (parts.length === 2 && parts[1] === '_mapping' && method === 'GET') return this.mapping(principal, parts[0]!);
    if (parts.at(-1) === '_field_caps' && parts.length <= 2 && (method === 'GET' || method === 'POST'))
      return this.fieldCaps(principal, parts.length === 2 ? parts[0]! : '*', request.query, request.body);
    if (parts.length <= 2 && (parts.at(-1) === '_search' || parts.at(-1) === '_count') && (method === 'GET' || method === 'POST')) {
      const shards = this.shards(principal, parts.length === 2 ? parts[0]! : '*', 'indices:data/read/search', request.query);
      return { status: 200, body: parts.at(-1) === '_search' ? search(shards, request.body, this.now(), this.major) : count(shards, request.body, this.now()) };
    }
    throw new ContractError(405, 'illegal_argument_exception', `Incorrect HTTP method for uri [${path}] and method [${method}]`);
  }

  private infoBody(): Record<string, unknown> {
    const lucene = { 7: '8.11.3', 8: '9.12.2', 9: '10.2.2' }[this.major] ?? '10.2.2';
    return {
      name: 'contract-node-1',
      cluster_name: 'contract',
      cluster_uuid: 'contract-cluster',
      version: { number: this.version, build_flavor: 'default', build_type: 'docker', build_snapshot: false, lucene_version: lucene },
      tagline: 'You Know, for Search',
    };
  }

  private createKey(principal: Principal, body: unknown): ContractResponse {
    this.requireCluster(principal, 'cluster:admin/xpack/security/api_key/create', 'manage_own_api_key', 'manage_own_api_key,manage_api_key,manage_security,all');
    const request = (body ?? {}) as { name?: unknown; role_descriptors?: Record<string, Record<string, unknown>>; expiration?: unknown; metadata?: unknown };
    for (const field of Object.keys(request)) {
      if (!['name', 'role_descriptors', 'expiration', 'metadata'].includes(field)) {
        throw new ContractError(400, 'x_content_parse_exception', `[1:2] [api_key_request] unknown field [${field}]`);
      }
    }
    if (typeof request.name !== 'string' || request.name === '') {
      throw new ContractError(400, 'action_request_validation_exception', 'Validation Failed: 1: api key name is required;');
    }
    let expiration: number | undefined;
    if (request.expiration !== undefined) {
      const value = String(request.expiration);
      const match = /^\d+(nanos|micros|ms|s|m|h|d)$/.exec(value);
      if (!match) {
        throw new ContractError(400, 'x_content_parse_exception', '[1:1] [api_key_request] failed to parse field [expiration]', {
          caused_by: { type: 'illegal_argument_exception', reason: `failed to parse setting [expiration] with value [${value}] as a time value: unit is missing or unrecognized` },
        });
      }
      const amount = Number(value.slice(0, value.length - match[1]!.length));
      const unitMs = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[1]!]!;
      expiration = Date.now() + amount * unitMs;
    }
    const metadata = request.metadata ?? {};
    if (!isObject(metadata)) throw new ContractError(400, 'x_content_parse_exception', '[1:2] [api_key_request] failed to parse field [metadata]');
    const reserved = Object.keys(metadata).filter((key) => key.startsWith('_'));
    if (reserved.length > 0) throw new ContractError(400, 'action_request_validation_exception', `Validation Failed: 1: API key metadata keys may not start with [_];`);
    const descriptors: Record<string, ContractRole> = {};
    for (const [roleName, role] of Object.entries(request.role_descriptors ?? {})) {
      for (const key of Object.keys(role)) {
        if (!['cluster', 'index', 'indices', 'applications', 'run_as', 'metadata'].includes(key)) {
          throw new ContractError(400, 'parse_exception', `failed to parse role [${roleName}]. unexpected field [${key}]`);
        }
      }
      const cluster = (role.cluster ?? []) as string[];
      const index = (role.indices ?? role.index ?? []) as { names: string[]; privileges: string[] }[];
      for (const privilege of cluster) {
        if (!KNOWN_CLUSTER_PRIVILEGES.has(privilege)) {
          throw new ContractError(
            400,
            'illegal_argument_exception',
            `unknown cluster privilege [${privilege}]. a privilege must be either one of the predefined cluster privilege names or a pattern over one of the available cluster actions`,
          );
        }
      }
      for (const entry of index) {
        for (const privilege of entry.privileges) {
          if (!KNOWN_INDEX_PRIVILEGES.has(privilege)) {
            throw new ContractError(
              400,
              'illegal_argument_exception',
              `unknown index privilege [${privilege}]. a privilege must be either one of the predefined fixed indices privileges or a pattern over one of the available index actions`,
            );
          }
        }
      }
      descriptors[roleName] = { cluster, index };
    }
    const key = this.storeKey(principal.username, request.name, descriptors, metadata, expiration);
    return {
      status: 200,
      body: {
        id: key.id,
        name: key.name,
        ...(expiration === undefined ? {} : { expiration: Math.floor(expiration) }),
        api_key: key.apiKey,
        encoded: Buffer.from(`${key.id}:${key.apiKey}`).toString('base64'),
      },
    };
  }

  private visibleKeys(principal: Principal): ContractApiKey[] {
    const all = [...this.apiKeys.values()];
    return hasCluster(principal, 'manage_api_key') ? all : all.filter((key) => key.owner === principal.username);
  }

  private getKeys(principal: Principal, query: Record<string, string>): ContractResponse {
    this.requireCluster(principal, 'cluster:admin/xpack/security/api_key/get', 'manage_own_api_key', 'manage_own_api_key,manage_api_key,manage_security,all');
    const keys = this.visibleKeys(principal).filter((key) => (query.id === undefined || key.id === query.id) && (query.name === undefined || key.name === query.name));
    if ((query.id !== undefined || query.name !== undefined) && keys.length === 0) {
      throw new ContractError(404, 'resource_not_found_exception', `unable to find apikey with id [${query.id ?? ''}] or name [${query.name ?? ''}]`);
    }
    return {
      status: 200,
      body: {
        api_keys: keys.map((key) => ({
          id: key.id,
          name: key.name,
          type: 'rest',
          creation: key.creation,
          ...(key.expiration === undefined ? {} : { expiration: Math.floor(key.expiration) }),
          invalidated: key.invalidated,
          username: key.owner,
          realm: 'default_native',
          metadata: key.metadata,
          role_descriptors: key.roleDescriptors,
        })),
      },
    };
  }

  private invalidateKeys(principal: Principal, body: unknown): ContractResponse {
    this.requireCluster(principal, 'cluster:admin/xpack/security/api_key/invalidate', 'manage_own_api_key', 'manage_own_api_key,manage_api_key,manage_security,all');
    const request = (body ?? {}) as { ids?: string[]; name?: string };
    const visible = this.visibleKeys(principal);
    const targets = visible.filter((key) => (request.ids ? request.ids.includes(key.id) : key.name === request.name));
    const invalidated = targets.filter((key) => !key.invalidated).map((key) => key.id);
    const previously = targets.filter((key) => key.invalidated).map((key) => key.id);
    for (const key of targets) key.invalidated = true;
    return { status: 200, body: { invalidated_api_keys: invalidated, previously_invalidated_api_keys: previously, error_count: 0 } };
  }

  private authenticateBody(principal: Principal): Record<string, unknown> {
    return {
      username: principal.username,
      roles: Object.keys(principal.user.roles),
      full_name: null,
      email: null,
      metadata: {},
      enabled: true,
      authentication_realm: principal.kind === 'user' ? { name: 'default_native', type: 'native' } : { name: '_es_api_key', type: '_es_api_key' },
      lookup_realm: principal.kind === 'user' ? { name: 'default_native', type: 'native' } : { name: '_es_api_key', type: '_es_api_key' },
      authentication_type: principal.kind === 'user' ? 'realm' : 'api_key',
      ...(principal.kind === 'api_key' ? { api_key: { id: principal.key.id, name: principal.key.name } } : {}),
    };
  }

  private hasPrivileges(principal: Principal, body: unknown): ContractResponse {
    const request = (body ?? {}) as { cluster?: string[]; index?: { names: string[]; privileges: string[] }[] };
    const cluster = Object.fromEntries((request.cluster ?? []).map((p) => [p, hasCluster(principal, p)]));
    const index: Record<string, Record<string, boolean>> = {};
    for (const entry of request.index ?? []) {
      for (const name of entry.names) {
        index[name] = { ...index[name], ...Object.fromEntries(entry.privileges.map((p) => [p, this.hasIndex(principal, name, p)])) };
      }
    }
    const all = Object.values(cluster).every(Boolean) && Object.values(index).every((privileges) => Object.values(privileges).every(Boolean));
    return { status: 200, body: { username: principal.username, has_all_requested: all, cluster, index, application: {} } };
  }

  /**
   * Resolves an index expression as Elasticsearch does for reads: a wildcard expands to the indices and data streams
   * (their backing indices) the caller may see, hidden indices only when asked for or named with a leading dot; a
   * name must exist and be allowed.
   */
  private resolve(principal: Principal, expression: string, privilege: string, action: string, query: Record<string, string> = {}): string[] {
    const expand = (query.expand_wildcards ?? 'open').split(',');
    const names = new Set<string>();
    for (const part of expression.split(',')) {
      if (part === '_all' || part.includes('*')) {
        const pattern = globToRegExp(part === '_all' ? '*' : part);
        const hiddenToo = expand.includes('all') || expand.includes('hidden') || part.startsWith('.');
        for (const index of this.concrete.values()) {
          if (index.dataStream === undefined && pattern.test(index.name) && (hiddenToo || !index.hidden) && this.hasIndex(principal, index.name, privilege)) names.add(index.name);
          if (index.dataStream !== undefined && hiddenToo && pattern.test(index.name) && this.hasIndex(principal, index.name, privilege)) names.add(index.name);
        }
        for (const [stream, { backing }] of this.dataStreams) {
          if (pattern.test(stream)) for (const name of backing) if (this.hasIndex(principal, name, privilege)) names.add(name);
        }
      } else {
        const stream = this.dataStreams.get(part);
        const targets = stream ? stream.backing : [part];
        for (const name of targets) {
          if (!this.hasIndex(principal, stream ? name : part, privilege)) {
            throw new ContractError(
              403,
              'security_exception',
              `action [${action}] is unauthorized for ${describePrincipal(principal)} on indices [${part}], this action is granted by the index privileges [${privilege},all]`,
            );
          }
          if (!this.concrete.has(name)) throw new ContractError(404, 'index_not_found_exception', `no such index [${part}]`, { 'resource.type': 'index_or_alias', 'resource.id': part, index: part });
          names.add(name);
        }
      }
    }
    return [...names].sort();
  }

  private shards(principal: Principal, expression: string, action: string, query: Record<string, string>): Shard[] {
    const timedOut = new Set(this.options.timedOutIndices ?? []);
    return this.resolve(principal, expression, 'read', action, query).map((name) => {
      const index = this.concrete.get(name)!;
      const failure = this.options.shardFailures?.[name];
      return { index: name, mapping: index.mapping, docs: index.docs, ...(failure ? { failure } : {}), ...(timedOut.has(name) ? { timesOut: true } : {}) };
    });
  }

  private catIndices(principal: Principal, pattern: string | undefined, query: Record<string, string>): ContractResponse {
    this.requireCluster(principal, 'cluster:monitor/health', 'monitor', 'monitor,manage,all');
    const names = this.resolve(principal, pattern ?? '*', 'monitor', 'indices:monitor/stats', query);
    const rows = names.map((name) => {
      const index = this.concrete.get(name)!;
      const bytes = Buffer.byteLength(JSON.stringify(index.source.documents));
      const size = query.bytes === 'b' ? String(bytes) : humanBytes(bytes);
      return {
        health: index.source.health ?? 'green',
        status: 'open',
        index: name,
        uuid: Buffer.from(name).toString('base64url').padEnd(22, 'A').slice(0, 22),
        pri: '1',
        rep: index.source.health === 'yellow' ? '1' : '0',
        'docs.count': String(index.docs.length),
        'docs.deleted': '0',
        'store.size': size,
        'pri.store.size': size,
        'dataset.size': size,
      } as Record<string, string>;
    });
    const columns = query.h ? query.h.split(',') : Object.keys(rows[0] ?? { index: '' });
    const selected = rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]])));
    if (query.s) {
      const [field, order] = query.s.split(':');
      selected.sort((a, b) => (a[field!]! < b[field!]! ? -1 : 1) * (order === 'desc' ? -1 : 1));
    }
    if (query.format === 'json') return { status: 200, body: selected };
    return { status: 200, body: selected.map((row) => columns.map((c) => row[c]).join(' ')).join('\n') + '\n', headers: { 'content-type': 'text/plain; charset=UTF-8' } };
  }

  private getDataStreams(principal: Principal, expression: string): ContractResponse {
    const found: string[] = [];
    for (const part of expression.split(',')) {
      if (part.includes('*') || part === '_all') {
        const pattern = globToRegExp(part === '_all' ? '*' : part);
        for (const name of this.dataStreams.keys()) if (pattern.test(name) && this.hasIndex(principal, name, 'view_index_metadata')) found.push(name);
      } else {
        if (!this.dataStreams.has(part)) throw new ContractError(404, 'index_not_found_exception', `no such index [${part}]`, { 'resource.type': 'index_or_alias', 'resource.id': part, index: part });
        if (!this.hasIndex(principal, part, 'view_index_metadata')) {
          throw new ContractError(
            403,
            'security_exception',
            `action [indices:admin/data_stream/get] is unauthorized for ${describePrincipal(principal)} on indices [${part}], this action is granted by the index privileges [view_index_metadata,manage,all]`,
          );
        }
        found.push(part);
      }
    }
    return {
      status: 200,
      body: {
        data_streams: [...new Set(found)].sort().map((name) => {
          const stream = this.dataStreams.get(name)!;
          return {
            name,
            timestamp_field: { name: stream.timestampField },
            indices: stream.backing.map((index) => ({ index_name: index, index_uuid: Buffer.from(index).toString('base64url').slice(0, 22) })),
            generation: stream.backing.length,
            status: 'GREEN',
            template: `${name.split('-').slice(0, 2).join('-')}-template`,
            hidden: false,
            system: false,
            allow_custom_routing: false,
            replicated: false,
          };
        }),
      },
    };
  }

  private mapping(principal: Principal, expression: string): ContractResponse {
    const names = this.resolve(principal, expression, 'view_index_metadata', 'indices:admin/mappings/get');
    return {
      status: 200,
      body: Object.fromEntries(
        names.map((name) => {
          const index = this.concrete.get(name)!;
          const mappings = index.dataStream ? { _data_stream_timestamp: { enabled: true }, ...index.source.mappings } : index.source.mappings;
          return [name, { mappings }];
        }),
      ),
    };
  }

  private fieldCaps(principal: Principal, expression: string, query: Record<string, string>, body: unknown): ContractResponse {
    // 7.x reads `fields` from the query string only; its body takes index_filter and runtime_mappings. 8.x added `fields` to the body.
    const bodyKeys = this.major >= 8 ? ['fields', 'index_filter', 'runtime_mappings'] : ['index_filter', 'runtime_mappings'];
    for (const key of Object.keys(isObject(body) ? body : {})) {
      if (!bodyKeys.includes(key)) throw new ContractError(400, 'x_content_parse_exception', `[1:2] [field_caps_request] unknown field [${key}]`);
      if (key !== 'fields') throw new ContractError(500, 'contract_server_not_implemented', `the contract server does not implement [${key}] in _field_caps`);
    }
    const bodyFields = isObject(body) && Array.isArray(body.fields) ? (body.fields as string[]).join(',') : undefined;
    const asked = bodyFields ?? query.fields;
    if (asked === undefined || asked === '') throw new ContractError(400, 'action_request_validation_exception', "Validation Failed: 1: specified fields can't be null or empty;");
    const names = this.resolve(principal, expression, 'read', 'indices:data/read/field_caps', query);
    const wanted = asked.split(',').map((f) => globToRegExp(f.trim()));
    const unmappedToo = query.include_unmapped === 'true';
    const perField = new Map<string, Map<string, { indices: string[]; searchable: boolean; aggregatable: boolean }>>();
    const add = (field: string, type: string, index: string, searchable: boolean, aggregatable: boolean) => {
      let types = perField.get(field);
      if (types === undefined) perField.set(field, (types = new Map()));
      const entry = types.get(type) ?? { indices: [], searchable, aggregatable };
      entry.indices.push(index);
      types.set(type, entry);
    };
    for (const name of names) {
      const { mapping } = this.concrete.get(name)!;
      for (const field of mapping.fields()) {
        if (!wanted.some((w) => w.test(field.name))) continue;
        add(field.name, field.type, name, true, !TEXT_TYPES.has(field.type));
      }
      for (const object of mapping.objects) if (wanted.some((w) => w.test(object))) add(object, 'object', name, false, false);
      for (const meta of ['_index', '_id']) if (wanted.some((w) => w.test(meta))) add(meta, meta === '_index' ? '_index' : '_id', name, true, meta === '_index');
    }
    const fields: Record<string, Record<string, unknown>> = {};
    for (const [field, types] of perField) {
      const caps: Record<string, unknown> = {};
      const covered = new Set<string>();
      for (const [type, entry] of types) {
        entry.indices.forEach((index) => covered.add(index));
        caps[type] = {
          type,
          metadata_field: field.startsWith('_'),
          searchable: entry.searchable,
          aggregatable: entry.aggregatable,
          ...(types.size > 1 || (unmappedToo && entry.indices.length < names.length) ? { indices: entry.indices.sort() } : {}),
        };
      }
      const missing = names.filter((name) => !covered.has(name));
      if (unmappedToo && missing.length > 0) caps.unmapped = { type: 'unmapped', metadata_field: false, searchable: false, aggregatable: false, indices: missing };
      fields[field] = caps;
    }
    return { status: 200, body: { indices: names, fields } };
  }
}

function humanBytes(bytes: number): string {
  const units = ['b', 'kb', 'mb', 'gb'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value}b` : `${Number(value.toFixed(1))}${units[unit]}`;
}
