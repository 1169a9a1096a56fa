/**
 * A skill is what the assistant can ask of the search engine: a name, a description the assistant reads, an input
 * schema (zod) that both validates calls and is published to MCP clients, and a handler that gets the official
 * client. The built-in skills (./skills.ts) and a user's custom skills have this one shape.
 */
import { resolve } from 'node:path';
import type { Client } from '@elastic/elasticsearch';
import { z } from 'zod';
import { closestName, schemaProblems, type Problem } from '@probekit/exporter';
import { describeFailure, SearchEngineError, type EngineVersion, type SearchEngine } from './connection';
import { ECS_LOG_FIELDS, type LogFields } from './log-fields';
import { resolveLogTarget, type LogTarget } from './log-search';
import { SkillInputError } from './skill-errors';
import type { TargetLogRule } from './target-logs';

export { SkillInputError };

/** What the skills server was started with, beyond the engine: settings some skills read. */
export interface SkillSettings {
  /** Field names set by hand; they win over detection in every index. */
  readonly fields?: Partial<LogFields>;
  /** How a probe's target maps to the log filters of the service behind it (probe_failure_logs). */
  readonly targetLogs?: readonly TargetLogRule[];
  /** Prometheus that scrapes the exporter; when set, a call may not name another one. */
  readonly prometheusUrl?: string;
  /** The exporter whose recent probes to read when there is no Prometheus. */
  readonly exporterUrl?: string;
}

export interface SkillContext {
  /** The official client, authenticated with the API token, speaking the engine's version. */
  readonly client: Client;
  /** The engine's URL, for messages. */
  readonly url: string;
  /** The engine's version, when the token may read it. */
  readonly version?: EngineVersion;
  readonly settings: SkillSettings;
  /** Field names for an index pattern, the first index that has each winning (for skills that use one set). */
  readonly logFields: (index: string) => Promise<LogFields>;
  /** The pattern's indices grouped by layout, each with its own field names. */
  readonly logTarget: (index: string) => Promise<LogTarget>;
}

/** A context, or how to make one when the first skill runs (the server connects to the engine then, not at start). */
export type SkillContextSource = SkillContext | (() => Promise<SkillContext>);

export interface Skill<Input extends z.ZodObject = z.ZodObject> {
  /** Tool name: lower case, digits and underscores (what MCP clients accept everywhere). */
  readonly name: string;
  readonly description: string;
  readonly input: Input;
  readonly handler: (input: z.infer<Input>, context: SkillContext) => Promise<unknown>;
  /** The skill only reads; MCP clients are told so (the readOnlyHint annotation). @default false */
  readonly readOnly?: boolean;
}

/** Typed helper for writing a skill: infers the handler's input from the schema. */
export function defineSkill<Input extends z.ZodObject>(skill: Skill<Input>): Skill<Input> {
  return skill;
}

const SKILL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** A problem of a skill as a whole, printed after its name. */
function skillProblem(skill: string, message: string): SkillInputError {
  return new SkillInputError([{ path: [], message }], `skill "${skill}"`);
}

/** How long an index pattern's layouts are trusted: new indices and rollovers show up after this. */
const LAYOUT_TTL_MS = 60_000;

export interface SkillContextOptions extends SkillSettings {
  readonly client: Client;
  /** For messages only: the engine's URL. */
  readonly url: string;
  readonly version?: EngineVersion;
}

/** A context whose field detection reads each index pattern's mappings at most once a minute. */
export function createSkillContext(options: SkillContextOptions): SkillContext {
  const { client, url, version, ...settings } = options;
  const cache = new Map<string, { at: number; target: Promise<LogTarget> }>();
  const logTarget = (index: string): Promise<LogTarget> => {
    const cached = cache.get(index);
    if (cached !== undefined && Date.now() - cached.at < LAYOUT_TTL_MS) return cached.target;
    const target = resolveLogTarget(client, index, settings.fields ?? {}).catch((error: unknown) => {
      cache.delete(index);
      throw describeFailure(error, url, `reading the mappings of ${index}`, 'API token');
    });
    cache.set(index, { at: Date.now(), target });
    return target;
  };
  const logFields = async (index: string): Promise<LogFields> => {
    const target = await logTarget(index);
    // The layout of the most indices, ties to the first: a custom skill that takes one set of names gets the common one.
    const [main] = [...target.layouts].sort((a, b) => b.indices.length - a.indices.length);
    return main?.fields ?? ECS_LOG_FIELDS;
  };
  return { client, url, ...(version ? { version } : {}), settings, logFields, logTarget };
}

