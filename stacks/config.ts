/**
 * The stack configuration: the `probekit:*` keys of a Pulumi stack file, read and validated in one place.
 * Every error is one line that starts with the full key that is wrong (`probekit:clusters[1].name: ...`),
 * and never repeats a value: a malformed key may hold a password or a kubeconfig.
 */
import * as pulumi from '@pulumi/pulumi';
import { z } from 'zod';
import { checkTarget, DEFAULTS, describeIssues, formatPath, parseSpec, SpecError, specSchema, type Environment, type FieldPath, type Spec, type SpecInput } from 'probekit';
import { ROLE_PRESET_NAMES, type RolePreset } from 'probekit/search';

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

/** What one cluster changes in the spec; namespace and replicas are checked by the spec's own rules. */
const overridesSchema = z.strictObject({
  namespace: specSchema.shape.namespace,
  replicas: specSchema.shape.exporter.unwrap().shape.replicas,
  /** Job name to targets probed from this cluster in addition to the job's own. */
  extraTargets: z.record(z.string().min(1), z.array(z.string()).min(1, 'must list at least one target; leave the job out instead')).optional(),
});

const clusterSchema = z.strictObject({
  /** Names the cluster's Pulumi resources; stable, because renaming it replaces them. */
  name: dnsLabel,
  /** Path to a kubeconfig file or its content; either way handled as a secret. */
  kubeconfig: z.string().min(1, 'must not be empty; leave it out to use the ambient kubeconfig').optional(),
  /** Context of the kubeconfig to use; its current context when left out. */
  context: z.string().min(1).optional(),
  overrides: overridesSchema.optional(),
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
  /** The Helm release: an agent installed already is upgraded under its own release name. */
  releaseName: dnsLabel,
  /** @default the cluster's spec namespace */
  namespace: dnsLabel.optional(),
});

export type ClusterOverrides = z.infer<typeof overridesSchema>;
export type SearchEngineAdminConfig = z.infer<typeof searchEngineAdminSchema>;
export type SearchEngineTokenConfig = z.infer<typeof searchEngineTokenSchema>;
export type SearchEngineConfig = SearchEngineAdminConfig | SearchEngineTokenConfig;
export type AgentConfig = z.infer<typeof agentSchema>;

/** One cluster as the program deploys it: where it is, and the spec with its overrides applied. */
export interface ClusterConfig {
  readonly name: string;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly spec: Spec;
}

/** The configuration as read, one JSON value per key (undefined when the key is not set). */
export type RawStackConfig = Partial<Record<keyof typeof CONFIG_KEYS, unknown>>;

export interface StackConfig {
  readonly clusters: readonly ClusterConfig[];
  readonly searchEngine: SearchEngineConfig;
  readonly agent: AgentConfig;
}

/** One or more problems, one line each, each starting with the configuration key it is about. */
export class StackConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'StackConfigError';
  }
}

/** `['clusters', 1, 'name']` → `probekit:clusters[1].name`. */
function keyName(path: FieldPath): string {
  return `${CONFIG_NAMESPACE}:${formatPath(path)}`;
}

/** One problem line about the key at `path`. */
export function problemAt(path: FieldPath, problem: string): string {
  return `${keyName(path)}: ${problem}`;
}

