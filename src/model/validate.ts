/**
 * From what a user wrote to a validated Spec: schema checks, presets expanded, defaults filled, and the
 * rules that span fields. Every problem is one line naming the field and the fix; all of them are
 * reported at once so that one synth shows everything to mend.
 */
import { DURATION_HINT, moduleSchema, parseDuration, targetProblem, validateModule, type ModuleInput, type ProberName } from '@probekit/exporter';
import { describeIssues, formatPath, type FieldPath } from './issues';
import { http2xx, http2xxWithHeader, httpPost2xx } from './presets';
import { isSecretRef, readEnvSecret, type Environment, type SecretRef } from './secret-ref';
import { DEFAULTS, specSchema, type Job, type PresetModule, type Spec, type SpecInput, type SpecModule } from './spec';

export class SpecError extends Error {
  constructor(readonly problems: readonly string[], readonly source?: string) {
    super(problems.map((problem) => (source ? `${source}: ${problem}` : problem)).join('\n'));
    this.name = 'SpecError';
  }
}

export interface ParseOptions {
  /** Where the spec came from, put before every problem (a file name, `probekit:spec`). */
  readonly source?: string;
  /**
   * The environment `fromEnv` references are read from. Given, an unset variable is an error; omitted,
   * references are not checked (for tools that only read the spec).
   */
  readonly env?: Environment;
}

/** Validates a spec and fills its defaults; throws SpecError listing every problem. */
export function parseSpec(input: SpecInput | unknown, options: ParseOptions = {}): Spec {
  const parsed = specSchema.safeParse(input);
  if (!parsed.success) throw new SpecError(describeIssues(specSchema, parsed.error.issues), options.source);
  const raw = parsed.data;
  const problems: string[] = [];

  const modules: Record<string, SpecModule> = {};
  for (const [name, entry] of Object.entries(raw.modules ?? {})) {
    const module = 'preset' in entry ? expandPreset(entry as PresetModule) : (entry as SpecModule);
    problems.push(...checkModule(name, module));
    modules[name] = module;
  }

  const jobs = raw.jobs.map(
    (job): Job => ({
      name: job.name ?? DEFAULTS.job.name,
      module: job.module,
      targets: job.targets,
      scrapeInterval: job.scrapeInterval ?? DEFAULTS.job.scrapeInterval,
      scrapeTimeout: job.scrapeTimeout ?? DEFAULTS.job.scrapeTimeout,
      labels: job.labels ?? {},
    }),
  );
  if (jobs.length === 0) problems.push('jobs: is empty; add at least one job with a module and its targets');
  jobs.forEach((job, index) => problems.push(...checkJob(job, ['jobs', index], modules)));
  problems.push(...checkDuplicateJobNames(jobs));

  const spec: Spec = {
    namespace: raw.namespace ?? DEFAULTS.namespace,
    exporter: {
      image: raw.exporter?.image ?? DEFAULTS.exporter.image,
      replicas: raw.exporter?.replicas ?? DEFAULTS.exporter.replicas,
      serviceName: raw.exporter?.serviceName ?? DEFAULTS.exporter.serviceName,
      resources: {
        requests: { ...DEFAULTS.exporter.resources.requests, ...raw.exporter?.resources?.requests },
        limits: { ...DEFAULTS.exporter.resources.limits, ...raw.exporter?.resources?.limits },
      },
    },
    modules,
    jobs,
    agent: {
      chartKey: raw.agent?.chartKey ?? DEFAULTS.agent.chartKey,
      exporterKey: raw.agent?.exporterKey ?? DEFAULTS.agent.exporterKey,
      enableExporter: raw.agent?.enableExporter ?? DEFAULTS.agent.enableExporter,
    },
    searchEngine: raw.searchEngine && {
      url: raw.searchEngine.url,
      apiToken: raw.searchEngine.apiToken,
      secretName: raw.searchEngine.secretName ?? DEFAULTS.searchEngine.secretName,
    },
  };

  if (options.env) problems.push(...checkEnvReferences(spec, options.env));
  if (problems.length > 0) throw new SpecError(problems, options.source);
  return spec;
}

function expandPreset(entry: PresetModule): SpecModule {
  switch (entry.preset) {
    case 'http_2xx':
      return http2xx();
    case 'http_2xx_with_header':
      return http2xxWithHeader({ accessToken: entry.accessToken, acceptLanguage: entry.acceptLanguage });
    case 'http_post_2xx':
      return httpPost2xx({ body: entry.body });
  }
}

