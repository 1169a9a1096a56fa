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

/**
 * Privileges the skills use, and why: `monitor` (cluster) for cluster health in the index list; on indices, `read`
 * for _search and _count, `view_index_metadata` for _mapping, and `monitor` for the index statistics
 * (document count, size) that _cat/indices reads.
 */
export const SKILLS_PRIVILEGES: RoleDescriptor = {
  cluster: ['monitor'],
  index: [{ names: ['*'], privileges: ['read', 'view_index_metadata', 'monitor'] }],
};

/** Role presets: `all-access` is exactly the documented role (every privilege on the cluster and every index); `read-only` is what the skills need. */
export const ROLE_PRESETS = {
  'all-access': { all_access: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } },
  'read-only': { probekit_assistant_read_only: SKILLS_PRIVILEGES },
} as const satisfies Record<string, Record<string, RoleDescriptor>>;

export type RolePreset = keyof typeof ROLE_PRESETS;
export const ROLE_PRESET_NAMES = Object.keys(ROLE_PRESETS) as RolePreset[];

/** Least privilege by default: the assistant only reads; see the README for why. */
export const DEFAULT_ROLE_PRESET: RolePreset = 'read-only';

export interface CreateApiKeyOptions extends SearchEngineConnection {
  readonly username: string;
  readonly password: string;
  /** Name of the key (the request's `name`). */
  readonly name: string;
  /** @default DEFAULT_ROLE_PRESET */
  readonly role?: RolePreset;
  /** Lifetime in Elasticsearch's time units (`30d`, `12h`); the engine validates it. @default never expires */
  readonly expiration?: string;
}

export interface ApiKeyRequest {
  readonly name: string;
  readonly role_descriptors: Record<string, RoleDescriptor>;
  readonly expiration?: string;
}

export interface CreatedApiKey {
  readonly id: string;
  readonly name: string;
  readonly api_key: string;
  readonly encoded: string;
  /** Expiry time in epoch milliseconds, when the key has one. */
  readonly expiration?: number;
}

/** The request body, separate so that callers (and the Pulumi stacks) can show what will be sent. */
export function apiKeyRequest(name: string, role: RolePreset = DEFAULT_ROLE_PRESET, expiration?: string): ApiKeyRequest {
  if (name.trim() === '') throw new SearchEngineError('bad-input', 'name: the API key needs a name; pass --name');
  if (!(role in ROLE_PRESETS)) {
    throw new SearchEngineError('bad-input', `role: "${role}" is not a preset; use one of ${ROLE_PRESET_NAMES.join(', ')}`);
  }
  return {
    name,
    role_descriptors: ROLE_PRESETS[role],
    ...(expiration === undefined ? {} : { expiration }),
  };
}

/** Elasticsearch answers application/json; the documented request says the same, so we send it rather than the client's vendored type. */
const SEED_CONTENT_TYPE = { 'content-type': 'application/json' };

export async function createApiKey(options: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const body = apiKeyRequest(options.name, options.role, options.expiration);
  const client = createSearchClient(options, { username: options.username, password: options.password });
  try {
    // The client's createApiKey sends PUT; the documented request is a POST, which Elasticsearch takes alike, so we send POST.
    const response = await client.transport.request<SecurityCreateApiKeyResponse>({ method: 'POST', path: '/_security/api_key', body }, { headers: SEED_CONTENT_TYPE });
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
    const response = await client.security.invalidateApiKey({ ids: [options.id] }, { headers: SEED_CONTENT_TYPE });
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
