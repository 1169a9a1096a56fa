/**
 * A skill is what the assistant can ask of the search engine: a name, a description the assistant reads, an input
 * schema (zod) that both validates calls and is published to MCP clients, and a handler that gets the official
 * client. The built-in skills (./skills.ts) and a user's custom skills have this one shape.
 */
import { resolve } from 'node:path';
import type { Client } from '@elastic/elasticsearch';
import { z } from 'zod';
import { closestName, ProblemsError, schemaProblems, type Problem } from '@probekit/exporter';
import { describeFailure, SearchEngineError } from './connection';
import { detectLogFields, type LogFields } from './log-fields';

export interface SkillContext {
  /** The official client, authenticated with the API token. */
  readonly client: Client;
  /** The engine's URL, for messages. */
  readonly url: string;
  /** Log field names of the indices an index pattern names (detected from their mappings, or as configured). */
  readonly logFields: (index: string) => Promise<LogFields>;
}

export interface Skill<Input extends z.ZodObject = z.ZodObject> {
  /** Tool name: lower case, digits and underscores (what MCP clients accept everywhere). */
  readonly name: string;
  readonly description: string;
  readonly input: Input;
  readonly handler: (input: z.infer<Input>, context: SkillContext) => Promise<unknown>;
}

/** Typed helper for writing a skill: infers the handler's input from the schema. */
export function defineSkill<Input extends z.ZodObject>(skill: Skill<Input>): Skill<Input> {
  return skill;
}

const SKILL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Bad input to a skill (`input.limit: must be at least 1`), or a skill that cannot be used: problems naming the
 * field, printed after their source (the skill's name, or the flag that loaded it).
 */
export class SkillInputError extends ProblemsError {
  constructor(problems: readonly Problem[], source?: string) {
    super(problems, source);
    this.name = 'SkillInputError';
  }
}

/** A problem of a skill as a whole, printed after its name. */
function skillProblem(skill: string, message: string): SkillInputError {
  return new SkillInputError([{ path: [], message }], `skill "${skill}"`);
}

export interface SkillContextOptions {
  readonly client: Client;
  /** Field names set by hand; they win over detection. */
  readonly fields?: Partial<LogFields>;
  /** For messages only: the engine's URL. */
  readonly url: string;
}

/** A context whose field detection reads each index pattern's mappings once. */
export function createSkillContext(options: SkillContextOptions): SkillContext {
  const cache = new Map<string, Promise<LogFields>>();
  const logFields = (index: string): Promise<LogFields> => {
    let found = cache.get(index);
    if (found === undefined) {
      found = options.client.indices
        .getMapping({ index, allow_no_indices: true })
        .then((answer) =>
          detectLogFields(
            Object.values(answer).map((entry) => (entry.mappings.properties ?? {}) as Record<string, unknown>),
            options.fields,
          ),
        )
        .catch((error: unknown) => {
          cache.delete(index);
          throw describeFailure(error, options.url, `reading the mappings of ${index}`, 'API token');
        });
      cache.set(index, found);
    }
    return found;
  };
  return { client: options.client, url: options.url, logFields };
}

export async function runSkill(skills: readonly Skill[], name: string, input: unknown, context: SkillContext): Promise<unknown> {
  const skill = skills.find((candidate) => candidate.name === name);
  if (skill === undefined) {
    const names = skills.map((s) => s.name);
    const suggestion = closestName(name, names);
    throw new SkillInputError([{ path: [], message: `unknown skill "${name}"; ${suggestion ? `did you mean "${suggestion}"? ` : ''}the skills are ${names.join(', ')}` }]);
  }
  // Every problem of the input at once, in words; the skill's name first, as the assistant may call several.
  const parsed = skill.input.safeParse(input ?? {}, { reportInput: true });
  if (!parsed.success) throw new SkillInputError(schemaProblems(skill.input, parsed.error.issues, ['input']), name);
  try {
    return await skill.handler(parsed.data, context);
  } catch (error) {
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
