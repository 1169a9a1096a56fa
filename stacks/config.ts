/**
 * The stack configuration: the `probekit:*` keys of a Pulumi stack file, read and validated in one place.
 * Every error is one line that starts with the full key that is wrong (`probekit:clusters[1].name: ...`),
 * and never repeats a value: a malformed key may hold a password or a kubeconfig.
 */
import * as pulumi from '@pulumi/pulumi';
import { z } from 'zod';
import { ROLE_PRESET_NAMES, type RolePreset } from '../src/search/api-key';

/** The configuration namespace: the project name of Pulumi.yaml. */
export const CONFIG_NAMESPACE = 'probekit';

/** The stack's configuration keys; their names are a contract (README, Pulumi.dev.yaml). */
export const CONFIG_KEYS = {
  spec: 'spec',
  clusters: 'clusters',
  searchEngine: 'searchEngine',
  agent: 'agent',
} as const;

const dnsLabel = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS-1123 label: lower case letters, digits and -, at most 63');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' });

const clusterSchema = z.strictObject({
  /** Names the cluster's Pulumi resources; stable, because renaming it replaces them. */
  name: dnsLabel,
  /** Path to a kubeconfig file or its content; either way handled as a secret. */
  kubeconfig: z.string().min(1, 'must not be empty; leave it out to use the ambient kubeconfig').optional(),
  /** Context of the kubeconfig to use; its current context when left out. */
  context: z.string().min(1).optional(),
});

const clustersSchema = z
  .array(clusterSchema, { error: (issue) => (issue.code === 'invalid_type' ? 'must be a list of clusters' : undefined) })
  .min(1, 'must list at least one cluster')
  .superRefine((clusters, ctx) => {
    const seen = new Set<string>();
    clusters.forEach((cluster, index) => {
      if (seen.has(cluster.name)) {
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: 'repeats the name of an earlier cluster; cluster names must be unique' });
      }
      seen.add(cluster.name);
    });
  });

/** Admin credentials: the stack creates the API key at deploy time and invalidates it on destroy. */
const searchEngineAdminSchema = z.strictObject({
  url: httpUrl,
  username: z.string().min(1),
  password: z.string().min(1),
  /** Skip verification of the engine's TLS certificate (the seed's example invocation does). */
  insecure: z.boolean().optional(),
  /** PEM file of the CA that signed the engine's certificate. */
  caFile: z.string().min(1).optional(),
  /** Role preset of the key; `all-access` is the seed's documented role. @default read-only */
  role: z.enum(ROLE_PRESET_NAMES as [RolePreset, ...RolePreset[]], { error: `must be one of ${ROLE_PRESET_NAMES.join(', ')}` }).optional(),
  /** Name of the created key (seed 2.5 `name`); changing it creates a new key and invalidates the old. */
  keyName: z.string().min(1).optional(),
  secretName: dnsLabel.optional(),
});

/** A key made elsewhere: its `encoded` value goes into every cluster's Secret as it is. */
const searchEngineTokenSchema = z.strictObject({
  url: httpUrl,
  apiToken: z.string().min(1),
  secretName: dnsLabel.optional(),
});

const agentSchema = z.strictObject({
  /** Chart name (with `repository`), or an `oci://` reference or a local chart path. */
  chart: z.string().min(1),
  repository: httpUrl.optional(),
  version: z.string().min(1).optional(),
  releaseName: dnsLabel.optional(),
  namespace: dnsLabel.optional(),
});

export type ClusterConfig = z.infer<typeof clusterSchema>;
export type SearchEngineAdminConfig = z.infer<typeof searchEngineAdminSchema>;
export type SearchEngineTokenConfig = z.infer<typeof searchEngineTokenSchema>;
export type SearchEngineConfig = SearchEngineAdminConfig | SearchEngineTokenConfig;
export type AgentConfig = z.infer<typeof agentSchema>;

/** The configuration as read, one JSON value per key (undefined when the key is not set). */
export type RawStackConfig = Partial<Record<keyof typeof CONFIG_KEYS, unknown>>;

export interface StackConfig {
  readonly clusters: readonly ClusterConfig[];
  readonly searchEngine: SearchEngineConfig;
  readonly agent: AgentConfig;
}

/** `probekit:clusters`, `[1]`, `name` → `probekit:clusters[1].name`. */
export function configKeyPath(key: string, path: readonly PropertyKey[] = []): string {
  return path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : `${text}.${String(segment)}`),
    `${CONFIG_NAMESPACE}:${key}`,
  );
}

export class StackConfigError extends Error {
  constructor(key: string, path: readonly PropertyKey[], problem: string) {
    super(`${configKeyPath(key, path)}: ${problem}`);
    this.name = 'StackConfigError';
  }
}

function parseKey<T>(key: string, schema: z.ZodType<T>, value: unknown, shape: string): T {
  if (value === undefined) {
    throw new StackConfigError(key, [], `required: ${shape}`);
  }
  // Messages come from the schema and name no value; `required` replaces zod's "received undefined".
  const result = schema.safeParse(value, { error: (issue) => (issue.input === undefined ? 'required' : undefined) });
  if (result.success) {
    return result.data;
  }
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw new StackConfigError(key, [...issue.path, issue.keys[0]!], 'unknown field; check its spelling against the README');
  }
  throw new StackConfigError(key, issue.path, issue.message);
}

function parseSearchEngine(value: unknown): SearchEngineConfig {
  const shape = 'either { url, username, password } to create the API key, or { url, apiToken } to use one made elsewhere';
  // The two forms are told apart by `apiToken`, so that an error speaks of the form the user meant.
  const usesToken = typeof value === 'object' && value !== null && 'apiToken' in value;
  return usesToken
    ? parseKey(CONFIG_KEYS.searchEngine, searchEngineTokenSchema, value, shape)
    : parseKey(CONFIG_KEYS.searchEngine, searchEngineAdminSchema, value, shape);
}

export function createsApiKey(searchEngine: SearchEngineConfig): searchEngine is SearchEngineAdminConfig {
  return 'password' in searchEngine;
}

/** Validates the configuration; throws a StackConfigError naming the first key that is wrong. */
export function parseStackConfig(raw: RawStackConfig): StackConfig {
  return {
    clusters: parseKey(CONFIG_KEYS.clusters, clustersSchema, raw.clusters, 'a list of { name, kubeconfig?, context?, overrides? }'),
    searchEngine: parseSearchEngine(raw.searchEngine),
    agent: parseKey(CONFIG_KEYS.agent, agentSchema, raw.agent, '{ chart, repository?, version?, releaseName?, namespace? }'),
  };
}

/** Reads the `probekit:*` keys of the running stack. Structured values arrive as JSON text. */
export function readRawStackConfig(config: pulumi.Config = new pulumi.Config(CONFIG_NAMESPACE)): RawStackConfig {
  const raw: RawStackConfig = {};
  for (const key of Object.values(CONFIG_KEYS)) {
    const text = config.get(key);
    if (text === undefined) {
      continue;
    }
    try {
      raw[key] = JSON.parse(text);
    } catch {
      // Pulumi's own error would quote the value, which may be a secret.
      throw new StackConfigError(key, [], 'must be structured configuration (pulumi config set --path, or YAML in the stack file), not a plain string');
    }
  }
  return raw;
}
