/**
 * The search-engine API key: POST {url}/_security/api_key with a user's basic credentials,
 * `{ name, role_descriptors }` in, `{ id, name, api_key, encoded }` out. The `encoded` value is the API token the
 * assistant presents, with the engine's URL, as its integration settings.
 */
import type { SecurityCreateApiKeyResponse } from '@elastic/elasticsearch/lib/api/types';
import { createSearchClient, describeFailure, SearchEngineError, type SearchEngineConnection } from './connection';

export interface IndexPrivilegesEntry {
  readonly names: readonly string[];
  readonly privileges: readonly string[];
}

export interface RoleDescriptor {
  readonly cluster: readonly string[];
  readonly index: readonly IndexPrivilegesEntry[];
}

/** Where logs live by default: data streams of Elastic Agent and OpenTelemetry (`logs-*`), Filebeat's and Logstash's indices. */
export const LOG_INDEX_PATTERNS: readonly string[] = ['logs-*', 'filebeat-*', 'logstash-*'];

/**
 * Privileges the skills use, and why: `monitor` (cluster) to read the engine's version (`GET /`) and for
 * `_cat/indices`; on the log indices, `read` for _search, _count and _field_caps, `view_index_metadata` for
 * _mapping and _data_stream, and `monitor` for the index statistics (document count, size) of _cat/indices.
 * Privileges on a data stream cover its backing indices.
 */
export function skillsRole(indices: readonly string[] = LOG_INDEX_PATTERNS): RoleDescriptor {
  return { cluster: ['monitor'], index: [{ names: [...indices], privileges: ['read', 'view_index_metadata', 'monitor'] }] };
}

export type RolePreset = 'all-access' | 'read-only';

/** Role presets: `all-access` is exactly the documented role (every privilege on the cluster and every index); `read-only` is what the skills need, on the log indices. */
export function rolePreset(role: RolePreset, indices: readonly string[] = LOG_INDEX_PATTERNS): Record<string, RoleDescriptor> {
  return role === 'all-access' ? { all_access: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } } : { probekit_assistant_read_only: skillsRole(indices) };
}

export const ROLE_PRESETS: Readonly<Record<RolePreset, Record<string, RoleDescriptor>>> = { 'all-access': rolePreset('all-access'), 'read-only': rolePreset('read-only') };
export const ROLE_PRESET_NAMES = Object.keys(ROLE_PRESETS) as RolePreset[];

/** Least privilege by default: the assistant only reads, and only logs; docs/assistant.md says why. */
export const DEFAULT_ROLE_PRESET: RolePreset = 'read-only';

/** A key expires unless told otherwise, so that a leaked token stops working; `never` keeps it until it is invalidated. */
export const DEFAULT_KEY_EXPIRATION = '90d';
export const NO_EXPIRATION = 'never';

export interface CreateApiKeyOptions extends SearchEngineConnection {
  readonly username: string;
  readonly password: string;
  /** Name of the key (the request's `name`). */
  readonly name: string;
  /** @default DEFAULT_ROLE_PRESET */
  readonly role?: RolePreset;
  /** Index patterns the read-only preset may read. @default LOG_INDEX_PATTERNS */
  readonly indices?: readonly string[];
  /** Lifetime in Elasticsearch's time units (`30d`, `12h`; the engine validates it), or `never`. @default DEFAULT_KEY_EXPIRATION */
  readonly expiration?: string;
}

export interface ApiKeyRequest {
  readonly name: string;
  readonly role_descriptors: Record<string, RoleDescriptor>;
  readonly expiration?: string;
  readonly metadata: Record<string, unknown>;
}

export interface CreatedApiKey {
  readonly id: string;
  readonly name: string;
  readonly api_key: string;
  readonly encoded: string;
  /** Expiry time in epoch milliseconds, when the key has one. */
  readonly expiration?: number;
}

export interface ApiKeyRequestOptions {
  readonly role?: RolePreset;
  readonly indices?: readonly string[];
  readonly expiration?: string;
}

