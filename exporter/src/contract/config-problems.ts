/**
 * What is wrong with a module, a config or an allow-list, as problems (a field's path and what to do), found by the
 * exporter's own schema, rules and compile step: what the exporter would refuse at load is what these report.
 */
import { allowedTargetsSchema, compileAllowList } from '../config/allowed-targets';
import { compileConfig, compileParsed } from '../config/module';
import { moduleSchema } from '../config/schema';
import { schemaProblems, type FieldPath, type Problem, type SchemaProblemOptions } from './problems';

export interface ModuleCheckOptions extends SchemaProblemOptions {
  /** Check the fields and their kinds only, not the rules across fields or the compile step (regular expressions, CEL). @default false */
  readonly schemaOnly?: boolean;
}

/**
 * Every problem of module `name` as a config file or a spec writes it (`input`, YAML's nulls dropped): the schema,
 * the rules across fields, the compile step. Paths start at the config's root: `modules.<name>...`.
 */
export function moduleProblems(name: string, input: unknown, options: ModuleCheckOptions = {}): Problem[] {
  const parsed = moduleSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) return schemaProblems(moduleSchema, parsed.error.issues, ['modules', name], options);
  if (options.schemaOnly) return [];
  const compiled = compileParsed(name, parsed.data);
  return 'problems' in compiled ? compiled.problems : [];
}

/** Every problem of a whole config as the exporter's file holds it, decoded (`modules:` and `allowed_targets:`). */
export function configProblems(input: unknown): Problem[] {
  const compiled = compileConfig(input);
  return 'problems' in compiled ? compiled.problems : [];
}

/** Every problem of an allowed_targets section at `path` (where the spec holds it, for one), as the exporter loads it. */
export function allowedTargetsProblems(input: unknown, path: FieldPath): Problem[] {
  const parsed = allowedTargetsSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) return schemaProblems(allowedTargetsSchema, parsed.error.issues, path);
  const problems: Problem[] = [];
  compileAllowList(parsed.data, path, problems);
  return problems;
}
