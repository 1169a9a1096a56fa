/**
 * Schema problems as the model's inputs need them, on top of the contract's schemaProblems: for inputs that may
 * hold secrets (the Pulumi stack configuration, the exporter's module fields such as basic_auth.password or
 * bearer_token, header values) no message repeats a given value, a value of the wrong kind being said by its kind
 * alone; and a missing field can say what it holds.
 */
import { schemaProblems, type FieldPath, type Problem } from '@probekit/exporter';
import type { z } from 'zod';

const KINDS: Readonly<Record<string, string>> = { array: 'a list', object: 'a mapping', string: 'text', number: 'a number', int: 'a whole number', boolean: 'true or false' };

/** The kind of a value, never the value: `a number`, `text`, `a list`. */
export function kindOfValue(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  return KINDS[typeof value] ?? typeof value;
}

/** Schema issues with every given value taken out, nested ones too. */
function withoutValues(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.map((issue) => {
    const { input, ...rest } = issue as z.core.$ZodIssue & { input?: unknown };
    switch (rest.code) {
      case 'invalid_union':
        return { ...rest, errors: rest.errors.map(withoutValues) } as z.core.$ZodIssue;
      case 'invalid_key':
      case 'invalid_element':
        return { ...rest, issues: withoutValues(rest.issues) } as z.core.$ZodIssue;
      case 'invalid_type':
        if (input === undefined) return rest as z.core.$ZodIssue;
        return { code: 'custom', path: rest.path, message: `must be ${KINDS[rest.expected] ?? rest.expected}, not ${kindOfValue(input)}` } as z.core.$ZodIssue;
      default:
        return rest as z.core.$ZodIssue;
    }
  });
}

/**
 * The problems of a failed schema check, one per field, in words and without any given value. Parse with
 * `{ reportInput: true }`: a missing field and a field of the wrong kind are told apart by the input.
 */
export function valueFreeSchemaProblems(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix: FieldPath = []): Problem[] {
  return schemaProblems(schema, withoutValues(issues), prefix);
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