/** A context source that connects once, when first asked, and tries again after a failure. */
export function connectOnFirstUse(connect: () => Promise<SearchEngine>, settings: SkillSettings): () => Promise<SkillContext> {
  let context: Promise<SkillContext> | undefined;
  return () => {
    context ??= connect().then(
      (engine) => createSkillContext({ ...settings, client: engine.client, url: engine.url, ...(engine.version ? { version: engine.version } : {}) }),
      (error: unknown) => {
        context = undefined;
        throw error;
      },
    );
    return context;
  };
}

/** An unknown input field names the one likely meant and all the fields the skill takes. */
function withKnownFields(problems: readonly Problem[], known: readonly string[]): Problem[] {
  return problems.map((problem) => (problem.message.startsWith('unknown field; did you mean') ? { ...problem, message: `${problem.message} the fields are ${known.join(', ')}` } : problem));
}

export async function runSkill(skills: readonly Skill[], name: string, input: unknown, source: SkillContextSource): Promise<unknown> {
  const skill = skills.find((candidate) => candidate.name === name);
  if (skill === undefined) {
    const names = skills.map((s) => s.name);
    const suggestion = closestName(name, names);
    throw new SkillInputError([{ path: [], message: `unknown skill "${name}"; ${suggestion ? `did you mean "${suggestion}"? ` : ''}the skills are ${names.join(', ')}` }]);
  }
  // Every problem of the input at once, in words; the skill's name first, as the assistant may call several.
  const parsed = skill.input.safeParse(input ?? {}, { reportInput: true });
  if (!parsed.success) throw new SkillInputError(withKnownFields(schemaProblems(skill.input, parsed.error.issues, ['input']), Object.keys(skill.input.shape)), name);
  // Connecting throws a SearchEngineError of its own, naming the engine.
  const context = typeof source === 'function' ? await source() : source;
  try {
    return await skill.handler(parsed.data, context);
  } catch (error) {
    // A problem the handler found in the input is named after the skill, as the schema's problems are.
    if (error instanceof SkillInputError && error.source === undefined) throw new SkillInputError(error.problems, name);
    if (error instanceof SearchEngineError || error instanceof SkillInputError) throw error;
    throw describeFailure(error, context.url, `skill ${name}`, 'API token');
  }
}

/** Checks a set of skills: valid names, no name twice (a custom skill may not shadow a built-in). */
export function checkSkills(skills: readonly Skill[]): void {
  const seen = new Set<string>();
  for (const skill of skills) {
    if (!SKILL_NAME.test(skill.name)) throw skillProblem(skill.name, 'a name is lower case letters, digits and underscores, starting with a letter');
    if (seen.has(skill.name)) throw skillProblem(skill.name, 'another skill has this name; give the custom skill a name of its own');
    if (typeof skill.description !== 'string' || skill.description === '') throw skillProblem(skill.name, 'the description is empty; the assistant chooses skills by it');
    // Duck-typed: the user's module may bring its own copy of zod 4.
    if (typeof skill.input?.safeParse !== 'function' || typeof skill.input.shape !== 'object') throw skillProblem(skill.name, 'input must be a zod object schema (z.object({...}))');
    if (typeof skill.handler !== 'function') throw skillProblem(skill.name, 'handler must be a function');
    seen.add(skill.name);
  }
}

function loadModule(path: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path) as Record<string, unknown>;
}

/**
 * Custom skills from a user's module of JavaScript (CommonJS; an ES module loads too on Node 20.19 and later,
 * which can require() one): its `skills` export, or its default export, is one skill or an array of them.
 */
export async function loadCustomSkills(modulePath: string): Promise<Skill[]> {
  const path = resolve(modulePath);
  let loaded: Record<string, unknown>;
  try {
    loaded = loadModule(path);
  } catch (error) {
    throw new SkillInputError([{ path: [], message: `cannot load ${path} (${(error as Error).message.split('\n')[0]})` }], '--skills');
  }
  const exported = loaded.skills ?? (loaded.default as Record<string, unknown> | undefined)?.skills ?? loaded.default;
  const list = Array.isArray(exported) ? exported : exported === undefined ? [] : [exported];
  if (list.length === 0) throw new SkillInputError([{ path: [], message: `${path} exports no skills; export \`skills\` (an array) or a default skill` }], '--skills');
  return list as Skill[];
}
