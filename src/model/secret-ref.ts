/**
 * Where a secret value comes from. Secrets never sit in the spec itself: the spec names an environment
 * variable read at synth, or a Secret that already exists in the cluster.
 */
import { z } from 'zod';

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
