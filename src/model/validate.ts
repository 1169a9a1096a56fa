/**
 * From what a user wrote to a validated Spec: schema checks, presets expanded, defaults filled, and the
 * rules that span fields. Every problem names the field and the fix; all of them are reported at once, in
 * one pass, so that one synth shows everything to mend: each part of the spec is checked on its own, and
 * the checks across parts go on with the parts that passed.
 */
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'yaml';
import { z } from 'zod';
import {
  allowedTargetsProblems,
  closestName,
  DURATION_HINT,
  formatPath,
  kindOfValue,
  moduleProblems,
  parseDuration,
  parseGoDuration,
  ProblemsError,
  schemaProblems,
  targetProblem,
  type FieldPath,
  type Problem,
  type ProberName,
} from '@probekit/exporter';
import { http2xx, http2xxWithHeader, httpPost2xx, PRESET_NAMES, type PresetModule, type PresetName } from './presets';
import { exporterSize } from './sizing';
import { agentChartOf, agentShardsOf, agentTargetsOf, genericChartTemplateProblems, scrapesProbeObjects } from './agent-chart';
import { withDurationSuggestions, withRequiredHints } from './problems';
import { readEnvSecret, unsetVariableProblem, type Environment, type SecretRef } from './secret-ref';
import { moduleSecrets, moduleWithSecretFiles, secretCandidateFields, secretFieldProblems, withoutSecrets } from './secret-fields';
import { dashboardSettings, exporterSettings } from './defaults';
import { alertingSettings, downForProblems, LOCATION_LABEL } from './alerting';
import { hostSettings } from './host';
import { jobSchema, MODULE_NAME_RULE, moduleNameSchema, presetSchemas, secretRefSchema, specSchema, targetObjectSchema } from './schema';
import { probeObjectNames, TargetModules } from './targets';
import { DEFAULTS, MODULE_LABEL, type AlertThresholds, type Job, type ScrapeJob, type Spec, type SpecInput, type SpecModule, type Target, type DiscoverInput } from './spec';