function parseKey<T>(key: string, schema: z.ZodType<T>, value: unknown, shape: string): T {
  if (value === undefined) throw new StackConfigError([problemAt([key], `required: ${shape}`)]);
  // Messages come from the schema and name no value; `required` replaces zod's "received undefined".
  const result = schema.safeParse(value, { error: (issue) => (issue.input === undefined ? 'required' : undefined) });
  if (result.success) return result.data;
  throw new StackConfigError(describeIssues(schema, result.error.issues.slice(0, 1), [key]).map((line) => `${CONFIG_NAMESPACE}:${line}`));
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

/** Spec problems (`jobs[0].module: ...`) as keys of the stack (`probekit:spec.jobs[0].module: ...`). */
function specProblems(error: unknown, key: FieldPath): string[] {
  if (!(error instanceof SpecError)) throw error;
  return error.problems.map((problem) =>
    problem.startsWith('(top level): ') ? problemAt(key, problem.slice('(top level): '.length)) : `${keyName(key)}.${problem}`,
  );
}

function parseBaseSpec(value: unknown, env: Environment): { input: SpecInput; spec: Spec } {
  if (value === undefined) throw new StackConfigError([problemAt([CONFIG_KEYS.spec], 'required: the spec, as in the cluster form\'s YAML file')]);
  if (typeof value === 'object' && value !== null && 'searchEngine' in value) {
    throw new StackConfigError([problemAt([CONFIG_KEYS.spec, 'searchEngine'], 'the stack takes the search engine from probekit:searchEngine; remove it from the spec')]);
  }
  try {
    return { input: value as SpecInput, spec: parseSpec(value, { env }) };
  } catch (error) {
    throw new StackConfigError(specProblems(error, [CONFIG_KEYS.spec]));
  }
}

/** Targets added to a job must exist as jobs and suit the job's prober, checked as the spec checks its own. */
function checkExtraTargets(spec: Spec, overrides: ClusterOverrides, path: FieldPath): string[] {
  return Object.entries(overrides.extraTargets ?? {}).flatMap(([jobName, targets]) => {
    const job = spec.jobs.find((candidate) => candidate.name === jobName);
    if (!job) {
      return [problemAt([...path, jobName], `probekit:spec has no job named so; its jobs are: ${spec.jobs.map((j) => j.name).join(', ')}`)];
    }
    const prober = spec.modules[job.module]!.prober;
    return targets.flatMap((target, index) => {
      const problem = checkTarget(target, prober);
      return problem === undefined ? [] : [problemAt([...path, jobName, index], `"${target}" ${problem}`)];
    });
  });
}

/** The spec as one cluster runs it: the stack's spec with the cluster's overrides. */
export function applyOverrides(input: SpecInput, overrides: ClusterOverrides = {}): SpecInput {
  return {
    ...input,
    ...(overrides.namespace === undefined ? {} : { namespace: overrides.namespace }),
    ...(overrides.replicas === undefined ? {} : { exporter: { ...input.exporter, replicas: overrides.replicas } }),
    jobs: input.jobs.map((job) => {
      const extra = overrides.extraTargets?.[job.name ?? DEFAULTS.job.name];
      return extra === undefined ? job : { ...job, targets: [...job.targets, ...extra] };
    }),
  };
}

/**
 * Validates the configuration; throws a StackConfigError naming the keys that are wrong. `env` is where the
 * spec's `fromEnv` references are read (the environment of `pulumi up`).
 */
export function parseStackConfig(raw: RawStackConfig, env: Environment): StackConfig {
  const clusters = parseKey(CONFIG_KEYS.clusters, clustersSchema, raw.clusters, 'a list of { name, kubeconfig?, context?, overrides? }');
  const searchEngine = parseSearchEngine(raw.searchEngine);
  const agent = parseKey(CONFIG_KEYS.agent, agentSchema, raw.agent, '{ chart, releaseName, repository?, version?, namespace? }');
  const base = parseBaseSpec(raw.spec, env);

  const problems: string[] = [];
  const deployed = clusters.map((cluster, index): ClusterConfig | undefined => {
    const path: FieldPath = [CONFIG_KEYS.clusters, index, 'overrides'];
    const targetProblems = checkExtraTargets(base.spec, cluster.overrides ?? {}, [...path, 'extraTargets']);
    problems.push(...targetProblems);
    if (targetProblems.length > 0) return undefined;
    try {
      const spec = parseSpec(applyOverrides(base.input, cluster.overrides), { env });
      return { name: cluster.name, kubeconfig: cluster.kubeconfig, context: cluster.context, spec };
    } catch (error) {
      problems.push(...specProblems(error, path));
      return undefined;
    }
  });
  if (problems.length > 0) throw new StackConfigError(problems);
  return { clusters: deployed as ClusterConfig[], searchEngine, agent };
}

/** Reads the `probekit:*` keys of the running stack. Structured values arrive as JSON text. */
export function readRawStackConfig(config: pulumi.Config = new pulumi.Config(CONFIG_NAMESPACE)): RawStackConfig {
  const raw: RawStackConfig = {};
  for (const key of Object.values(CONFIG_KEYS)) {
    const text = config.get(key);
    if (text === undefined) continue;
    try {
      raw[key] = JSON.parse(text);
    } catch {
      // Pulumi's own error would quote the value, which may be a secret.
      throw new StackConfigError([problemAt([key], 'must be structured configuration (pulumi config set --path, or YAML in the stack file), not a plain string')]);
    }
  }
  return raw;
}
