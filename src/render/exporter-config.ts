/**
 * Spec to the exporter's config file (blackbox_exporter's format: a `modules:` map). Secret values never enter
 * the file: each moves to the field that reads it from a file (../model/secret-fields.ts), and the caller
 * mounts that file from a Secret (cluster) or writes it with mode 0600 (single machine).
 */
import { stringify } from 'yaml';
import { ProblemsError, type ConfigInput, type ModuleInput, type Problem } from '@probekit/exporter';
import type { AllowedTargets, Environment, FieldPath, SecretRef, Spec, SpecModule } from '../model';
import { clusterSecretOf, moduleWithSecretFiles, moduleWithSecretsInPlace, readEnvSecret, unsetVariableProblem } from '../model';

/** A secret value the exporter reads from a file. */
export interface SecretFile {
  readonly module: string;
  /** The field of the module as the user wrote it, from the module's top: `http.headers.X-Api-Key`, `http.bearer_token`. */
  readonly field: FieldPath;
  /** File name inside the secrets directory; also the key in the Secret that holds it. */
  readonly fileName: string;
  readonly path: string;
  /** The reference whose value the file holds (an Authorization header's scheme goes to the config instead). */
  readonly ref: SecretRef;
}

export interface RenderedExporterConfig {
  readonly config: ConfigInput;
  readonly secretFiles: readonly SecretFile[];
}

/** Where the exporter's config file is mounted in the cluster form, from its ConfigMap. */
export const CLUSTER_CONFIG_DIR = '/etc/probekit';

/** Where the exporter finds secret header files in the cluster form. */
export const CLUSTER_SECRETS_DIR = `${CLUSTER_CONFIG_DIR}/secrets`;

/**
 * Where each Secret a header references with existingSecret is mounted, one folder per Secret, one file
 * per key. A sibling of CLUSTER_SECRETS_DIR, not inside it: a mount point cannot be made in a read-only
 * Secret volume.
 */
export const CLUSTER_EXISTING_SECRETS_DIR = `${CLUSTER_CONFIG_DIR}/existing-secrets`;

/** The folder an existing Secret is mounted at; each of its keys is a file there. */
export function existingSecretDir(secretName: string): string {
  return `${CLUSTER_EXISTING_SECRETS_DIR}/${secretName}`;
}

/** A Secret key and file name for one module's secret: only the characters both allow. */
export function secretFileName(module: string, field: FieldPath): string {
  // A header keeps the name it always had; other fields say where they sit in the module.
  const name = field[1] === 'headers' ? String(field[2]) : field.join('.');
  return `${module}.${name}`.toLowerCase().replace(/[^-._a-z0-9]/g, '-');
}

/** What the exporter's config file is made of: the modules, and the exporter-wide allow-list when the spec has one. */
export interface ExporterConfigSource {
  readonly modules: Spec['modules'];
  readonly exporter?: { readonly allowedTargets?: AllowedTargets };
}

/** The spec's exporter-wide allow-list as the config file's top-level allowed_targets. */
export function renderAllowedTargets(allowed: AllowedTargets): NonNullable<ConfigInput['allowed_targets']> {
  return {
    ...(allowed.hosts === undefined ? {} : { hosts: [...allowed.hosts] }),
    ...(allowed.networks === undefined ? {} : { networks: [...allowed.networks] }),
    deny_self_and_metadata: allowed.denySelfAndMetadata,
  };
}

export function renderExporterConfig(spec: ExporterConfigSource, secretsDir: string = CLUSTER_SECRETS_DIR): RenderedExporterConfig {
  const secretFiles: SecretFile[] = [];
  const modules: Record<string, ModuleInput> = {};
  for (const [name, module] of Object.entries(spec.modules)) {
    const placed = moduleWithSecretFiles(module, ({ field, ref }) => {
      const secret = clusterSecretOf(ref);
      return secret ? `${existingSecretDir(secret.name)}/${secret.key}` : `${secretsDir}/${secretFileName(name, field)}`;
    });
    modules[name] = placed.module;
    secretFiles.push(...placed.placed.map(({ field, path, fileRef }) => ({ module: name, field, fileName: secretFileName(name, field), path, ref: fileRef })));
  }
  const allowed = spec.exporter?.allowedTargets;
  return { config: { ...(allowed === undefined ? {} : { allowed_targets: renderAllowedTargets(allowed) }), modules }, secretFiles };
}

/** The config file's text, as the exporter reads it. */
export function renderExporterConfigYaml(spec: ExporterConfigSource, secretsDir?: string): string {
  return stringify(renderExporterConfig(spec, secretsDir).config, { lineWidth: 0 });
}

/**
 * Module `name` as a probe run from here takes it (`probekit test`): each secret's value read as synth reads it
 * (`fromEnv` from `env`, by readEnvSecret), in place. An `existingSecret` or `externalSecret` lives in the cluster
 * or a secret store, out of reach here: a problem naming the field, as is a variable that is not set.
 */
export function moduleWithSecretValues(name: string, module: SpecModule, env: Environment): ModuleInput {
  const problems: Problem[] = [];
  const result = moduleWithSecretsInPlace(module, ({ field, ref }) => {
    const path: FieldPath = ['modules', name, ...field];
    if (!('fromEnv' in ref)) {
      const where = 'existingSecret' in ref ? 'existingSecret names a Secret in the cluster' : 'externalSecret names a value in a secret store';
      problems.push({ path, message: `${where}, which probekit test cannot read from here; export the value and reference it with { fromEnv: VAR } to test this module` });
      return '';
    }
    const value = readEnvSecret(ref, env);
    if (value === undefined) problems.push(unsetVariableProblem(path, ref, 'probekit test'));
    return value ?? '';
  });
  if (problems.length > 0) throw new ProblemsError(problems);
  return result;
}