/** A spec that cannot be used: every problem found, each printed with the spec's source before it. */
export class SpecError extends ProblemsError {
  constructor(problems: readonly Problem[], source?: string) {
    super(problems, source);
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

/** What to write for an empty spec: the least that synthesizes. */
export const EMPTY_SPEC_FIX =
  'write at least jobs: with one job and the module it names, for example modules: { http_2xx: { preset: http_2xx } } and jobs: [{ module: http_2xx, targets: [https://example.com] }]';

/** What a required field of the spec holds, said when it is missing. */
const REQUIRED: Readonly<Record<string, string>> = {
  jobs: 'list at least one job with a module and its targets',
  module: "name the module of modules that probes this job's targets",
  targets: 'list the endpoints to probe',
  url: "the search engine's URL, for example https://search.example.com:9200",
  apiToken: 'the API token, as { fromEnv: VAR } or { existingSecret: { name, key } }',
  accessToken: 'the token sent as "Authentication: Bearer <token>", as { fromEnv: VAR } or { existingSecret: { name, key } }',
  body: 'the JSON document the probe posts, as text (in YAML, quote it: body: \'{"check":"synthetic"}\')',
  name: 'the name of the Secret',
  key: 'the key of the Secret that holds the value',
};

/** Schema problems in the spec's words: a missing field says what it holds. */
function specSchemaProblems(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], path: FieldPath): Problem[] {
  return withRequiredHints(schemaProblems(schema, issues, path), REQUIRED);
}

/** One part of the spec checked against its schema; its problems go to `problems`, undefined when there are any. */
function parsePart<T>(schema: z.ZodType<T>, value: unknown, path: FieldPath, problems: Problem[]): T | undefined {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  problems.push(...specSchemaProblems(schema, result.error.issues, path));
  return undefined;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? `the text ${JSON.stringify(value)}` : `${typeof value} ${String(value)}`;
}

/**
 * An object of the spec field by field: each field that fits its schema is kept, each that does not is
 * reported, and so are unknown fields; `except` names fields checked elsewhere. Undefined when the value is
 * not a mapping at all.
 */
function parseFields<T extends object>(schema: z.ZodObject, value: unknown, path: FieldPath, problems: Problem[], except: readonly string[] = []): Partial<T> | undefined {
  const fields = Object.keys(schema.shape);
  if (!isMapping(value)) {
    problems.push({ path, message: `must be a mapping of ${fields.join(', ')}, not ${kindOf(value)}` });
    return undefined;
  }
  const known = z.strictObject(Object.fromEntries(fields.map((field) => [field, z.unknown().optional()]))).safeParse(value);
  if (!known.success) problems.push(...specSchemaProblems(schema, known.error.issues, path));
  const parsed: Record<string, unknown> = {};
  for (const field of fields.filter((name) => !except.includes(name))) {
    const result = parsePart(schema.shape[field] as z.ZodType, value[field], [...path, field], problems);
    if (result !== undefined) parsed[field] = result;
  }
  return parsed as Partial<T>;
}

type SpecFields = z.output<typeof specSchema>;

/** Validates a spec and fills its defaults; throws SpecError listing every problem. */
export function parseSpec(input: SpecInput | unknown, options: ParseOptions = {}): Spec {
  if (input === undefined || input === null) throw new SpecError([{ path: [], message: `the spec is empty; ${EMPTY_SPEC_FIX}` }], options.source);
  if (!isMapping(input)) throw new SpecError([{ path: [], message: `the spec must be a mapping of its fields (${Object.keys(specSchema.shape).join(', ')}), not ${kindOf(input)}` }], options.source);
  const problems: Problem[] = [];

  // Unknown fields come first: a misspelt `job:` explains the missing `jobs` reported after it.
  const { namespace, exporter, agent, searchEngine, dashboard, alerts, operator, host, location, locations, maintenance } = parseFields<SpecFields>(specSchema, input, [], problems, [
    'modules',
    'jobs',
  ])!;
  const { modules: written, defined } = parseModules(input.modules, problems);
  const thresholds: AlertThresholds = { ...DEFAULTS.alerts.thresholds, ...alerts?.thresholds };
  const targetModules = new TargetModules(written);
  const jobs = parseJobs(input.jobs, thresholds, problems, written, targetModules);
  // The spec's modules as written, then those the targets' own fields make.
  const modules = { ...written, ...targetModules.generated };
  Object.keys(targetModules.generated).forEach((name) => defined.add(name));
  jobs.forEach(([index, job]) => problems.push(...checkJob(job, ['jobs', index], modules, defined)));
  problems.push(...checkDuplicateJobNames(jobs));
  problems.push(...checkAutoscaling(exporter), ...checkSizeFromTargets(exporter));
  if (exporter?.allowedTargets) problems.push(...checkAllowedTargets(exporter.allowedTargets));
  problems.push(...checkThresholds(['alerts', 'thresholds'], alerts?.thresholds ?? {}, thresholds));
  jobs.forEach(([index, job]) => problems.push(...checkThresholds(['jobs', index, 'alerts'], (input.jobs as Array<{ alerts?: Partial<AlertThresholds> }>)[index].alerts ?? {}, job.alerts)));
  jobs.forEach(([index, job]) => {
    const written = (input.jobs as Array<{ alerts?: Partial<AlertThresholds> }>)[index].alerts?.downFor !== undefined;
    const writtenAt: FieldPath | undefined = written ? ['jobs', index, 'alerts', 'downFor'] : alerts?.thresholds?.downFor !== undefined ? ['alerts', 'thresholds', 'downFor'] : undefined;
    problems.push(...downForProblems(job, index, writtenAt));
  });
  const alertmanagerConfig = operator !== undefined && (operator.alertmanagerConfig ?? DEFAULTS.operator.alertmanagerConfig);
  const alerting = alertingSettings({ location, locations, maintenance, alerts, alertmanagerConfig }, jobs, problems);
  const agentChart = agentChartOf(agent ?? {}, ['agent'], problems);
  const agentTargets = agentTargetsOf(agent ?? {}, ['agent'], problems);
  const agentShards = agentShardsOf(agent ?? {}, ['agent'], problems);
  const probeObjects = (operator !== undefined && (operator.probes ?? DEFAULTS.operator.probes)) || (agentChart !== undefined && scrapesProbeObjects(agentChart));
  if (probeObjects) problems.push(...checkProbeObjectNames(jobs));
  if (agentChart && scrapesProbeObjects(agentChart)) problems.push(...probeObjectChartProblems(agent?.scrapeJobs, operator?.probes));
  if (agentChart?.chart === 'generic' && agent?.scrapeJobs !== false) jobs.forEach(([index, job]) => problems.push(...genericChartTemplateProblems(job, ['jobs', index])));
  if (agent?.scrapeJobs === false && !probeObjects) {
    problems.push({
      path: ['agent', 'scrapeJobs'],
      message: 'is false but no Probe objects replace the scrape jobs, so nothing would probe the targets; add operator: {} for Probe objects, or remove scrapeJobs',
    });
  }

  const valuesCarryJobs = agentChart !== undefined && !scrapesProbeObjects(agentChart) && (agent?.scrapeJobs ?? true);
  if (probeObjects && !valuesCarryJobs) {
    for (const [index, job] of jobs) {
      if (job.discover?.services === undefined) continue;
      problems.push({
        path: ['jobs', index, 'discover', 'services'],
        message: "the Operator's Probe discovers Ingresses only, and no agent values carry this job's scrape job; discover ingresses, or let the agent values carry the jobs (agent.scrapeJobs: true)",
      });
    }
  }

  if (options.env) problems.push(...checkEnvReferences(modules, targetModules.origins, searchEngine?.apiToken, options.env));
  if (problems.length > 0) throw new SpecError(withDurationSuggestions(problems, input), options.source);
  for (const [, job] of jobs) recordCheckedJob(job, modules);

  return {
    namespace: namespace ?? DEFAULTS.namespace,
    exporter: exporter?.sizeFromTargets
      ? sizedExporter(
          exporter,
          jobs.map(([, job]) => job),
          modules,
        )
      : exporterSettings(exporter),
    modules,
    // Every series of a located deployment says where it was probed: the job's labels go on every target group, discovered target and Probe.
    jobs: jobs.map(([, job]) => (alerting.location === undefined ? job : { ...job, labels: { ...job.labels, [LOCATION_LABEL]: alerting.location } })),
    agent: {
      ...agentChart!,
      scrapeJobs: !scrapesProbeObjects(agentChart!) && (agent?.scrapeJobs ?? true),
      targets: agentTargets!,
      shards: agentShards!,
      ...(agent?.serviceAccount && { serviceAccount: { name: agent.serviceAccount.name, namespace: agent.serviceAccount.namespace ?? namespace ?? DEFAULTS.namespace } }),
    },
    searchEngine: searchEngine && {
      url: searchEngine.url,
      apiToken: searchEngine.apiToken,
      secretName: searchEngine.secretName ?? DEFAULTS.searchEngine.secretName,
    },
    dashboard: dashboardSettings(dashboard),
    alerts: {
      enabled: alerts?.enabled ?? DEFAULTS.alerts.enabled,
      thresholds,
      ...(alerting.failingLocations === undefined ? {} : { failingLocations: alerting.failingLocations }),
      ...(alerting.evaluationInterval === undefined ? {} : { evaluationInterval: alerting.evaluationInterval }),
      routing: alerting.routing,
    },
    ...(alerting.location === undefined ? {} : { location: alerting.location }),
    locations: alerting.locations,
    maintenance: alerting.maintenance,
    operator: operator && {
      probes: operator.probes ?? DEFAULTS.operator.probes,
      rules: operator.rules ?? DEFAULTS.operator.rules,
      labels: operator.labels ?? {},
      alertmanagerConfig,
    },
    host: hostSettings(host, exporter?.externalUrl),
  };
}

/** A chart that scrapes the Operator's Probe objects gets them whatever `operator` says, and carries no scrape jobs. */
function probeObjectChartProblems(scrapeJobs: boolean | undefined, operatorProbes: boolean | undefined): Problem[] {
  return [
    ...(scrapeJobs === true ? [{ path: ['agent', 'scrapeJobs'], message: "is true, but k8s-monitoring's values carry no scrape jobs: its Alloy scrapes the Probe objects; remove scrapeJobs" }] : []),
    ...(operatorProbes === false
      ? [
          {
            path: ['operator', 'probes'],
            message: 'is false, but agent.chart k8s-monitoring scrapes the Probe objects, so nothing would probe the targets; remove probes: false, or choose another agent.chart',
          },
        ]
      : []),
  ];
}

/** The exporter-wide allow-list, checked by the exporter's own rules (patterns and CIDR ranges), where the spec holds it. */
function checkAllowedTargets(allowed: NonNullable<SpecFields['exporter']>['allowedTargets'] & object): Problem[] {
  const { denySelfAndMetadata, ...lists } = allowed;
  return allowedTargetsProblems({ ...lists, deny_self_and_metadata: denySelfAndMetadata }, ['exporter', 'allowedTargets']);
}

/**
 * Each module on its own. `defined` holds every name the spec defines, also of modules with problems, so
 * that a job naming a broken module is not told the module does not exist.
 */
function parseModules(input: unknown, problems: Problem[]): { modules: Record<string, SpecModule>; defined: Set<string> } {
  const modules: Record<string, SpecModule> = {};
  const defined = new Set<string>();
  if (input === undefined) return { modules, defined };
  if (!isMapping(input)) {
    problems.push({ path: ['modules'], message: `must be a mapping of module name to module, not ${kindOf(input)}` });
    return { modules, defined };
  }
  for (const [name, entry] of Object.entries(input)) {
    const path: FieldPath = ['modules', name];
    const nameProblem = moduleNameProblem(name, 'write one before the colon');
    if (nameProblem !== undefined) {
      problems.push({ path, message: nameProblem });
      // Its jobs are not told it does not exist: the name is the one problem.
      if (name !== '') defined.add(name);
      continue;
    }
    defined.add(name);
    const module = parseModule(name, entry, path, problems);
    if (module) modules[name] = module;
  }
  return { modules, defined };
}

/** Why `name` cannot name a module, or undefined when it can; `fixEmpty` says where a missing name is written. */
export function moduleNameProblem(name: string, fixEmpty: string): string | undefined {
  if (name === '') return `a module needs a name; ${fixEmpty}`;
  return moduleNameSchema.safeParse(name).success ? undefined : `${JSON.stringify(name)} ${MODULE_NAME_RULE}; rename the module, and the jobs that name it`;
}

/**
 * One module entry at `path` (the spec's `modules.<name>`, a construct's too): a preset expanded, or a module in
 * blackbox_exporter's format checked by the exporter's own rules; its problems go to `problems`.
 */
export function parseModule(name: string, entry: unknown, path: FieldPath, problems: Problem[]): SpecModule | undefined {
  if (!isMapping(entry)) {
    problems.push({ path, message: `must be a mapping: a preset (preset: http_2xx) or blackbox_exporter's module fields (prober, timeout, http, ...), not ${kindOf(entry)}` });
    return undefined;
  }
  return 'preset' in entry ? parsePreset(entry, path, problems) : parseOwnModule(name, entry, path, problems);
}

/** A preset: its name, then its parameters, each named where it is wrong. */
function parsePreset(entry: Record<string, unknown>, path: FieldPath, problems: Problem[]): SpecModule | undefined {
  const preset = entry.preset;
  if (typeof preset !== 'string' || !(PRESET_NAMES as readonly string[]).includes(preset)) {
    const suggestion = typeof preset === 'string' ? closestName(preset, PRESET_NAMES) : undefined;
    const fix = suggestion ? `did you mean "${suggestion}"? The presets are` : 'use one of';
    problems.push({ path: [...path, 'preset'], message: `${kindOf(preset)} is not a preset; ${fix} ${PRESET_NAMES.join(', ')}, or leave preset out and write the module's own fields` });
    return undefined;
  }
  const parameterProblems: Problem[] = [];
  const parameters = parsePart<PresetModule>(presetSchemas[preset as PresetName], entry, path, parameterProblems);
  problems.push(...parameterProblems.map((problem) => presetFieldProblem(preset as PresetName, problem, path)));
  return parameters && expandPreset(parameters);
}

/** Whether the exporter knows `field` in a module (`timeout`, `tcp`) or in its http section (`method`): it does not call it unknown. */
function isModuleField(field: string): boolean {
  const knownIn = (module: object, at: FieldPath): boolean =>
    !moduleProblems('m', module, { schemaOnly: true }).some((problem) => problem.message.startsWith('unknown field') && formatPath(problem.path) === formatPath(['modules', 'm', ...at, field]));
  return knownIn({ prober: 'http', [field]: null }, []) || knownIn({ prober: 'http', http: { [field]: null } }, ['http']);
}

/** Stand-ins for the parameters a preset requires, to show what the preset sets. */
const SAMPLE_PRESETS: Readonly<Record<PresetName, PresetModule>> = {
  http_2xx: { preset: 'http_2xx' },
  http_2xx_with_header: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'ACCESS_TOKEN' } },
  http_post_2xx: { preset: 'http_post_2xx', body: '<body>' },
};

