/**
 * The stack configuration: the `probekit:*` keys of a Pulumi stack file, read and validated in one place.
 * Every problem is found in one run and printed as one line that starts with the full key that is wrong
 * (`probekit:clusters[1].name: ...`), and no message repeats a value: a malformed key may hold a password or
 * a kubeconfig.
 */
import * as pulumi from '@pulumi/pulumi';
import { z } from 'zod';
import {
  checkTarget,
  clusterFormProblems,
  DEFAULTS,
  formatPath,
  formatProblem,
  parseSpec,
  ProblemsError,
  SpecError,
  type Environment,
  type FieldPath,
  type Problem,
  type Spec,
  type SpecInput,
  valueFreeSchemaProblems,
  withRequiredHints,
} from 'probekit';
import { ROLE_PRESET_NAMES, type RolePreset } from '@probekit/assistant';

/** The configuration namespace: the project name of Pulumi.yaml. */
export const CONFIG_NAMESPACE = 'probekit';

/** The stack's configuration keys; their names are a contract (docs/pulumi.md, Pulumi.dev.yaml). */
export const CONFIG_KEYS = {
  spec: 'spec',
  clusters: 'clusters',
  searchEngine: 'searchEngine',
  agent: 'agent',
} as const;

const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS-1123 label: lower case letters, digits and -, at most 63');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' });

/**
 * What one cluster changes in the spec. Namespace and replicas are checked by the spec's own rules once applied
 * (deployClusters), and their problems named by these keys.
 */
const overridesSchema = z.strictObject({
  namespace: z.string().optional(),
  /** This cluster's location: the `location` label of its series. @default the cluster's name */
  location: z.string().optional(),
  replicas: z.number().optional(),
  /** Job name to targets probed from this cluster in addition to the job's own. */
  // Refinements rather than min(1): their messages are kept as written, and say the fix.
  extraTargets: z
    .record(
      z.string().min(1),
      z.array(z.string()).refine((targets) => targets.length > 0, 'must list at least one target; leave the job out instead'),
    )
    .optional(),
});

const clusterSchema = z.strictObject({
  /** Names the cluster's Pulumi resources; stable, because renaming it replaces them. */
  name: dnsLabel,
  /** Path to a kubeconfig file or its content; either way handled as a secret. */
  kubeconfig: z.string().min(1, 'must not be empty; leave it out to use the ambient kubeconfig').optional(),
  /** Context of the kubeconfig to use; its current context when left out. */
  context: z.string().min(1).optional(),
  overrides: overridesSchema.optional(),
  /**
   * The cluster whose Prometheus receives every cluster's series and evaluates the rules: with the Operator, only it
   * gets the PrometheusRule and the AlertmanagerConfig. @default - every cluster gets them
   */
  central: z.boolean().optional(),
});

