/**
 * One module, from what a config file says to the form probes use, in one pass: the schema (upstream's
 * defaults), rules across fields, file paths made absolute, and the prober's compile step. Every problem
 * found comes back at once, each with the path of the field it concerns.
 */
import { isAbsolute, resolve } from 'node:path';
import { formatPath, schemaProblems, type FieldPath, type Problem } from '../contract/problems';
import type { CompileContext, ProberDefinition } from '../probers/definition';
import { PROBER_DEFINITIONS, PROBER_NAMES, type DefinitionOf, type ProberName } from '../probers/registry';
import { parseGoDuration } from './duration';
import { compileCel, deferCel, type CelProgram } from './cel';
import { compileGoRegexp, deferGoRegexp, type GoRegexp } from './regexp';
import { moduleSchema, topLevelSchema, type Module } from './schema';
import { compileAllowList, type AllowedTargetsSection, type AllowList } from './allowed-targets';

/** The section of a prober as its probes use it. */
export type CompiledSection<N extends ProberName> = ReturnType<DefinitionOf<N>['compile']>;

/** A module as probes use it: its prober's section is always there, compiled. */
export type CompiledModule<N extends ProberName = ProberName> = N extends ProberName
  ? {
      readonly prober: N;
      /** Milliseconds; unset, the probe gets the scrape's own timeout (less the offset), as upstream does. */
      readonly timeoutMs?: number;
      /** As the file says it, with upstream's defaults and file paths made absolute: what /config and debug output show. */
      readonly written: Module;
      /** The module's own allowed_targets, compiled; the config's exporter-wide one applies as well. */
      readonly allowedTargets?: AllowList;
    } & { readonly [K in N]: CompiledSection<K> }
  : never;

export interface CompiledConfig {
  readonly modules: Readonly<Record<string, CompiledModule>>;
  /** The exporter-wide allowed_targets, compiled, and as written (for /config). */
  readonly allowedTargets?: AllowList;
  readonly writtenAllowedTargets?: AllowedTargetsSection;
}

export type Compiled = { readonly module: CompiledModule } | { readonly problems: Problem[] };

/**
 * Stands in for a pattern that did not compile; the module it belongs to never loads, so nothing runs it.
 * Made with the first refused pattern: RE2 loads with the first pattern, not with the exporter.
 */
let notCompiled: GoRegexp | undefined;
const NOT_COMPILED = (): GoRegexp => (notCompiled ??= compileGoRegexp('[^\\x00-\\x{10FFFF}]'));

/** Stands in for an expression that did not compile; as NOT_COMPILED, nothing runs it. */
const NOT_COMPILED_CEL: CelProgram = { source: '', evaluate: () => ({ ok: false, problem: 'not compiled' }) };

/**
 * Patterns compiled during one load, by their text: generated configs repeat the same few patterns across
 * thousands of modules, and one compiled pattern serves them all. The reason a text does not compile is
 * kept too.
 */
export type PatternCache = Map<string, GoRegexp | { readonly refused: string }>;

/** What compiling the patterns of each cache cost so far (GoRegexp.compileCost), for ModuleCompiled. */
const patternCosts = new WeakMap<PatternCache, number>();

function compilePattern(source: string, cache: PatternCache): GoRegexp | { readonly refused: string } {
  let compiled = cache.get(source);
  if (compiled === undefined) {
    try {
      compiled = compileGoRegexp(source);
      patternCosts.set(cache, (patternCosts.get(cache) ?? 0) + compiled.compileCost());
    } catch (error) {
      compiled = { refused: (error as Error).message };
    }
    cache.set(source, compiled);
  }
  return compiled;
}

function compileContext(problems: Problem[], base: FieldPath, patterns: PatternCache | 'defer', checked: boolean): CompileContext {
  return {
    pattern: (path, source) => {
      if (patterns === 'defer') return { source, regexp: deferGoRegexp(source) };
      const compiled = compilePattern(source, patterns);
      if (!('refused' in compiled)) return { source, regexp: compiled };
      problems.push({
        path: [...base, ...path],
        message: `could not compile regular expression ${JSON.stringify(source)}: ${compiled.refused}; rewrite it in RE2 syntax, which has no lookaround or backreferences and repeats at most 1000 times`,
      });
      return { source, regexp: NOT_COMPILED() };
    },
    cel: (path, source) => {
      if (checked) return deferCel(source);
      try {
        return compileCel(source);
      } catch (error) {
        problems.push({
          path: [...base, ...path],
          message: `could not compile CEL expression ${JSON.stringify(source)}: ${(error as Error).message}; write it in CEL over the variable body (the JSON response), for example body.status == 'ok'`,
        });
        return NOT_COMPILED_CEL;
      }
    },
    problem: (path, message) => problems.push({ path: [...base, ...path], message }),
  };
}

/**
 * A module that passed the schema, compiled; `directory` anchors relative file paths (none: left as written).
 * A module's `written` form compiles again to the same module, which is how a load done in another thread
 * hands its modules over. `patterns`: compiled patterns to share, or 'defer' for a module whose patterns
 * another thread compiled and checked, compiled here only if used (../server/probe-pool.ts). `checked`: another
 * thread compiled this module already, so its CEL expressions are kept as text (deferCel), never compiled here.
 */