const parametersOf = (preset: PresetName): string[] => Object.keys(presetSchemas[preset].shape).filter((field) => field !== 'preset');

/**
 * An unknown field beside `preset`, which is not a misspelt parameter, said with the way to what the user meant:
 * another preset's parameter names that preset; a module field (what the preset sets, or any other) says that a
 * preset fixes the module, and that the module's own fields, written instead of the preset, change it.
 */
function presetFieldProblem(preset: PresetName, problem: Problem, path: FieldPath): Problem {
  const field = problem.path[path.length];
  const parameters = parametersOf(preset);
  if (problem.path.length !== path.length + 1 || typeof field !== 'string' || !problem.message.startsWith('unknown field') || closestName(field, parameters) !== undefined) return problem;
  const takes = parameters.length === 0 ? `${preset} takes no parameters` : `${preset} takes ${parameters.join(', ')}`;
  const other = PRESET_NAMES.find((name) => parametersOf(name).includes(field));
  if (other !== undefined)
    return { path: problem.path, message: `is a parameter of preset ${other}, not of ${preset} (${takes}); write preset: ${other}, or leave preset out and write the module's own fields` };
  const module = expandPreset(SAMPLE_PRESETS[preset]);
  const setting = field in module ? [field, module[field as keyof SpecModule]] : module.http && field in module.http ? [`http.${field}`, module.http[field as keyof typeof module.http]] : undefined;
  const flow = (value: unknown): string => stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim();
  if (setting === undefined && !isModuleField(field)) return problem;
  const shown = setting && (typeof setting[1] === 'object' ? '' : ` (${setting[0]}: ${flow(setting[1])})`);
  const what = setting ? `is set by preset ${preset}${shown}, and ${takes}` : `is a module field, and ${takes}`;
  return { path: problem.path, message: `${what}; to change the module, leave preset out and write its own fields, starting from what the preset stands for: ${flow(module)}` };
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

/**
 * A module in blackbox_exporter's format: secret header references checked as such, the rest by the
 * exporter's own schema and cross-field rules. A module whose schema passed is kept even with rule problems,
 * so that its jobs' targets are still checked against its prober.
 */
function parseOwnModule(name: string, entry: Record<string, unknown>, path: FieldPath, problems: Problem[]): SpecModule | undefined {
  const module = entry as SpecModule;
  const refProblems = secretValueProblems(module, path);
  problems.push(...refProblems);
  if (refProblems.length > 0) return undefined;
  // The exporter's fields may hold secrets (basic_auth.password, bearer_token): their values are never repeated.
  const fieldProblems = moduleProblems(name, withoutSecrets(module), { withholdValues: true, schemaOnly: true });
  problems.push(...fieldProblems);
  if (fieldProblems.length > 0) return undefined;
  const placementProblems = secretFieldProblems(module, path);
  problems.push(...placementProblems);
  if (placementProblems.length > 0) return module;
  // The rules across fields see the module as the exporter will read it, each secret moved to the field that reads
  // its file. The exporter names its fields from the top of its config file, as modules.<name>..., which is where
  // they sit in the spec too.
  problems.push(...moduleProblems(name, moduleWithSecretFiles(module, () => '/secret').module, { withholdValues: true }));
  return module;
}

/** Values of secret-capable fields that are neither text nor a secret reference; such a field holds a secret, so no value is repeated. */
function secretValueProblems(module: SpecModule, path: FieldPath): Problem[] {
  if (module.http !== undefined && !isMapping(module.http)) return [];
  return secretCandidateFields(module).flatMap((field): Problem[] => {
    const at: FieldPath = [...path, ...field];
    const value = field.reduce<unknown>((node, key) => (isMapping(node) ? node[key as string] : undefined), module);
    if (typeof value === 'string') return [];
    if (!isMapping(value)) return [{ path: at, message: `must be text, or a secret reference { fromEnv: VAR } or { existingSecret: { name, key } }, not ${kindOfValue(value)}` }];
    const result = secretRefSchema.safeParse(value, { reportInput: true });
    return result.success ? [] : specSchemaProblems(secretRefSchema, result.error.issues, at);
  });
}

/**
 * The jobs whose module and targets are right, with their index in the spec and their defaults filled in
 * (also for fields that are wrong, which are reported here), so that the checks across fields go on.
 */
function parseJobs(input: unknown, thresholds: AlertThresholds, problems: Problem[], modules: Readonly<Record<string, SpecModule>>, targetModules: TargetModules): Array<[index: number, job: Job]> {
  if (input === undefined) {
    problems.push({ path: ['jobs'], message: `required: ${REQUIRED.jobs}` });
    return [];
  }
  if (!Array.isArray(input)) {
    problems.push({ path: ['jobs'], message: `must be a list of jobs, not ${kindOf(input)}` });
    return [];
  }
  if (input.length === 0) problems.push({ path: ['jobs'], message: 'is empty; add at least one job with a module and its targets' });
  return input.flatMap((raw, index): Array<[number, Job]> => {
    const job = parseJob(raw, ['jobs', index], thresholds, problems, modules, targetModules);
    return job ? [[index, job]] : [];
  });
}

/**
 * One job at `path`, as the spec and the constructs that take jobs (AgentValues, Probes) read it: each field checked
 * against its schema, the defaults filled in (also for fields that are wrong, reported to `problems`, so that the
 * checks across fields go on); undefined without a module or targets. `thresholds` are those of a job that sets none.
 * A target's own module fields are merged onto the job's module (one of `modules`, the valid ones) and compiled by
 * `targetModules`, which holds the modules they make; a target whose fields have problems keeps the job's module.
 */
export function parseJob(
  raw: unknown,
  path: FieldPath,
  thresholds: AlertThresholds,
  problems: Problem[],
  modules: Readonly<Record<string, SpecModule>>,
  targetModules: TargetModules,
): Job | undefined {
  const job = parseFields<z.output<typeof jobSchema>>(jobSchema, raw, path, problems, ['targets']);
  const written = isMapping(raw) ? raw.targets : undefined;
  // A job that finds its targets in the cluster may list none.
  const targets = written === undefined && job?.discover !== undefined ? [] : parseTargets(written, [...path, 'targets'], problems);
  if (job?.module === undefined || targets === undefined) return undefined;
  const scrapeInterval = job.scrapeInterval ?? DEFAULTS.job.scrapeInterval;
  const jobModule = modules[job.module];
  const moduleOf = (target: TargetDraft, index: number): string => {
    if (target.module === undefined) return job.module!;
    if (typeof target.module === 'string') return target.module;
    if (jobModule === undefined) return job.module!;
    const at: FieldPath = [...path, 'targets', index, 'module'];
    return targetModules.nameFor(job.module!, jobModule, target.module, at, (merged) => targetModuleProblems(job.module!, merged, at), problems) ?? job.module!;
  };
  return {
    name: job.name ?? DEFAULTS.job.name,
    module: job.module,
    targets: targets.map((target, index) => ({ target: target.target, module: moduleOf(target, index), labels: target.labels ?? {}, scrapeInterval: target.scrapeInterval ?? scrapeInterval })),
    scrapeInterval,
    scrapeTimeout: job.scrapeTimeout ?? defaultScrapeTimeout(scrapeInterval),
    labels: job.labels ?? {},
    alerts: { ...thresholds, ...job.alerts },
    ...(job.slo === undefined ? {} : { slo: job.slo }),
    ...(job.discover === undefined ? {} : { discover: job.discover }),
  };
}

type TargetDraft = z.output<typeof targetObjectSchema>;

/** A job's targets, each a string or an object whose fields are checked one by one; undefined when `targets` is no list. */
function parseTargets(input: unknown, path: FieldPath, problems: Problem[]): TargetDraft[] | undefined {
  if (input === undefined) {
    problems.push({ path, message: `required: ${REQUIRED.targets}` });
    return undefined;
  }
  if (!Array.isArray(input)) {
    problems.push({ path, message: `must be a list of targets, not ${kindOf(input)}` });
    return undefined;
  }
  return input.flatMap((entry: unknown, index): TargetDraft[] => {
    if (typeof entry === 'string') return [{ target: entry }];
    const at: FieldPath = [...path, index];
    if (!isMapping(entry)) {
      problems.push({ path: at, message: `must be an endpoint (https://example.com) or a mapping of target, labels, module, scrapeInterval, not ${kindOf(entry)}` });
      return [];
    }
    // Most targets are right: checked whole first, and field by field only to name what is wrong.
    const whole = targetObjectSchema.safeParse(entry);
    const target = whole.success ? whole.data : parseFields<TargetDraft>(targetObjectSchema, entry, at, problems);
    if (target?.target === undefined) return [];
    if (isMapping(target.module) && 'prober' in target.module) {
      problems.push({ path: [...at, 'module', 'prober'], message: "is the job's module's; a target of another prober belongs to a job of its own, so remove prober here" });
      return [{ ...target, target: target.target, module: undefined }];
    }
    return [target as TargetDraft];
  });
}

/** A target's merged module checked as a spec's module is, its problems named where the target's `module` is written (`at`). */
function targetModuleProblems(jobModuleName: string, merged: SpecModule, at: FieldPath): Problem[] {
  const found: Problem[] = [];
  parseOwnModule(jobModuleName, merged as Record<string, unknown>, at, found);
  const exporterPath = ['modules', jobModuleName];
  return found.map((problem) => (exporterPath.every((key, index) => problem.path[index] === key) ? { ...problem, path: [...at, ...problem.path.slice(exporterPath.length)] } : problem));
}

/**
 * The documented 30s, or the job's interval when that is shorter: Prometheus refuses a timeout longer than
 * the interval, so a job that sets only `scrapeInterval: 15s` must not fail on a default it did not choose.
 */
function defaultScrapeTimeout(scrapeInterval: string): string {
  const interval = parseDuration(scrapeInterval);
  const documented = parseDuration(DEFAULTS.job.scrapeTimeout)!;
  return interval !== undefined && interval > 0 && interval < documented ? scrapeInterval : DEFAULTS.job.scrapeTimeout;
}

/**
 * Jobs found without problems, with the modules they were checked against. A construct given such a job (the
 * Probekit construct hands the spec's jobs to AgentValues and Probes) need not read and check it again when its
 * exporter has the same modules: at a million targets each pass costs seconds.
 */
const checkedJobs = new WeakMap<object, Readonly<Record<string, SpecModule>>>();

export function recordCheckedJob(job: ScrapeJob, modules: Readonly<Record<string, SpecModule>>): void {
  const names = new Set([job.module, ...job.targets.map((target) => target.module)]);
  checkedJobs.set(job, Object.fromEntries([...names].map((name) => [name, modules[name]!])));
}

/** Whether `job` was checked without problems against modules equal to `modules`' modules of the same names. */
export function wasCheckedAgainst(job: unknown, modules: Readonly<Record<string, SpecModule>>): job is Job {
  const checkedWith = typeof job === 'object' && job !== null ? checkedJobs.get(job) : undefined;
  return checkedWith !== undefined && Object.entries(checkedWith).every(([name, module]) => modules[name] !== undefined && isDeepStrictEqual(modules[name], module));
}

/**
 * The rules of one job at `path` that span fields: durations, the module (named in `defined`, and when it is in
 * `modules` also its timeout and its prober's target grammar), labels and targets. A module in `defined` but not in
 * `modules` (a spec module with problems of its own, or one a construct may still get) is not reported missing.
 */
export function checkJob(job: ScrapeJob, path: FieldPath, modules: Readonly<Record<string, SpecModule>>, defined: ReadonlySet<string>): Problem[] {
  const problems: Problem[] = [];
  const at = (name: string): FieldPath => [...path, name];
  const interval = parseDuration(job.scrapeInterval);
  const timeout = parseDuration(job.scrapeTimeout);
  if (interval === undefined) problems.push({ path: at('scrapeInterval'), message: `"${job.scrapeInterval}" must be ${DURATION_HINT}` });
  if (timeout === undefined) problems.push({ path: at('scrapeTimeout'), message: `"${job.scrapeTimeout}" must be ${DURATION_HINT}` });
  if (interval !== undefined && timeout !== undefined && timeout > interval) {
    problems.push({
      path: at('scrapeTimeout'),
      message: `${job.scrapeTimeout} is longer than scrapeInterval ${job.scrapeInterval}, which Prometheus refuses; lower scrapeTimeout or raise scrapeInterval`,
    });
  }

  const module = modules[job.module];
  if (!module && !defined.has(job.module)) {
    const known = [...defined];
    const fix = known.length > 0 ? `use one of: ${known.join(', ')}, or define it under modules` : 'define it under modules';
    problems.push({ path: at('module'), message: `module "${job.module}" is not defined; ${fix}` });
  } else if (module) {
    const moduleTimeout = module.timeout === undefined ? undefined : parseGoDuration(module.timeout);
    if (moduleTimeout !== undefined && timeout !== undefined && moduleTimeout > timeout) {
      problems.push({
        path: ['modules', job.module, 'timeout'],
        message: `${module.timeout} is longer than scrapeTimeout ${job.scrapeTimeout} of job "${job.name}", so probes would be cut short; lower the module's timeout or raise the job's scrapeTimeout`,
      });
    }
  }

  if (MODULE_LABEL in job.labels) {
    problems.push({
      path: [...path, 'labels', MODULE_LABEL],
      message: `is set by probekit to the job's module (${job.module}), for the dashboard and the alerts' debug links; remove it, or name the label otherwise`,
    });
  }
  if (job.targets.length === 0 && job.discover === undefined) problems.push({ path: at('targets'), message: 'is empty; list at least one endpoint to probe' });
  if (job.discover !== undefined) problems.push(...checkDiscover(job.discover, at('discover'), module));
  const firstIndex = new Map<string, number>();
  job.targets.forEach(({ target }, index) => {
    const first = firstIndex.get(target);
    if (first === undefined) firstIndex.set(target, index);
    else problems.push({ path: [...path, 'targets', index], message: `"${target}" is already ${formatPath([...path, 'targets', first])}; list each target once` });
  });
  const timeoutChecked = new Set([job.module]);
  job.targets.forEach((target, index) => {
    const targetPath: FieldPath = [...path, 'targets', index];
    problems.push(...checkTargetSettings(target, targetPath, job, timeout));
    const targetModule = modules[target.module];
    if (target.module !== job.module && !targetModule && !defined.has(target.module)) {
      problems.push({ path: [...targetPath, 'module'], message: `module "${target.module}" is not defined; use one of: ${[...defined].join(', ')}, or write the module's fields here` });
    } else if (targetModule && module && targetModule.prober !== module.prober) {
      problems.push({
        path: [...targetPath, 'module'],
        message: `"${target.module}" probes with ${targetModule.prober}, the job's module "${job.module}" with ${module.prober}; a target of another prober belongs to a job of its own`,
      });
    } else if (targetModule && !timeoutChecked.has(target.module) && targetModule.timeout !== module?.timeout) {
      // A timeout the target's module has from the job's module is reported there.
      timeoutChecked.add(target.module);
      const moduleTimeout = targetModule.timeout === undefined ? undefined : parseGoDuration(targetModule.timeout);
      if (moduleTimeout !== undefined && timeout !== undefined && moduleTimeout > timeout) {
        problems.push({
          path: [...targetPath, 'module'],
          message: `probes with a timeout of ${targetModule.timeout}, longer than scrapeTimeout ${job.scrapeTimeout} of job "${job.name}", so probes would be cut short; lower the timeout or raise the job's scrapeTimeout`,
        });
      }
    }
    const prober = (targetModule ?? module)?.prober;
    const problem = prober === undefined ? undefined : checkTarget(target.target, prober);
    if (problem) problems.push({ path: targetPath, message: `"${target.target}" ${problem}` });
  });
  return problems;
}

/** The probers whose targets discovery can write: a URL (http) or host:port (tcp, grpc). */
const DISCOVERING_PROBERS: Readonly<Record<string, string>> = { http: 'URLs', tcp: 'host:port', grpc: 'host:port' };

/** What a job finds in the cluster, against its module's prober: Ingresses give URLs, Services URLs or host:port. */
function checkDiscover(discover: DiscoverInput, path: FieldPath, module: SpecModule | undefined): Problem[] {
  const problems: Problem[] = [];
  if (discover.ingresses === undefined && discover.services === undefined)
    problems.push({ path, message: 'names nothing to find; give ingresses: { selector } or services: { selector }, or remove discover' });
  for (const [kind, found] of Object.entries(discover) as Array<[keyof DiscoverInput, DiscoverInput[keyof DiscoverInput]]>) {
    const selector = found?.selector;
    if (selector && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
      problems.push({
        path: [...path, kind, 'selector'],
        message: `matches every ${kind === 'ingresses' ? 'Ingress' : 'Service'}; give matchLabels (such as probekit.io/probe: "true") or matchExpressions`,
      });
    }
    for (const [index, expression] of (selector?.matchExpressions ?? []).entries()) {
      const takesValues = expression.operator === 'In' || expression.operator === 'NotIn';
      if (takesValues !== (expression.values !== undefined && expression.values.length > 0)) {
        problems.push({
          path: [...path, kind, 'selector', 'matchExpressions', index, 'values'],
          message: takesValues ? `${expression.operator} needs values: at least one` : `${expression.operator} takes no values; remove them`,
        });
      }
    }
  }
  if (module === undefined) return problems;
  if (DISCOVERING_PROBERS[module.prober] === undefined) {
    problems.push({ path, message: `finds endpoints for http (URLs), tcp and grpc (host:port) modules; this job's module probes with ${module.prober}: list its targets instead` });
  } else if (discover.ingresses !== undefined && module.prober !== 'http') {
    problems.push({ path: [...path, 'ingresses'], message: `gives URLs, which an http module probes; this job's module probes with ${module.prober}: discover services instead` });
  }
  return problems;
}

/** Labels Prometheus sets on every target itself, with probekit's `module`: a target's own labels may not take them. */
const TARGET_SET_LABELS: Readonly<Record<string, string>> = {
  [MODULE_LABEL]: "is set by probekit to the target's module, for the dashboard and the alerts' debug links",
  job: "is the job's name",
  instance: 'is the target itself',
};

/** A target's own labels and interval; `timeout` is the job's scrape timeout in milliseconds. */
function checkTargetSettings(target: Target, path: FieldPath, job: ScrapeJob, timeout: number | undefined): Problem[] {
  const problems: Problem[] = [];
  for (const [name, why] of Object.entries(TARGET_SET_LABELS)) {
    if (name in target.labels) problems.push({ path: [...path, 'labels', name], message: `${why}; remove it, or name the label otherwise` });
  }
  if (target.scrapeInterval === job.scrapeInterval) return problems;
  const interval = parseDuration(target.scrapeInterval);
  if (interval === undefined) problems.push({ path: [...path, 'scrapeInterval'], message: `"${target.scrapeInterval}" must be ${DURATION_HINT}` });
  else if (timeout !== undefined && interval < timeout) {
    problems.push({
      path: [...path, 'scrapeInterval'],
      message: `${target.scrapeInterval} is shorter than the job's scrapeTimeout ${job.scrapeTimeout}, which Prometheus refuses; raise scrapeInterval, or give the target a job of its own`,
    });
  }
  return problems;
}

/**
 * The thresholds written at `path` (the spec's defaults or one job's), checked as they combine with the defaults
 * under them: durations must parse, and the critical certificate threshold must be the nearer one.
 */
function checkThresholds(path: FieldPath, written: Partial<AlertThresholds>, resolved: AlertThresholds): Problem[] {
  const problems: Problem[] = [];
  for (const field of ['downFor', 'slowerThan', 'slowFor'] as const) {
    if (typeof written[field] === 'string' && parseDuration(written[field]) === undefined) problems.push({ path: [...path, field], message: `"${written[field]}" must be ${DURATION_HINT}` });
  }
  const certificateFieldWritten = written.certificateWarningDays !== undefined || written.certificateCriticalDays !== undefined;
  if (certificateFieldWritten && resolved.certificateCriticalDays >= resolved.certificateWarningDays) {
    const field = written.certificateCriticalDays !== undefined ? 'certificateCriticalDays' : 'certificateWarningDays';
    problems.push({
      path: [...path, field],
      message: `certificateCriticalDays (${resolved.certificateCriticalDays}) must be fewer than certificateWarningDays (${resolved.certificateWarningDays}): the warning comes first; lower certificateCriticalDays or raise certificateWarningDays`,
    });
  }
  return problems;
}

/** Probe objects are named after their jobs (see probeObjectNames); two jobs whose Probes take one name would overwrite each other. */
export function checkProbeObjectNames(jobs: ReadonlyArray<readonly [number, ScrapeJob]>): Problem[] {
  const seen = new Map<string, number>();
  return jobs.flatMap(([index, job]): Problem[] => {
    const names = probeObjectNames(job);
    const taken = names.find((name) => seen.has(name));
    names.forEach((name) => seen.set(name, seen.get(name) ?? index));
    if (taken === undefined) return [];
    return [{ path: ['jobs', index, 'name'], message: `makes the Probe object name "${taken}", as jobs[${seen.get(taken)}].name does; rename one of the jobs` }];
  });
}

/** The exporter sized from its targets (./sizing.ts): an autoscaler between the minimum and maximum, each replica's CPU. */
function sizedExporter(exporter: NonNullable<SpecFields['exporter']>, jobs: readonly ScrapeJob[], modules: Readonly<Record<string, SpecModule>>): Spec['exporter'] {
  const cpuUtilization = DEFAULTS.exporter.autoscalingCpuUtilization;
  const size = exporterSize(jobs, modules, cpuUtilization);
  const { requests, limits } = exporter.resources ?? {};
  const settings = exporterSettings({
    ...exporter,
    autoscaling: { minReplicas: size.minReplicas, maxReplicas: size.maxReplicas, cpuUtilization },
    resources: { requests: { ...requests, cpu: size.cpu }, limits: { ...limits, cpu: size.cpu } },
  });
  return { ...settings, sizedFromTargets: size };
}

/** Sized from the targets, the replicas and the CPU are the sizing's: a count or amount written beside it would be overruled. */
function checkSizeFromTargets(exporter: SpecFields['exporter']): Problem[] {
  if (!exporter?.sizeFromTargets) return [];
  const written: FieldPath[] = [
    ...(exporter.replicas === undefined ? [] : [['exporter', 'replicas']]),
    ...(exporter.autoscaling === undefined ? [] : [['exporter', 'autoscaling']]),
    ...(exporter.resources?.requests?.cpu === undefined ? [] : [['exporter', 'resources', 'requests', 'cpu']]),
    ...(exporter.resources?.limits?.cpu === undefined ? [] : [['exporter', 'resources', 'limits', 'cpu']]),
  ];
  return written.map((path) => ({ path, message: "is set beside exporter.sizeFromTargets, which sets the replicas and each one's CPU from the targets; remove it, or remove sizeFromTargets" }));
}

/** An autoscaler owns the replica count: it takes its minimum from `replicas` or `minReplicas`, not both. */
function checkAutoscaling(exporter: SpecFields['exporter']): Problem[] {
  const autoscaling = exporter?.autoscaling;
  if (!autoscaling) return [];
  if (exporter.replicas !== undefined && autoscaling.minReplicas !== undefined) {
    return [{ path: ['exporter', 'replicas'], message: 'is set beside autoscaling.minReplicas; with autoscaling the autoscaler sets the replicas, so keep only minReplicas' }];
  }
  const minReplicas = exporterSettings(exporter).autoscaling!.minReplicas;
  if (minReplicas <= autoscaling.maxReplicas) return [];
  return [{ path: ['exporter', 'autoscaling', 'maxReplicas'], message: `is ${autoscaling.maxReplicas}, below the minimum of ${minReplicas} replicas; raise maxReplicas` }];
}

export function checkDuplicateJobNames(jobs: ReadonlyArray<readonly [number, ScrapeJob]>): Problem[] {
  const seen = new Map<string, number>();
  const problems: Problem[] = [];
  for (const [index, job] of jobs) {
    const first = seen.get(job.name);
    if (first === undefined) seen.set(job.name, index);
    else problems.push({ path: ['jobs', index, 'name'], message: `"${job.name}" is already the name of jobs[${first}]; Prometheus needs unique job names, so give this job a name of its own` });
  }
  return problems;
}

/**
 * Why a target does not fit its prober, or undefined when it does: the exporter's own grammar per prober,
 * in its strict form, by the spec's choice: every target written out in full (an http target carries its
 * scheme, so that whether the probe uses TLS is written in the spec rather than guessed; a grpc target
 * has its port and no path, which the prober would drop; a host is a host name or an IP address).
 */
export function checkTarget(target: string, prober: ProberName): string | undefined {
  return targetProblem(prober, target, { strict: true });
}

/**
 * `origins`: where a module compiled from a target's fields is written, which its problems name; a variable such a
 * module has from its job's module is reported once, where the job's module names it.
 */
function checkEnvReferences(modules: Readonly<Record<string, SpecModule>>, origins: ReadonlyMap<string, FieldPath>, apiToken: SecretRef | undefined, env: Environment): Problem[] {
  const references: Array<[FieldPath, SecretRef]> = [];
  if (apiToken) references.push([['searchEngine', 'apiToken'], apiToken]);
  for (const [name, module] of Object.entries(modules)) {
    for (const { field, ref } of moduleSecrets(module)) references.push([[...(origins.get(name) ?? ['modules', name]), ...field], ref]);
  }
  const reported = new Set<string>();
  return references.flatMap(([path, ref]) => {
    if (!('fromEnv' in ref) || readEnvSecret(ref, env) !== undefined || reported.has(ref.fromEnv)) return [];
    reported.add(ref.fromEnv);
    return [unsetVariableProblem(path, ref, 'synth')];
  });
}
