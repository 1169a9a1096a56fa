/**
 * Where a secret value comes from. Secrets never sit in the spec itself: the spec names an environment
 * variable read at synth, or a Secret that already exists in the cluster.
 */
import { z } from 'zod';
import { ProblemsError, type FieldPath, type Problem } from '@probekit/exporter';

export const secretRefSchema = z.union([
  z.strictObject({
    /** Environment variable read at synth. */
    fromEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
    /** Text put before the variable's value, for example `Bearer `. */
    prefix: z.string().optional(),
  }),
  z.strictObject({
    /** A Secret made elsewhere, in the same namespace; its key holds the whole value. */
    existingSecret: z.strictObject({ name: z.string().min(1), key: z.string().min(1) }),
  }),
]);

export type SecretRef = z.infer<typeof secretRefSchema>;
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
 * instead) or when a machine's files are rendered (which has no Secrets to refer to).
 */
export type SecretReading = 'synth' | 'host files';

/** The problem of a `fromEnv` reference at `path` whose variable is unset; it names the field `fromEnv`. */
export function unsetVariableProblem(path: FieldPath, ref: EnvSecretRef, reading: SecretReading): Problem {
  const fix = reading === 'synth' ? 'export it before synth, or reference an existing Secret with existingSecret: { name, key }' : 'export it before rendering the host files';
  return { path: [...path, 'fromEnv'], message: `environment variable ${ref.fromEnv} is not set; ${fix}` };
}

/** The value of the `fromEnv` reference at `path`; throws ProblemsError when its variable is unset. */
export function requireEnvSecret(ref: EnvSecretRef, env: Environment, path: FieldPath, reading: SecretReading): string {
  const value = readEnvSecret(ref, env);
  if (value === undefined) throw new ProblemsError([unsetVariableProblem(path, ref, reading)]);
  return value;
}
