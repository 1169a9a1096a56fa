/**
 * Where a secret value comes from. Secrets never sit in the spec itself: the spec names an environment
 * variable read at synth, or a Secret that already exists in the cluster.
 */
import { z } from 'zod';
import { ProblemsError, type FieldPath, type Problem } from '@probekit/exporter';

/** Where a secret value comes from, exactly one of these. */
export type SecretRef =
  | {
      /** Environment variable read at synth. */
      readonly fromEnv: string;
      /** Text put before the variable's value, for example `Bearer `. */
      readonly prefix?: string;
    }
  | {
      /** A Secret made elsewhere, in the same namespace; its key holds the whole value. */
      readonly existingSecret: { readonly name: string; readonly key: string };
    };

/**
 * One object with both forms' fields rather than a union of the two, so that a misspelt field is named as such
 * (`fromEnvv: did you mean "fromEnv"?`) and a missing choice is said in words; the rules between the fields are
 * checked once the fields themselves are right.
 */
const secretRefFields = z.strictObject({
  fromEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name: letters, digits and _, not starting with a digit')
    .optional(),
  prefix: z.string().optional(),
  existingSecret: z.strictObject({ name: z.string().min(1), key: z.string().min(1) }).optional(),
});
const fieldsRight = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };

export const secretRefSchema = secretRefFields
  .refine((ref) => (ref.fromEnv === undefined) !== (ref.existingSecret === undefined), {
    ...fieldsRight,
    message: 'give one of fromEnv: VAR (an environment variable read at synth) or existingSecret: { name, key } (a Secret in the cluster)',
  })
  .refine((ref) => ref.existingSecret === undefined || ref.prefix === undefined, {
    ...fieldsRight,
    path: ['prefix'],
    message: 'applies to fromEnv only; an existing Secret holds the whole value',
  }) as unknown as z.ZodType<SecretRef, SecretRef>;

export type EnvSecretRef = Extract<SecretRef, { fromEnv: string }>;
export type ExistingSecretRef = Extract<SecretRef, { existingSecret: unknown }>;

export function isSecretRef(value: unknown): value is SecretRef {
  return secretRefSchema.safeParse(value).success;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** The value of an env reference, or undefined when the variable is unset or empty. */
export function readEnvSecret(ref: EnvSecretRef, env: Environment): string | undefined {
  const value = env[ref.fromEnv];
  return value === undefined || value === '' ? undefined : `${ref.prefix ?? ''}${value}`;
}

/**
 * When a `fromEnv` reference is read: at synth (the cluster form, where an existing Secret could hold the value
 * instead), when a machine's files are rendered (which has no Secrets to refer to), or by `probekit test`.
 */
export type SecretReading = 'synth' | 'host files' | 'probekit test';

/** The problem of a `fromEnv` reference at `path` whose variable is unset; it names the field `fromEnv`. */
export function unsetVariableProblem(path: FieldPath, ref: EnvSecretRef, reading: SecretReading): Problem {
  const fix = {
    synth: 'export it before synth, or reference an existing Secret with existingSecret: { name, key }',
    'host files': 'export it before rendering the host files',
    'probekit test': 'export it before probekit test',
  }[reading];
  return { path: [...path, 'fromEnv'], message: `environment variable ${ref.fromEnv} is not set; ${fix}` };
}

/** The value of the `fromEnv` reference at `path`; throws ProblemsError when its variable is unset. */
export function requireEnvSecret(ref: EnvSecretRef, env: Environment, path: FieldPath, reading: SecretReading): string {
  const value = readEnvSecret(ref, env);
  if (value === undefined) throw new ProblemsError([unsetVariableProblem(path, ref, reading)]);
  return value;
}