/**
 * The request body, separate so that callers (and the Pulumi stacks) can show what will be sent. The metadata says
 * who made the key and for what, so that whoever reviews a cluster's keys knows what this one is.
 */
export function apiKeyRequest(name: string, options: ApiKeyRequestOptions = {}): ApiKeyRequest {
  const role = options.role ?? DEFAULT_ROLE_PRESET;
  const expiration = options.expiration ?? DEFAULT_KEY_EXPIRATION;
  if (name.trim() === '') throw new SearchEngineError('bad-input', 'name: the API key needs a name; pass --name');
  if (!ROLE_PRESET_NAMES.includes(role)) {
    throw new SearchEngineError('bad-input', `role: "${role}" is not a preset; use one of ${ROLE_PRESET_NAMES.join(', ')}`);
  }
  const indices = options.indices ?? LOG_INDEX_PATTERNS;
  if (indices.length === 0 || indices.some((pattern) => pattern.trim() === '')) throw new SearchEngineError('bad-input', 'indices: give at least one index pattern, e.g. logs-*');
  if (role === 'all-access' && options.indices !== undefined)
    throw new SearchEngineError('bad-input', 'indices: the all-access preset is the documented role on every index; index patterns apply to read-only');
  return {
    name,
    role_descriptors: rolePreset(role, indices),
    ...(expiration === NO_EXPIRATION ? {} : { expiration }),
    metadata: { application: 'probekit', purpose: "the assistant's search-engine skills", role_preset: role },
  };
}

export async function createApiKey(options: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const body = apiKeyRequest(options.name, options);
  // Plain JSON, as the documented request has it (Content-Type: application/json), and Accept to match: every
  // supported version takes it, so creating a key needs no version handshake and no privilege beyond its own.
  const client = createSearchClient(options, { username: options.username, password: options.password });
  try {
    // The client's createApiKey sends PUT; the documented request is a POST, which Elasticsearch takes alike, so we send POST.
    const response = await client.transport.request<SecurityCreateApiKeyResponse>({ method: 'POST', path: '/_security/api_key', body });
    const encoded = response.encoded ?? Buffer.from(`${response.id}:${response.api_key}`).toString('base64');
    return {
      id: response.id,
      name: response.name,
      api_key: response.api_key,
      encoded,
      ...(response.expiration === undefined ? {} : { expiration: response.expiration }),
    };
  } catch (error) {
    throw describeFailure(error, options.url, 'creating the API key', 'user name and password');
  } finally {
    await client.close();
  }
}

export interface InvalidateApiKeyOptions extends SearchEngineConnection {
  readonly username: string;
  readonly password: string;
  readonly id: string;
}

export interface InvalidatedApiKeys {
  readonly invalidated: readonly string[];
  readonly previouslyInvalidated: readonly string[];
}

/** DELETE /_security/api_key with `{ ids: [id] }`; a key that was invalidated already is fine, one the engine does not know is an error. */
export async function invalidateApiKey(options: InvalidateApiKeyOptions): Promise<InvalidatedApiKeys> {
  const client = createSearchClient(options, { username: options.username, password: options.password });
  try {
    const response = await client.security.invalidateApiKey({ ids: [options.id] });
    if (response.error_count > 0) {
      const reasons = (response.error_details ?? [])
        .map((detail) => detail.reason)
        .filter(Boolean)
        .join('; ');
      throw new SearchEngineError('bad-request', `invalidating API key ${options.id} failed: ${reasons || 'the engine reported an error'}`);
    }
    const known = [...response.invalidated_api_keys, ...response.previously_invalidated_api_keys];
    if (!known.includes(options.id)) {
      throw new SearchEngineError('not-found', `invalidating API key ${options.id} failed: the engine knows no key with this id`);
    }
    return { invalidated: response.invalidated_api_keys, previouslyInvalidated: response.previously_invalidated_api_keys };
  } catch (error) {
    throw describeFailure(error, options.url, `invalidating API key ${options.id}`, 'user name and password');
  } finally {
    await client.close();
  }
}
