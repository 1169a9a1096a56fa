/**
 * The search-engine API key as a Pulumi resource: created at deploy time with a user's
 * basic credentials, kept as long as nothing that defines the key changes, invalidated when the stack no
 * longer holds it. Pulumi has no provider for Elasticsearch's security API, so this is a dynamic resource
 * whose CRUD calls @probekit/assistant, the same client the CLI uses.
 */
import * as pulumi from '@pulumi/pulumi';
import { createApiKey, displayUrl, invalidateApiKey, NO_EXPIRATION, SearchEngineError, type RolePreset, type SearchEngineConnection } from '@probekit/assistant';

/** What defines a key and what is needed to reach the engine; the password is a secret input. */
export interface ApiKeyInputs {
  readonly url: string;
  readonly username: string;
  readonly password: string;
  /** The key request's `name`. */
  readonly name: string;
  readonly role: RolePreset;
  /** Index patterns of the read-only preset. @default the library's log patterns (LOG_INDEX_PATTERNS) */
  readonly indices?: readonly string[];
  /**
   * The key's lifetime. The stack owns the key: it replaces it when asked and invalidates it on destroy, so by
   * default the key does not expire, since an expiry nothing here tracks would break every cluster's Secret at once.
   * @default 'never'
   */
  readonly expiration?: string;
  readonly insecure?: boolean;
  /** PEM text of the engine's CA (the program reads `caFile`; the provider reads no disk). */
  readonly ca?: string;
}

/** The resource's state: its inputs and the key's `encoded` value. The resource ID is the key's `id`. */
export interface ApiKeyOutputs extends ApiKeyInputs {
  readonly encoded: string;
}

/** A different engine, name, role, index patterns or lifetime is a different key: a new one is created, then the old one invalidated. */
const FIELDS_THAT_MAKE_A_NEW_KEY = ['url', 'name', 'role', 'indices', 'expiration'] as const;
/** Used only to talk to the engine: a change is recorded without touching the key. */
const FIELDS_THAT_KEEP_THE_KEY = ['username', 'password', 'insecure', 'ca'] as const;

/**
 * Pulumi serializes the provider with everything it reaches, and turns classes into functions: an instance
 * of a class that extends Error then calls `Error.call(this, message)`, which sets nothing, and arrives
 * without its message. This rebuilds a plain Error from what survives, so that `pulumi up` still says what
 * failed. Errors that kept their message pass through as they are.
 */
function reported(error: unknown, doing: string, url: string): Error {
  if (error instanceof Error && error.message !== '') return error;
  const { failure, status } = error as Partial<SearchEngineError>;
  return new Error(`${doing} failed at ${displayUrl(url)}: ${failure ?? 'unknown failure'}${status === undefined ? '' : ` (${status})`}`);
}

function connection(props: ApiKeyInputs): SearchEngineConnection {
  return { url: props.url, tls: { insecure: props.insecure ?? false, ...(props.ca === undefined ? {} : { ca: props.ca }) } };
}

/** The CRUD of the key, also called directly by the tests. */
export const apiKeyProvider: pulumi.dynamic.ResourceProvider<ApiKeyInputs, ApiKeyOutputs> = {
  async diff(_id, olds, news) {
    const replaces = FIELDS_THAT_MAKE_A_NEW_KEY.filter((field) => JSON.stringify(olds[field]) !== JSON.stringify(news[field]));
    const changes = replaces.length > 0 || FIELDS_THAT_KEEP_THE_KEY.some((field) => olds[field] !== news[field]);
    // Create before delete: the clusters' Secrets move to the new key before the old one stops working.
    return { changes, replaces: [...replaces], deleteBeforeReplace: false };
  },

  async create(inputs) {
    try {
      const key = await createApiKey({
        ...connection(inputs),
        username: inputs.username,
        password: inputs.password,
        name: inputs.name,
        role: inputs.role,
        ...(inputs.indices === undefined ? {} : { indices: inputs.indices }),
        expiration: inputs.expiration ?? NO_EXPIRATION,
      });
      return { id: key.id, outs: { ...inputs, encoded: key.encoded } };
    } catch (error) {
      throw reported(error, 'creating the API key', inputs.url);
    }
  },

  async update(_id, olds, news) {
    return { outs: { ...news, encoded: olds.encoded } };
  },

  async delete(id, props) {
    try {
      await invalidateApiKey({ ...connection(props), username: props.username, password: props.password, id });
    } catch (error) {
      // A key the engine no longer knows is gone already, which is what delete asks for.
      if (!(error instanceof SearchEngineError && error.failure === 'not-found')) throw reported(error, `invalidating API key ${id}`, props.url);
    }
  },
};

export type ApiKeyArgs = { readonly [Field in keyof ApiKeyInputs]: pulumi.Input<ApiKeyInputs[Field]> };

export class SearchEngineApiKey extends pulumi.dynamic.Resource {
  /** The key's `encoded` value, the API token of the assistant's integration settings; always a secret. */
  declare readonly encoded: pulumi.Output<string>;

  constructor(name: string, args: ApiKeyArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      apiKeyProvider,
      name,
      { ...args, password: pulumi.secret(args.password), encoded: undefined },
      { ...opts, additionalSecretOutputs: ['encoded', 'password'] },
      'probekit',
      'SearchEngineApiKey',
    );
  }
}