const clustersSchema = z
  .array(clusterSchema)
  .refine((clusters) => clusters.length > 0, 'must list at least one cluster')
  .superRefine((clusters, ctx) => {
    const seen = new Set<string>();
    const central = clusters.findIndex((cluster) => cluster.central === true);
    clusters.forEach((cluster, index) => {
      if (cluster.central === true && index !== central) {
        ctx.addIssue({ code: 'custom', path: [index, 'central'], message: `is true for clusters[${central}] already; one cluster evaluates the rules, so keep central on one` });
      }
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
  /** Skip verification of the engine's TLS certificate (the documented example invocation does). */
  insecure: z.boolean().optional(),
  /** PEM file of the CA that signed the engine's certificate. */
  caFile: z.string().min(1).optional(),
  /** Role preset of the key; `all-access` is the documented role. @default read-only */
  role: z.enum(ROLE_PRESET_NAMES as [RolePreset, ...RolePreset[]], { error: `must be one of ${ROLE_PRESET_NAMES.join(', ')}` }).optional(),
  /** Name of the created key (the `name` of the create request); changing it creates a new key and invalidates the old. */
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
  /**
   * The Helm chart to install: its name (with `repository`), an `oci://` reference or a local chart path. Not the
   * spec's `agent.chart`, which says in whose layout the values are written (generic, prometheus, alloy, ...).
   */
  helmChart: z.string().min(1),
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

/** Problems of the configuration, one line each, each starting with the configuration key it is about. */
export class StackConfigError extends ProblemsError {
  constructor(problems: readonly Problem[]) {
    super(problems);
    this.name = 'StackConfigError';
    // A key is written as Pulumi writes it, the namespace joined to the path: probekit:clusters[1].name.
    this.message = problems.map((problem) => `${CONFIG_NAMESPACE}:${formatProblem(problem)}`).join('\n');
  }
}

/** What a required field holds, said when it is missing. */
const REQUIRED: Readonly<Record<string, string>> = {
  name: 'a DNS label naming the cluster; its resources are named after it',
  url: "the search engine's URL, for example https://elasticsearch.example:9200",
  username: 'a search-engine user allowed to create API keys',
  password: "that user's password (pulumi config set --secret --path 'probekit:searchEngine.password')",
  helmChart: 'the Helm chart to install: a name with repository, an oci:// reference or a local path',
  releaseName: "the agent's Helm release name",
};

/** The problems of one key's value; none when it fits. */
function keyProblems<T>(key: string, schema: z.ZodType<T>, value: unknown, shape: string): { value?: T; problems: Problem[] } {
  if (value === undefined) return { problems: [{ path: [key], message: `required: ${shape}` }] };
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return { value: result.data, problems: [] };
  return { problems: withRequiredHints(valueFreeSchemaProblems(schema, result.error.issues, [key]), REQUIRED) };
}

/**
 * `probekit:agent`. Its Helm chart was once `chart`, the name the spec's `agent.chart` (the values' layout) has:
 * that key is refused naming the new one, and the rest checked as if it were renamed, so that one run says all.
 */
function agentProblems(value: unknown): { value?: AgentConfig; problems: Problem[] } {
  const shape = '{ helmChart, releaseName, repository?, version?, namespace? }';
  if (typeof value !== 'object' || value === null || !('chart' in value)) return keyProblems(CONFIG_KEYS.agent, agentSchema, value, shape);
  const { chart, ...rest } = value as Record<string, unknown>;
  const renamed: Problem = {
    path: [CONFIG_KEYS.agent, 'chart'],
    message:
      "is now helmChart: the Helm chart to install (a name with repository, an oci:// reference or a local path); rename the key. The layout of the chart's values is probekit:spec's agent.chart",
  };
  const checked = keyProblems(CONFIG_KEYS.agent, agentSchema, 'helmChart' in rest ? rest : { ...rest, helmChart: chart }, shape);
  return { problems: [renamed, ...checked.problems] };
}

function searchEngineProblems(value: unknown): { value?: SearchEngineConfig; problems: Problem[] } {
  const shape = 'either { url, username, password } to create the API key, or { url, apiToken } to use one made elsewhere';
  // The two forms are told apart by `apiToken`, so that an error speaks of the form the user meant.
  const usesToken = typeof value === 'object' && value !== null && 'apiToken' in value;
  return usesToken
    ? keyProblems<SearchEngineConfig>(CONFIG_KEYS.searchEngine, searchEngineTokenSchema, value, shape)
    : keyProblems<SearchEngineConfig>(CONFIG_KEYS.searchEngine, searchEngineAdminSchema, value, shape);
}

export function createsApiKey(searchEngine: SearchEngineConfig): searchEngine is SearchEngineAdminConfig {
  return 'password' in searchEngine;
}

/** A spec as the cluster form takes it: valid, and asking nothing only a machine can do (a unix job); else a SpecError. */
function parseClusterSpec(input: SpecInput, env: Environment): Spec {
  const spec = parseSpec(input, { env });
  const problems = clusterFormProblems(spec);
  if (problems.length > 0) throw new SpecError(problems);
  return spec;
}

/** Spec problems (`jobs[0].module: ...`) as problems of the stack's key that holds the spec (`spec.jobs[0].module: ...`). */
function specProblems(error: unknown, key: FieldPath): Problem[] {
  if (!(error instanceof SpecError)) throw error;
  return error.problems.map((problem) => ({ path: [...key, ...problem.path], message: problem.message }));
}

function baseSpecProblems(value: unknown, env: Environment): { value?: { input: SpecInput; spec: Spec }; problems: Problem[] } {
  if (value === undefined) return { problems: [{ path: [CONFIG_KEYS.spec], message: "required: the spec, as in the cluster form's YAML file" }] };
  const problems: Problem[] = [];
  let input = value as SpecInput;
  if (typeof value === 'object' && value !== null && 'searchEngine' in value) {
    problems.push({ path: [CONFIG_KEYS.spec, 'searchEngine'], message: 'the stack takes the search engine from probekit:searchEngine; remove it from the spec' });
    const { searchEngine: _searchEngine, ...rest } = value as SpecInput;
    input = rest;
  }
  try {
    const spec = parseClusterSpec(input, env);
    return problems.length > 0 ? { problems } : { value: { input, spec }, problems };
  } catch (error) {
    return { problems: [...problems, ...specProblems(error, [CONFIG_KEYS.spec])] };
  }
}

/** Targets added to a job must exist as jobs and suit the job's prober, checked as the spec checks its own. */
function checkExtraTargets(spec: Spec, overrides: ClusterOverrides, path: FieldPath): Problem[] {
  return Object.entries(overrides.extraTargets ?? {}).flatMap(([jobName, targets]) => {
    const job = spec.jobs.find((candidate) => candidate.name === jobName);
    if (!job) {
      return [{ path: [...path, jobName], message: `probekit:spec has no job named so; its jobs are: ${spec.jobs.map((j) => j.name).join(', ')}` }];
    }
    const prober = spec.modules[job.module]!.prober;
    return targets.flatMap((target, index) => {
      const problem = checkTarget(target, prober);
      return problem === undefined ? [] : [{ path: [...path, jobName, index], message: `"${target}" ${problem}` }];
    });
  });
}

/**
 * Where each cluster probes from: its override, the spec's `location` when the stack has one cluster, else its name;
 * and every location (the spec's `locations`, else every cluster's), which the rules count.
 */
export function clusterLocations(input: SpecInput, clusters: ReadonlyArray<{ readonly name: string; readonly overrides?: ClusterOverrides }>): { each: string[]; all: readonly string[] } {
  const each = clusters.map((cluster) => cluster.overrides?.location ?? (clusters.length === 1 ? input.location : undefined) ?? cluster.name);
  return { each, all: input.locations ?? [...new Set(each)] };
}

/** The spec as one cluster runs it: the stack's spec with the cluster's overrides. */
export function applyOverrides(input: SpecInput, overrides: ClusterOverrides = {}): SpecInput {
  return {
    ...input,
    ...(overrides.namespace === undefined ? {} : { namespace: overrides.namespace }),
    ...(overrides.replicas === undefined ? {} : { exporter: { ...input.exporter, replicas: overrides.replicas } }),
    jobs: input.jobs.map((job) => {
      const extra = overrides.extraTargets?.[job.name ?? DEFAULTS.job.name];
      return extra === undefined ? job : { ...job, targets: [...(job.targets ?? []), ...extra] };
    }),
  };
}

/**
 * Validates the configuration; throws a StackConfigError naming every key that is wrong. `env` is where the
 * spec's `fromEnv` references are read (the environment of `pulumi up`).
 */
export function parseStackConfig(raw: RawStackConfig, env: Environment): StackConfig {
  const clusters = keyProblems(CONFIG_KEYS.clusters, clustersSchema, raw.clusters, 'a list of { name, kubeconfig?, context?, overrides? }');
  const searchEngine = searchEngineProblems(raw.searchEngine);
  const agent = agentProblems(raw.agent);
  const base = baseSpecProblems(raw.spec, env);
  const keyed = [clusters, searchEngine, agent, base].flatMap((key) => key.problems);
  if (keyed.length > 0 || !clusters.value || !searchEngine.value || !agent.value || !base.value) throw new StackConfigError(keyed);
  return { clusters: deployClusters(clusters.value, base.value, env), searchEngine: searchEngine.value, agent: agent.value };
}

/** Each cluster's spec: the stack's spec with the cluster's overrides, checked again as a whole. */
function deployClusters(clusters: ReadonlyArray<z.infer<typeof clusterSchema>>, base: { input: SpecInput; spec: Spec }, env: Environment): ClusterConfig[] {
  const problems: Problem[] = [];
  if (base.input.location !== undefined && clusters.length > 1) {
    problems.push({
      path: [CONFIG_KEYS.spec, 'location'],
      message: `is one location for all ${clusters.length} clusters; leave it out (each cluster is the location of its name) or set clusters[i].overrides.location`,
    });
  }
  const locations = clusterLocations(base.input, clusters);
  const deployed = clusters.map((cluster, index): ClusterConfig | undefined => {
    const path: FieldPath = [CONFIG_KEYS.clusters, index, 'overrides'];
    const targetProblems = checkExtraTargets(base.spec, cluster.overrides ?? {}, [...path, 'extraTargets']);
    problems.push(...targetProblems);
    if (targetProblems.length > 0) return undefined;
    try {
      // Overrides add no module or job, so what only the cluster form refuses was checked with the base spec.
      const input = applyOverrides(base.input, cluster.overrides);
      // Beside a central cluster, the others' Prometheus only sends: the rules and the routing are the central one's.
      const sender = clusters.some((candidate) => candidate.central === true) && cluster.central !== true && input.operator !== undefined;
      const operator = sender ? { operator: { ...input.operator, rules: false, alertmanagerConfig: false } } : {};
      const spec = parseSpec({ ...input, ...operator, location: locations.each[index], locations: locations.all }, { env });
      return { name: cluster.name, kubeconfig: cluster.kubeconfig, context: cluster.context, spec };
    } catch (error) {
      // What changed is the overrides: the spec's exporter.replicas is the override's replicas.
      // A location problem reads as the override's key (clusters[i].overrides.location), whether written or the cluster's name.
      const replicas = formatPath([...path, 'exporter', 'replicas']);
      problems.push(...specProblems(error, path).map((problem) => (formatPath(problem.path) === replicas ? { ...problem, path: [...path, 'replicas'] } : problem)));
      return undefined;
    }
  });
  if (problems.length > 0) throw new StackConfigError(problems);
  return deployed as ClusterConfig[];
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
      throw new StackConfigError([{ path: [key], message: 'must be structured configuration (pulumi config set --path, or YAML in the stack file), not a plain string' }]);
    }
  }
  return raw;
}
