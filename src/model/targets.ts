/**
 * Per-target settings compiled into modules. A target written as an object may carry `module` fields, which are
 * merged onto its job's module for that target alone; targets whose merged module is the same share one module,
 * named from the job's module, the fields that differ and a digest of the merged module
 * (`http_2xx.headers.3f9a1c`), so that the same spec gives the same names run after run, and a target keeps its
 * module's name (the `module` label of its series) while other targets are added or removed. A merged module equal
 * to a module of the spec is that module.
 */
import { createHash } from 'node:crypto';
import type { FieldPath, Problem } from '@probekit/exporter';
import { SECRET_FIELDS } from './secret-fields';
import { kubernetesObjectName, type ScrapeJob, type SpecModule, type TargetModuleFields } from './spec';

/** Mappings are merged field by field (a target's header beside the job's); a list, a value or a secret reference replaces. */
export function mergeModuleFields(base: SpecModule, fields: TargetModuleFields): SpecModule {
  return mergeValue(base, fields) as SpecModule;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A secret reference's shape (its fields are checked where the module is): one value, never merged into. */
const isReference = (value: Record<string, unknown>): boolean => 'fromEnv' in value || 'existingSecret' in value || 'externalSecret' in value;

function mergeValue(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isMapping(base) || !isMapping(over) || isReference(base) || isReference(over)) return over;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) merged[key] = mergeValue(base[key], value);
  return merged;
}

/** Modules' canonical text, kept: a job's module is compared with each of its targets' merged modules. */
const canonicalModules = new WeakMap<object, string>();

