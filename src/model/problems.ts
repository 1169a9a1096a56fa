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

/** The spec's duration fields: Prometheus durations of jobs and thresholds; a module's timeout is the exporter's. */
const DURATION_FIELDS = ['scrapeInterval', 'scrapeTimeout', 'downFor', 'slowerThan', 'slowFor'];

function isDurationField(path: FieldPath): boolean {
  const field = path[path.length - 1];
  if (path[0] === 'modules') return path.length === 3 && field === 'timeout';
  return typeof field === 'string' && DURATION_FIELDS.includes(field);
}

/**
 * Problems of a duration field given a bare number (`timeout: 5`, `scrapeInterval: "10"`) said with the unit to add:
 * `5s` (a fraction in milliseconds, which both Go's and Prometheus' durations take). `root` is what the paths start
 * from; other problems pass unchanged.
 */
export function withDurationSuggestions(problems: readonly Problem[], root: unknown): Problem[] {
  return problems.map((problem) => {
    if (!isDurationField(problem.path)) return problem;
    const value = problem.path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[key] : undefined), root);
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    if (!/^\d+(\.\d+)?$/.test(text)) return problem;
    const seconds = Number(text);
    const suggestion = Number.isInteger(seconds) ? `${seconds}s` : `${Math.round(seconds * 1000)}ms`;
    const given = typeof value === 'number' ? `is the number ${text}, not a duration` : `"${value as string}" has no unit`;
    return { path: problem.path, message: `${given}; write ${suggestion} for ${text} seconds (units: ms, s, m, h)` };
  });
}
