/**
 * A contract server for Elasticsearch's REST API. No real Elasticsearch can run here (no JVM, no network to fetch
 * it), so the tests talk to this HTTPS server on loopback instead. It follows Elasticsearch's documented contract for
 * the endpoints probekit uses: status codes, error bodies (`{ error: { root_cause, type, reason }, status }`), the
 * `X-elastic-product: Elasticsearch` header the official client checks, basic and `ApiKey` authentication with
 * API-key permissions limited by their owner's, and the query DSL and aggregations subset our queries use, answered
 * as Elasticsearch would. It records every request so that tests can assert exactly what was sent.
 *
 * Endpoints: POST|PUT|GET|DELETE /_security/api_key, GET /_security/_authenticate,
 * GET|POST /_security/user/_has_privileges, GET /, GET /_cat/indices[/{pattern}], GET /{index}/_mapping,
 * GET|POST /{index}/_search, GET|POST /{index}/_count.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeTlsPem, type TlsPem } from '../../exporter/loopback/tls-fixtures';

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

export interface ContractApiKey {
  readonly id: string;
  readonly name: string;
  readonly apiKey: string;
  readonly owner: string;
  readonly roleDescriptors: Readonly<Record<string, ContractRole>>;
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
  readonly users?: Readonly<Record<string, ContractUser>>;
  readonly indices?: Readonly<Record<string, ContractIndex>>;
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

class ContractError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    reason: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(reason);
  }
}

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

/** Whether a set of roles grants `wanted` on `name`; `name` may itself be a pattern (as in _has_privileges). */
function rolesGrantIndex(roles: Iterable<ContractRole>, name: string, wanted: string): boolean {
  return [...roles].some((role) => role.index.some((entry) => entry.names.some((pattern) => globToRegExp(pattern).test(name)) && grants(entry.privileges, wanted, INDEX_IMPLIES)));
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

function hasIndex(principal: Principal, name: string, wanted: string): boolean {
  return principalRoleSets(principal).every((roles) => rolesGrantIndex(roles, name, wanted));
}

function describePrincipal(principal: Principal): string {
  return principal.kind === 'user'
    ? `user [${principal.username}] with effective roles [${Object.keys(principal.user.roles).join(',')}]`
    : `API key id [${principal.key.id}] of user [${principal.username}]`;
}

// ---- documents and the query DSL ----

type Doc = Record<string, unknown>;

/** A field's value in _source, whether written as nested objects or as dotted keys (Elasticsearch accepts both). */
export function sourceValue(source: unknown, field: string): unknown {
  const lookup = (value: unknown, parts: readonly string[]): unknown => {
    if (parts.length === 0) return value;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    for (let take = parts.length; take >= 1; take -= 1) {
      const key = parts.slice(0, take).join('.');
      if (key in (value as Doc)) {
        const found = lookup((value as Doc)[key], parts.slice(take));
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return lookup(source, field.split('.'));
}

interface FieldMapping {
  readonly type?: string;
  readonly fields?: Record<string, FieldMapping>;
  readonly properties?: Record<string, FieldMapping>;
}

/** The mapping of a field path, following object `properties` and multi-field `fields` (`level.keyword`). */
function fieldMapping(properties: Record<string, unknown>, field: string): { mapping: FieldMapping; sourceField: string } | undefined {
  const walk = (props: Record<string, FieldMapping> | undefined, parts: readonly string[], path: readonly string[]): { mapping: FieldMapping; sourceField: string } | undefined => {
    if (props === undefined) return undefined;
    for (let take = parts.length; take >= 1; take -= 1) {
      const key = parts.slice(0, take).join('.');
      const mapping = props[key];
      if (mapping === undefined) continue;
      const rest = parts.slice(take);
      const here = [...path, key];
      if (rest.length === 0) return { mapping, sourceField: here.join('.') };
      const nested = walk(mapping.properties, rest, here);
      if (nested) return nested;
      if (rest.length === 1 && mapping.fields?.[rest[0]!]) return { mapping: mapping.fields[rest[0]!]!, sourceField: here.join('.') };
    }
    return undefined;
  };
  return walk(properties as Record<string, FieldMapping>, field.split('.'), []);
}

/** The standard analyzer, the part that matters for log messages: lowercase, split on what is not a letter or digit. */
function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);
}

interface StoredDoc {
  readonly index: string;
  readonly id: string;
  readonly source: Doc;
  readonly properties: Record<string, unknown>;
}

function values(doc: StoredDoc, field: string): unknown[] {
  const resolved = fieldMapping(doc.properties, field);
  const raw = sourceValue(doc.source, resolved?.sourceField ?? field);
  if (raw === undefined || raw === null) return [];
  return Array.isArray(raw) ? raw : [raw];
}

function fieldType(doc: StoredDoc, field: string): string | undefined {
  return fieldMapping(doc.properties, field)?.mapping.type;
}

function comparable(doc: StoredDoc, field: string, value: unknown): number | string {
  const type = fieldType(doc, field);
  if (type === 'date') return typeof value === 'number' ? value : Date.parse(String(value));
  if (typeof value === 'number') return value;
  const asNumber = Number(value);
  return type === 'long' || type === 'integer' || type === 'double' || type === 'float' ? asNumber : String(value);
}

function single(clause: unknown, what: string): [string, unknown] {
  const entries = Object.entries(clause as Doc);
  if (entries.length !== 1) throw new ContractError(400, 'parsing_exception', `[${what}] query doesn't support multiple fields, found [${entries.map(([k]) => k).join('] and [')}]`);
  return entries[0]!;
}

function matches(doc: StoredDoc, query: unknown): boolean {
  if (query === undefined) return true;
  const [kind, body] = single(query, 'query');
  switch (kind) {
    case 'match_all':
      return true;
    case 'match_none':
      return false;
    case 'bool': {
      const b = body as { filter?: unknown; must?: unknown; should?: unknown; must_not?: unknown; minimum_should_match?: number };
      const list = (x: unknown): unknown[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
      const required = [...list(b.filter), ...list(b.must)];
      const should = list(b.should);
      const minimumShould = b.minimum_should_match ?? (required.length === 0 && should.length > 0 ? 1 : 0);
      return required.every((q) => matches(doc, q)) && !list(b.must_not).some((q) => matches(doc, q)) && should.filter((q) => matches(doc, q)).length >= minimumShould;
    }
    case 'term': {
      const [field, spec] = single(body, 'term');
      const wanted = typeof spec === 'object' && spec !== null ? (spec as { value: unknown; case_insensitive?: boolean }) : { value: spec };
      return termMatches(doc, field, [wanted.value], 'case_insensitive' in wanted && wanted.case_insensitive === true);
    }
    case 'terms': {
      const [field, list] = single(body, 'terms');
      return termMatches(doc, field, list as unknown[], false);
    }
    case 'exists':
      return values(doc, (body as { field: string }).field).length > 0;
    case 'range': {
      const [field, bounds] = single(body, 'range');
      const { gte, gt, lte, lt } = bounds as { gte?: unknown; gt?: unknown; lte?: unknown; lt?: unknown };
      return values(doc, field).some((raw) => {
        const v = comparable(doc, field, raw);
        const c = (bound: unknown) => comparable(doc, field, bound);
        return (gte === undefined || v >= c(gte)) && (gt === undefined || v > c(gt)) && (lte === undefined || v <= c(lte)) && (lt === undefined || v < c(lt));
      });
    }
    case 'match': {
      const [field, spec] = single(body, 'match');
      const { query: text, operator } = typeof spec === 'object' && spec !== null ? (spec as { query: string; operator?: string }) : { query: String(spec), operator: 'or' };
      const wanted = tokens(String(text));
      const have = new Set(values(doc, field).flatMap((v) => tokens(String(v))));
      const found = wanted.filter((token) => have.has(token));
      return (operator ?? 'or').toLowerCase() === 'and' ? found.length === wanted.length && wanted.length > 0 : found.length > 0;
    }
    default:
      throw new ContractError(400, 'parsing_exception', `unknown query [${kind}]`);
  }
}

function termMatches(doc: StoredDoc, field: string, wanted: readonly unknown[], caseInsensitive: boolean): boolean {
  const analysed = fieldType(doc, field) === 'text';
  const have = values(doc, field).flatMap((v) => (analysed ? tokens(String(v)) : [String(v)]));
  const norm = (v: unknown) => (caseInsensitive ? String(v).toLowerCase() : String(v));
  return have.some((v) => wanted.some((w) => norm(v) === norm(w)));
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function fixedIntervalMs(interval: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(interval);
  if (!match)
    throw new ContractError(400, 'illegal_argument_exception', `failed to parse setting [date_histogram.fixedInterval] with value [${interval}] as a time value: unit is missing or unrecognized`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

function aggregate(docs: readonly StoredDoc[], aggs: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(aggs)) {
    const { aggs: sub, aggregations: subLong, ...rest } = definition as Record<string, unknown>;
    const subAggs = (sub ?? subLong) as Record<string, unknown> | undefined;
    const [kind, body] = single(rest, 'aggregation');
    const withSub = (bucket: Record<string, unknown>, inBucket: readonly StoredDoc[]) => (subAggs ? { ...bucket, ...aggregate(inBucket, subAggs) } : bucket);
    if (kind === 'terms') {
      const { field, size = 10 } = body as { field: string; size?: number };
      if (docs.some((doc) => fieldType(doc, field) === 'text')) {
        throw new ContractError(
          400,
          'illegal_argument_exception',
          `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
        );
      }
      const groups = new Map<string, StoredDoc[]>();
      for (const doc of docs) for (const v of new Set(values(doc, field).map(String))) groups.set(v, [...(groups.get(v) ?? []), doc]);
      const ordered = [...groups.entries()].sort(([ka, a], [kb, b]) => b.length - a.length || (ka < kb ? -1 : ka > kb ? 1 : 0));
      const shown = ordered.slice(0, size);
      result[name] = {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: ordered.slice(size).reduce((sum, [, group]) => sum + group.length, 0),
        buckets: shown.map(([key, group]) => withSub({ key, doc_count: group.length }, group)),
      };
    } else if (kind === 'date_histogram') {
      const spec = body as { field: string; fixed_interval?: string; calendar_interval?: string; min_doc_count?: number; extended_bounds?: { min: string | number; max: string | number } };
      if (spec.fixed_interval === undefined) {
        throw new ContractError(400, 'illegal_argument_exception', 'this contract server implements date_histogram with fixed_interval only');
      }
      const step = fixedIntervalMs(spec.fixed_interval);
      const floor = (ms: number) => Math.floor(ms / step) * step;
      const keyed = new Map<number, StoredDoc[]>();
      for (const doc of docs) {
        for (const raw of values(doc, spec.field)) {
          const key = floor(comparable(doc, spec.field, raw) as number);
          keyed.set(key, [...(keyed.get(key) ?? []), doc]);
        }
      }
      const keys = [...keyed.keys()];
      const bounds = spec.extended_bounds;
      const toMs = (v: string | number) => (typeof v === 'number' ? v : Date.parse(v));
      const first = Math.min(...keys, ...(bounds ? [floor(toMs(bounds.min))] : []));
      const last = Math.max(...keys, ...(bounds ? [floor(toMs(bounds.max))] : []));
      const buckets: Record<string, unknown>[] = [];
      if (Number.isFinite(first)) {
        for (let key = first; key <= last; key += step) {
          const group = keyed.get(key) ?? [];
          if (group.length >= (spec.min_doc_count ?? 0)) buckets.push(withSub({ key_as_string: new Date(key).toISOString(), key, doc_count: group.length }, group));
        }
      }
      result[name] = { buckets };
    } else {
      throw new ContractError(400, 'x_content_parse_exception', `[1:1] unknown aggregation type [${kind}]`);
    }
  }
  return result;
}

function sortDocs(docs: StoredDoc[], sort: unknown): { doc: StoredDoc; sortValues?: unknown[] }[] {
  if (sort === undefined) return docs.map((doc) => ({ doc }));
  const specs = (Array.isArray(sort) ? sort : [sort]).map((entry) => {
    if (typeof entry === 'string') return { field: entry, desc: false };
    const [field, how] = single(entry, 'sort');
    const order = typeof how === 'string' ? how : (how as { order?: string }).order;
    return { field, desc: order === 'desc' };
  });
  const key = (doc: StoredDoc, field: string) => {
    const v = values(doc, field)[0];
    return v === undefined ? undefined : comparable(doc, field, v);
  };
  return docs
    .map((doc) => ({ doc, sortValues: specs.map((s) => key(doc, s.field)) }))
    .sort((a, b) => {
      for (const [i, s] of specs.entries()) {
        const x = a.sortValues[i];
        const y = b.sortValues[i];
        if (x === y) continue;
        if (x === undefined) return 1; // missing values sort last either way, as Elasticsearch's default `_last`
        if (y === undefined) return -1;
        const cmp = x < y ? -1 : 1;
        return s.desc ? -cmp : cmp;
      }
      return 0;
    });
}

/** The `fields` option of _search: values as arrays, dates in their default format, fields without values left out. */
function fetchFields(doc: StoredDoc, names: readonly string[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const name of names) {
    const found = values(doc, name);
    if (found.length === 0) continue;
    out[name] = fieldType(doc, name) === 'date' ? found.map((v) => new Date(comparable(doc, name, v) as number).toISOString()) : found;
  }
  return out;
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

const TIME_VALUE = /^\d+(nanos|micros|ms|s|m|h|d)$/;

export class ContractElasticsearch {
  readonly requests: RecordedRequest[] = [];
  readonly apiKeys = new Map<string, ContractApiKey>();
  readonly pki: TlsPem;
  private readonly server: Server;
  private readonly indices: Map<string, ContractIndex>;
  private port = 0;

  private constructor(private readonly options: ContractElasticsearchOptions) {
    this.pki = options.pki ?? makeTlsPem();
    this.indices = new Map(Object.entries(options.indices ?? {}));
    this.server = createServer({ cert: this.pki.serverCert, key: this.pki.serverKey }, (req, res) => void this.handle(req, res));
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

  /** Adds a key as if created earlier; returns its `encoded` API token. */
  addApiKey(owner: string, name: string, roleDescriptors: Record<string, ContractRole>): { id: string; encoded: string } {
    const key = this.storeKey(owner, name, roleDescriptors, undefined);
    return { id: key.id, encoded: Buffer.from(`${key.id}:${key.apiKey}`).toString('base64') };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private storeKey(owner: string, name: string, roleDescriptors: Record<string, ContractRole>, expiration: number | undefined): ContractApiKey {
    const key: ContractApiKey = {
      id: randomBytes(15).toString('base64url'),
      name,
      apiKey: randomBytes(16).toString('base64url'),
      owner,
      roleDescriptors,
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
    try {
      if (typeof body === 'string') throw new ContractError(400, 'x_content_parse_exception', '[1:1] Unexpected character: the body is not JSON');
      answer = this.options.override?.(request) ?? this.route(request);
    } catch (error) {
      if (!(error instanceof ContractError)) throw error;
      const cause = { type: error.type, reason: error.message, ...error.extra };
      answer = { status: error.status, body: { error: { root_cause: [cause], ...cause }, status: error.status }, headers: error.headers };
    }
    if (this.options.delayMs) await new Promise((resolve) => setTimeout(resolve, this.options.delayMs));
    if (res.destroyed) return;
    const vendored = String(req.headers.accept ?? '').includes('application/vnd.elasticsearch+json');
    const headers: Record<string, string> = {
      'content-type': vendored ? 'application/vnd.elasticsearch+json;compatible-with=9' : 'application/json',
      ...(this.options.notElasticsearch ? {} : { 'x-elastic-product': 'Elasticsearch' }),
      ...answer.headers,
    };
    res.writeHead(answer.status, headers);
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
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
      return { status: 200, body: { name: 'node-1', cluster_name: 'contract', cluster_uuid: 'contract-cluster', version: { number: '9.1.0' }, tagline: 'You Know, for Search' } };
    }
    if (parts[0] === '_cat' && parts[1] === 'indices' && method === 'GET') return this.catIndices(principal, parts[2], request.query);
    if (parts.length === 2 && parts[1] === '_mapping' && method === 'GET') return this.mapping(principal, parts[0]!);
    if (parts.length <= 2 && (parts.at(-1) === '_search' || parts.at(-1) === '_count') && (method === 'GET' || method === 'POST')) {
      const target = parts.length === 2 ? parts[0]! : '*';
      return parts.at(-1) === '_search' ? this.search(principal, target, request.body) : this.count(principal, target, request.body);
    }
    throw new ContractError(405, 'illegal_argument_exception', `Incorrect HTTP method for uri [${path}] and method [${method}]`);
  }

  private createKey(principal: Principal, body: unknown): ContractResponse {
    this.requireCluster(principal, 'cluster:admin/xpack/security/api_key/create', 'manage_own_api_key', 'manage_own_api_key,manage_api_key,manage_security,all');
    const request = (body ?? {}) as { name?: unknown; role_descriptors?: Record<string, ContractRole>; expiration?: unknown };
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
      const match = TIME_VALUE.exec(value);
      if (!match) {
        throw new ContractError(400, 'x_content_parse_exception', '[1:1] [api_key_request] failed to parse field [expiration]', {
          caused_by: { type: 'illegal_argument_exception', reason: `failed to parse setting [expiration] with value [${value}] as a time value: unit is missing or unrecognized` },
        });
      }
      const amount = Number(value.slice(0, value.length - match[1]!.length));
      const unitMs = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[1]!]!;
      expiration = Date.now() + amount * unitMs;
    }
    const descriptors = request.role_descriptors ?? {};
    for (const role of Object.values(descriptors)) {
      for (const privilege of role.cluster ?? []) {
        if (!KNOWN_CLUSTER_PRIVILEGES.has(privilege)) {
          throw new ContractError(
            400,
            'illegal_argument_exception',
            `unknown cluster privilege [${privilege}]. a privilege must be either one of the predefined cluster privilege names or a pattern over one of the available cluster actions`,
          );
        }
      }
      for (const entry of role.index ?? []) {
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
    }
    const key = this.storeKey(principal.username, request.name, descriptors, expiration);
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
          metadata: {},
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
        index[name] = { ...index[name], ...Object.fromEntries(entry.privileges.map((p) => [p, hasIndex(principal, name, p)])) };
      }
    }
    const all = Object.values(cluster).every(Boolean) && Object.values(index).every((privileges) => Object.values(privileges).every(Boolean));
    return { status: 200, body: { username: principal.username, has_all_requested: all, cluster, index, application: {} } };
  }

  /** Resolves an index expression as Elasticsearch does for reads: wildcards expand to what the caller may see, named indices must exist and be allowed. */
  private resolve(principal: Principal, expression: string, privilege: string, action: string): string[] {
    const names = new Set<string>();
    for (const part of expression.split(',')) {
      if (part === '_all' || part.includes('*')) {
        const pattern = globToRegExp(part === '_all' ? '*' : part);
        for (const name of this.indices.keys()) if (pattern.test(name) && hasIndex(principal, name, privilege)) names.add(name);
      } else {
        if (!hasIndex(principal, part, privilege)) {
          throw new ContractError(
            403,
            'security_exception',
            `action [${action}] is unauthorized for ${describePrincipal(principal)} on indices [${part}], this action is granted by the index privileges [${privilege},all]`,
          );
        }
        if (!this.indices.has(part)) throw new ContractError(404, 'index_not_found_exception', `no such index [${part}]`, { 'resource.type': 'index_or_alias', 'resource.id': part, index: part });
        names.add(part);
      }
    }
    return [...names].sort();
  }

  private documents(principal: Principal, expression: string, action: string): StoredDoc[] {
    return this.resolve(principal, expression, 'read', action).flatMap((name) => {
      const index = this.indices.get(name)!;
      return index.documents.map((source, i) => ({ index: name, id: `${name}-${i + 1}`, source, properties: index.mappings.properties }));
    });
  }

  private catIndices(principal: Principal, pattern: string | undefined, query: Record<string, string>): ContractResponse {
    this.requireCluster(principal, 'cluster:monitor/health', 'monitor', 'monitor,manage,all');
    const names = this.resolve(principal, pattern ?? '*', 'monitor', 'indices:monitor/stats');
    const rows = names.map((name) => {
      const index = this.indices.get(name)!;
      const bytes = Buffer.byteLength(JSON.stringify(index.documents));
      const size = query.bytes === 'b' ? String(bytes) : humanBytes(bytes);
      return {
        health: index.health ?? 'green',
        status: 'open',
        index: name,
        uuid: Buffer.from(name).toString('base64url').padEnd(22, 'A').slice(0, 22),
        pri: '1',
        rep: index.health === 'yellow' ? '1' : '0',
        'docs.count': String(index.documents.length),
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

  private mapping(principal: Principal, expression: string): ContractResponse {
    const names = this.resolve(principal, expression, 'view_index_metadata', 'indices:admin/mappings/get');
    return { status: 200, body: Object.fromEntries(names.map((name) => [name, { mappings: this.indices.get(name)!.mappings }])) };
  }

  private search(principal: Principal, expression: string, body: unknown): ContractResponse {
    const request = (body ?? {}) as {
      query?: unknown;
      size?: number;
      from?: number;
      sort?: unknown;
      aggs?: Record<string, unknown>;
      aggregations?: Record<string, unknown>;
      track_total_hits?: boolean | number;
      _source?: boolean;
      fields?: (string | { field: string })[];
    };
    const docs = this.documents(principal, expression, 'indices:data/read/search');
    const matched = docs.filter((doc) => matches(doc, request.query));
    const from = request.from ?? 0;
    const size = request.size ?? 10;
    const sorted = sortDocs(matched, request.sort).slice(from, from + size);
    const trackLimit = request.track_total_hits === true ? Infinity : typeof request.track_total_hits === 'number' ? request.track_total_hits : 10_000;
    const aggs = request.aggs ?? request.aggregations;
    const shards = { total: new Set(docs.map((d) => d.index)).size, successful: new Set(docs.map((d) => d.index)).size, skipped: 0, failed: 0 };
    return {
      status: 200,
      body: {
        took: 1,
        timed_out: false,
        _shards: shards,
        hits: {
          total: matched.length > trackLimit ? { value: trackLimit, relation: 'gte' } : { value: matched.length, relation: 'eq' },
          max_score: request.sort === undefined && matched.length > 0 ? 1 : null,
          hits: sorted.map(({ doc, sortValues }) => ({
            _index: doc.index,
            _id: doc.id,
            _score: request.sort === undefined ? 1 : null,
            ...(request._source === false ? {} : { _source: doc.source }),
            ...(request.fields
              ? {
                  fields: fetchFields(
                    doc,
                    request.fields.map((f) => (typeof f === 'string' ? f : f.field)),
                  ),
                }
              : {}),
            ...(sortValues ? { sort: sortValues } : {}),
          })),
        },
        ...(aggs ? { aggregations: aggregate(matched, aggs) } : {}),
      },
    };
  }

  private count(principal: Principal, expression: string, body: unknown): ContractResponse {
    const docs = this.documents(principal, expression, 'indices:data/read/search');
    const query = (body as { query?: unknown } | undefined)?.query;
    const indices = new Set(docs.map((d) => d.index)).size;
    return { status: 200, body: { count: docs.filter((doc) => matches(doc, query)).length, _shards: { total: indices, successful: indices, skipped: 0, failed: 0 } } };
  }
}