export function compileParsed(name: string, parsed: Module, directory?: string, patterns: PatternCache | 'defer' = new Map(), checked = false): Compiled {
  const problems: Problem[] = [];
  const base = ['modules', name];
  for (const other of PROBER_NAMES) {
    if (other !== parsed.prober && parsed[other] !== undefined) {
      problems.push({ path: [...base, other], message: `module has prober ${parsed.prober} but a ${other} section; rename the section or the prober` });
    }
  }
  // Each definition's section type is its own; past this point the prober is only known at run time.
  const definition: ProberDefinition = PROBER_DEFINITIONS[parsed.prober];
  let section: unknown = parsed[parsed.prober];
  if (section === undefined) {
    // A section left out gets its defaults, unless it has a field without one (dns's query_name).
    const defaults = definition.schema.safeParse({});
    if (!defaults.success) {
      const missing = schemaProblems(definition.schema, defaults.error.issues, [parsed.prober]).map((problem) => formatPath(problem.path));
      return { problems: [...problems, { path: [...base, 'prober'], message: `a ${parsed.prober} module needs its ${parsed.prober} section; add ${missing.join(', ')}` }] };
    }
    section = defaults.data;
  }
  const sectionPath = [...base, parsed.prober];
  for (const problem of definition.rules?.(section) ?? []) problems.push({ ...problem, path: [...sectionPath, ...problem.path] });
  if (directory !== undefined && definition.withAbsolutePaths) {
    section = definition.withAbsolutePaths(section, (path) => (isAbsolute(path) ? path : resolve(directory, path)));
  }
  const compiled = definition.compile(section, compileContext(problems, sectionPath, patterns, checked));
  if (parsed.prober === 'unix' && parsed.allowed_targets) {
    problems.push({ path: [...base, 'allowed_targets'], message: "a unix module's target is a socket path, which has no host or address to check; remove allowed_targets" });
  }
  const allowedTargets = parsed.allowed_targets && compileAllowList(parsed.allowed_targets, [...base, 'allowed_targets'], problems);
  if (problems.length > 0) return { problems };
  const written = { ...parsed, [parsed.prober]: section };
  const timeoutMs = parsed.timeout === undefined ? undefined : parseGoDuration(parsed.timeout);
  return { module: { prober: parsed.prober, timeoutMs, written, ...(allowedTargets && { allowedTargets }), [parsed.prober]: compiled } as CompiledModule };
}

/**
 * Compiles module `name` as written (`input`, YAML's nulls dropped); `directory` anchors its relative file
 * paths. Either the module, or every problem found, with paths from the config's root (`modules.<name>...`).
 */
export function compileModule(name: string, input: unknown, directory?: string, patterns?: PatternCache): Compiled {
  const parsed = moduleSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) return { problems: schemaProblems(moduleSchema, parsed.error.issues, ['modules', name]) };
  return compileParsed(name, parsed.data, directory, patterns);
}

/**
 * An empty record of modules by name, with no prototype: module names are the user's (`__proto__`,
 * `constructor`), and a lookup by a name the config lacks must find nothing.
 */
export function moduleRecord(): Record<string, CompiledModule> {
  return Object.create(null) as Record<string, CompiledModule>;
}

/**
 * Hears of each module that compiled, as soon as it did, and the compile cost of the patterns it was the first
 * to use (GoRegexp.compileCost: their lengths and program sizes).
 */
export type ModuleCompiled = (name: string, module: CompiledModule, patternCost: number) => void;

/**
 * A whole config as decoded from its file (undefined: an empty file, a config without modules), compiled: the top
 * level, the exporter-wide allowed_targets and every module, each problem with its path from the config's root.
 * `directory` anchors relative file paths; `compiled` hears of each module that compiled.
 */
export function compileConfig(decoded: unknown, directory?: string, compiled?: ModuleCompiled): { readonly config: CompiledConfig } | { readonly problems: Problem[] } {
  const top = topLevelSchema.safeParse(decoded ?? {}, { reportInput: true });
  if (!top.success) return { problems: schemaProblems(topLevelSchema, top.error.issues) };
  const problems: Problem[] = [];
  const modules = moduleRecord();
  const patterns: PatternCache = new Map();
  const writtenAllowedTargets = top.data.allowed_targets;
  const allowedTargets = writtenAllowedTargets && compileAllowList(writtenAllowedTargets, ['allowed_targets'], problems);
  // The decoded mapping, not the schema's copy of it: a module may be called __proto__.
  for (const [name, input] of Object.entries((decoded as { modules?: Record<string, unknown> } | null | undefined)?.modules ?? {})) {
    const spentBefore = patternCosts.get(patterns) ?? 0;
    const result = compileModule(name, input, directory, patterns);
    if ('problems' in result) problems.push(...result.problems);
    else {
      modules[name] = result.module;
      compiled?.(name, result.module, (patternCosts.get(patterns) ?? 0) - spentBefore);
    }
  }
  if (problems.length > 0) return { problems };
  return { config: { modules, ...(allowedTargets && { allowedTargets, writtenAllowedTargets }) } };
}