/** The module with each secret header replaced by a stand-in, as the exporter's schema sees it. */
export function withoutSecretHeaders(module: SpecModule): ModuleInput {
  if (!module.http?.headers) return module as ModuleInput;
  const headers = Object.fromEntries(
    Object.entries(module.http.headers).map(([name, value]) => [name, typeof value === 'string' ? value : '<secret>']),
  );
  return { ...module, http: { ...module.http, headers } } as ModuleInput;
}

/** The secret references among a module's header values, by header name. */
export function secretHeaders(module: SpecModule): Array<[header: string, ref: SecretRef]> {
  return Object.entries(module.http?.headers ?? {}).filter((entry): entry is [string, SecretRef] => isSecretRef(entry[1]));
}

/** The exporter's own checks: its schema, then its cross-field rules (regexps, prober sections...). */
function checkModule(name: string, module: SpecModule): string[] {
  const result = moduleSchema.safeParse(withoutSecretHeaders(module));
  if (!result.success) return describeIssues(moduleSchema, result.error.issues, ['modules', name]);
  return validateModule(name, result.data).map((problem) => `${formatPath(problem.path)}: ${problem.message}`);
}

function checkJob(job: Job, path: FieldPath, modules: Readonly<Record<string, SpecModule>>): string[] {
  const problems: string[] = [];
  const field = (name: string): string => formatPath([...path, name]);
  const interval = parseDuration(job.scrapeInterval);
  const timeout = parseDuration(job.scrapeTimeout);
  if (interval === undefined) problems.push(`${field('scrapeInterval')}: "${job.scrapeInterval}" must be ${DURATION_HINT}`);
  if (timeout === undefined) problems.push(`${field('scrapeTimeout')}: "${job.scrapeTimeout}" must be ${DURATION_HINT}`);
  if (interval !== undefined && timeout !== undefined && timeout > interval) {
    problems.push(`${field('scrapeTimeout')}: ${job.scrapeTimeout} is longer than scrapeInterval ${job.scrapeInterval}, which Prometheus refuses; lower scrapeTimeout or raise scrapeInterval`);
  }

  const module = modules[job.module];
  if (!module) {
    const known = Object.keys(modules);
    const fix = known.length > 0 ? `use one of: ${known.join(', ')}, or define it under modules` : 'define it under modules';
    problems.push(`${field('module')}: module "${job.module}" is not defined; ${fix}`);
  } else {
    const moduleTimeout = module.timeout === undefined ? undefined : parseDuration(module.timeout);
    if (moduleTimeout !== undefined && timeout !== undefined && moduleTimeout > timeout) {
      problems.push(`${formatPath(['modules', job.module, 'timeout'])}: ${module.timeout} is longer than scrapeTimeout ${job.scrapeTimeout} of job "${job.name}", so probes would be cut short; lower the module's timeout or raise the job's scrapeTimeout`);
    }
  }

  if (job.targets.length === 0) problems.push(`${field('targets')}: is empty; list at least one endpoint to probe`);
  if (module) {
    job.targets.forEach((target, index) => {
      const problem = checkTarget(target, module.prober);
      if (problem) problems.push(`${formatPath([...path, 'targets', index])}: "${target}" ${problem}`);
    });
  }
  return problems;
}

function checkDuplicateJobNames(jobs: readonly Job[]): string[] {
  const seen = new Map<string, number>();
  const problems: string[] = [];
  jobs.forEach((job, index) => {
    const first = seen.get(job.name);
    if (first === undefined) seen.set(job.name, index);
    else problems.push(`${formatPath(['jobs', index, 'name'])}: "${job.name}" is already the name of jobs[${first}]; Prometheus needs unique job names, so give this job a name of its own`);
  });
  return problems;
}

/** Why a target does not fit its prober, or undefined when it does: the exporter's own grammar. */
export function checkTarget(target: string, prober: ProberName): string | undefined {
  return targetProblem(prober, target, { strict: true });
}

function checkEnvReferences(spec: Spec, env: Environment): string[] {
  const references: Array<[FieldPath, SecretRef]> = [];
  if (spec.searchEngine) references.push([['searchEngine', 'apiToken'], spec.searchEngine.apiToken]);
  for (const [name, module] of Object.entries(spec.modules)) {
    for (const [header, ref] of secretHeaders(module)) references.push([['modules', name, 'http', 'headers', header], ref]);
  }
  return references.flatMap(([path, ref]) =>
    'fromEnv' in ref && readEnvSecret(ref, env) === undefined
      ? [`${formatPath([...path, 'fromEnv'])}: environment variable ${ref.fromEnv} is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }`]
      : [],
  );
}