/** JSON with the keys of every mapping sorted: equal modules, equal text. */
function canonicalModule(module: SpecModule): string {
  const known = canonicalModules.get(module);
  if (known !== undefined) return known;
  const text = canonical(module);
  canonicalModules.set(module, text);
  return text;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isMapping(value)) {
    return `{${Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What the name's digest is taken of: the merged module with the plain text of its secret fields (passwords, tokens,
 * credentials, an Authorization header) left out, so that a name, which is a label of every series, says nothing of
 * a secret written in the spec; modules that differ only there are told apart by a number after the digest.
 */
function digestText(module: SpecModule): string {
  const copy = structuredClone(module) as unknown as Record<string, Record<string, unknown>>;
  for (const field of SECRET_FIELDS) {
    const parent = field.slice(0, -1).reduce<unknown>((node, key) => (isMapping(node) ? node[key as string] : undefined), copy);
    const key = String(field[field.length - 1]);
    if (isMapping(parent) && typeof parent[key] === 'string') parent[key] = '<secret>';
  }
  const headers = copy.http?.headers;
  if (isMapping(headers)) for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization' && typeof headers[name] === 'string') headers[name] = '<secret>';
  return canonical(copy);
}

/** The fields a target's module sets, as words for a name: each field below the prober's section (`headers`, `valid_status_codes`) or at the top (`timeout`). */
function fieldWords(fields: TargetModuleFields): string[] {
  const words = Object.entries(fields).flatMap(([key, value]) => (isMapping(value) && key !== 'timeout' ? Object.keys(value) : [key]));
  return [...new Set(words.map((word) => word.replace(/[^A-Za-z0-9_]+/g, '_')))].sort();
}

/** The longest a module's name may be (the spec's rule for module names). */
const MODULE_NAME_LENGTH = 128;

/**
 * The modules targets' own fields make, across every job of a spec (or of one construct): each merged module is
 * compiled once, and equal ones share a name.
 */
export class TargetModules {
  /** The modules made so far, by name, in the order they were first asked for. */
  readonly generated: Record<string, SpecModule> = {};
  /** Where each generated module was first asked for: the target's `module`, where its problems are reported. */
  readonly origins = new Map<string, FieldPath>();
  private readonly byText = new Map<string, string>();

  /** `written`: the spec's (or the exporter's) own modules, which a merged module equal to one of them reuses. */
  constructor(written: Readonly<Record<string, SpecModule>>) {
    for (const [name, module] of Object.entries(written)) if (!this.byText.has(canonical(module))) this.byText.set(canonical(module), name);
  }

  /**
   * The name of the module that probes a target of a job whose module is `jobModule` (named `jobModuleName`) with
   * its own `fields`; `check` validates the merged module once, when it is new (its problems named at `path`).
   */
  nameFor(jobModuleName: string, jobModule: SpecModule, fields: TargetModuleFields, path: FieldPath, check: (module: SpecModule) => Problem[], problems: Problem[]): string | undefined {
    const merged = mergeModuleFields(jobModule, fields);
    const text = canonical(merged);
    const known = text === canonicalModule(jobModule) ? jobModuleName : this.byText.get(text);
    if (known !== undefined) return known;
    const found = check(merged);
    problems.push(...found);
    if (found.length > 0) return undefined;
    const name = this.freeName(jobModuleName, fieldWords(fields), createHash('sha256').update(digestText(merged)).digest('hex').slice(0, 6));
    this.byText.set(text, name);
    this.generated[name] = merged;
    this.origins.set(name, path);
    return name;
  }

  private freeName(base: string, words: readonly string[], digest: string): string {
    const tail = `.${digest}`;
    const room = MODULE_NAME_LENGTH - tail.length - 4;
    const head = `${base}.${words.join('-')}`.slice(0, room).replace(/[-.]+$/, '');
    const taken = (name: string): boolean => name in this.generated || [...this.byText.values()].includes(name);
    let name = `${head}${tail}`;
    for (let count = 2; taken(name); count++) name = `${head}${tail}.${count}`;
    return name;
  }
}

/** Targets of one job that share a module and labels (the job's and their own), in the order the spec first names each. */
export interface TargetSet {
  readonly module: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly targets: readonly string[];
}

/** A job's targets grouped by module and labels: the renderers' target groups and Probe objects are these. */
export function targetSets(job: Pick<ScrapeJob, 'labels' | 'targets'>): TargetSet[] {
  const sets = new Map<string, { module: string; labels: Record<string, string>; targets: string[] }>();
  for (const { target, module, labels: own } of job.targets) {
    const labels = { ...job.labels, ...own };
    const key = canonical([module, labels]);
    const set = sets.get(key) ?? { module, labels, targets: [] };
    set.targets.push(target);
    sets.set(key, set);
  }
  return [...sets.values()];
}

/**
 * A job as the scrape jobs it makes: its targets at the job's interval under its name, and those of each other
 * interval a target asks for as a job of their own, named `<job>@<interval>` (`@` is in no job's name) and labelled
 * with the job's name as `job`, which Prometheus keeps over the scrape job's name. A part is a job, so the renderers
 * of one job render each.
 */
export function jobParts<T extends ScrapeJob>(job: T): T[] {
  const intervals = [...new Set([job.scrapeInterval, ...job.targets.map((target) => target.scrapeInterval)])];
  return intervals.flatMap((interval): T[] => {
    const targets = job.targets.filter((target) => target.scrapeInterval === interval);
    if (targets.length === 0) return [];
    if (interval === job.scrapeInterval) return [{ ...job, targets }];
    return [{ ...job, name: `${job.name}@${interval}`, scrapeInterval: interval, targets, labels: { ...job.labels, job: job.name } }];
  });
}

/**
 * The Probe objects' names of a job, one per target set of each part, then one for the Ingresses it discovers: the
 * job's name made fit for Kubernetes for the first, numbered from -2 for the others.
 */
export function probeObjectNames(job: ScrapeJob): string[] {
  const base = kubernetesObjectName(job.name);
  const count = jobParts(job).reduce((sum, part) => sum + targetSets(part).length, 0) + (job.discover?.ingresses ? 1 : 0);
  return Array.from({ length: count }, (_, index) => (index === 0 ? base : `${base.slice(0, 240)}-${index + 1}`));
}
