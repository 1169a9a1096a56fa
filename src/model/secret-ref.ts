/**
 * Where a secret value comes from. Secrets never sit in the spec itself: the spec names an environment
 * variable read at synth, a Secret that already exists in the cluster, or a value in an external store that
 * the External Secrets Operator copies into a Secret (an ExternalSecret object is synthesized, the value
 * never is).
 */
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
    }
  | {
      /** A value of an external store, which the External Secrets Operator copies into a Secret; it holds the whole value. */
      readonly externalSecret: ExternalSecretSource;
    };

/** An ExternalSecret: its name (and its Secret's), the store, and the value's place in the store. */
export interface ExternalSecretSource {
  /** Name of the ExternalSecret and of the Secret it makes, which holds the value under the key `value`. */
  readonly name: string;
  /** The SecretStore (or ClusterSecretStore) to read from. */
  readonly store: string;
  /** @default SecretStore */
  readonly storeKind?: 'SecretStore' | 'ClusterSecretStore';
  /** The value's key in the store. */
  readonly key: string;
  /** A property of that value (a field of a JSON value, a key of a Vault secret). @default - the whole value */
  readonly property?: string;
}

/** The key under which the Secret an ExternalSecret makes holds the value. */
export const EXTERNAL_SECRET_KEY = 'value';

export type EnvSecretRef = Extract<SecretRef, { fromEnv: string }>;
export type ExistingSecretRef = Extract<SecretRef, { existingSecret: unknown }>;
export type ExternalSecretRef = Extract<SecretRef, { externalSecret: unknown }>;

/** The cluster Secret and key a reference reads from, or undefined for a `fromEnv` one (read at synth). */
export function clusterSecretOf(ref: SecretRef): { readonly name: string; readonly key: string } | undefined {
  if ('existingSecret' in ref) return ref.existingSecret;
  if ('externalSecret' in ref) return { name: ref.externalSecret.name, key: EXTERNAL_SECRET_KEY };
  return undefined;
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
