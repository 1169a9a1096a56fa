/**
 * Schema problems as the model's inputs need them, on top of the contract's schemaProblems: for inputs that may
 * hold secrets (the Pulumi stack configuration) no message repeats a given value, a value of the wrong kind being
 * said by its kind alone; and a missing field can say what it holds.
 */
import { schemaProblems, type FieldPath, type Problem, type SchemaDefinition, type SchemaIssue } from '@probekit/exporter';

/**
 * The problems of a failed schema check, one per field, in words and without any given value. Parse with
 * `{ reportInput: true }`: a missing field and a field of the wrong kind are told apart by the input.
 */
export function valueFreeSchemaProblems(schema: SchemaDefinition, issues: readonly SchemaIssue[], prefix: FieldPath = []): Problem[] {
  return schemaProblems(schema, issues, prefix, { withholdValues: true });
}

/**
 * Problems of missing fields with what each holds: `is required` at a field named in `hints` becomes
 * `required: <hint>` (`modules.api.accessToken: required: the token sent as ...`).
 */
export function withRequiredHints(problems: readonly Problem[], hints: Readonly<Record<string, string>>): Problem[] {
  return problems.map((problem) => {
    const field = problem.path[problem.path.length - 1];
    const hint = typeof field === 'string' ? hints[field] : undefined;
    return problem.message === 'is required' && hint !== undefined ? { path: problem.path, message: `required: ${hint}` } : problem;
  });
}
