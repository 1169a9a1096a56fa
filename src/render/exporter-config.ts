/**
 * Spec to the exporter's config file (blackbox_exporter's format: a `modules:` map). Secret header values never enter
 * the file: each becomes an `http_headers` entry read from a file, and the caller mounts that file
 * from a Secret (cluster) or writes it with tight permissions (single machine).
 */
import { stringify } from 'yaml';
import { ProblemsError, type ConfigInput, type FieldPath, type ModuleInput, type Problem } from '@probekit/exporter';
import type { Environment, SecretRef, Spec, SpecModule } from '../model';
import { readEnvSecret, secretHeaders, unsetVariableProblem, withoutSecretHeaders } from '../model';

/** A secret header value the exporter reads from a file. */
export interface SecretHeaderFile {
  readonly module: string;
  readonly header: string;
  /** File name inside the secrets directory; also the key in the Secret that holds it. */
  readonly fileName: string;
  readonly path: string;
  readonly ref: SecretRef;
}

export interface RenderedExporterConfig {
  readonly config: ConfigInput;
  readonly secretFiles: readonly SecretHeaderFile[];
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

/** A Secret key and file name for one module's header: only the characters both allow. */
export function secretFileName(module: string, header: string): string {
  return `${module}.${header}`.toLowerCase().replace(/[^-._a-z0-9]/g, '-');
}

export function renderExporterConfig(spec: Pick<Spec, 'modules'>, secretsDir: string = CLUSTER_SECRETS_DIR): RenderedExporterConfig {
  const secretFiles: SecretHeaderFile[] = [];
  const modules: Record<string, ModuleInput> = {};
  for (const [name, module] of Object.entries(spec.modules)) {
    const files = secretHeaders(module).map(([header, ref]) => {
      const fileName = secretFileName(name, header);
      const path = 'existingSecret' in ref ? `${existingSecretDir(ref.existingSecret.name)}/${ref.existingSecret.key}` : `${secretsDir}/${fileName}`;
      return { module: name, header, fileName, path, ref };
    });
    secretFiles.push(...files);
    modules[name] = moveSecretHeadersToFiles(module, files);
  }
  return { config: { modules }, secretFiles };
}

function moveSecretHeadersToFiles(module: SpecModule, files: readonly SecretHeaderFile[]): ModuleInput {
  if (files.length === 0) return withoutSecretHeaders(module);
  const secret = new Set(files.map((file) => file.header));
  const plainHeaders = Object.fromEntries(Object.entries(module.http?.headers ?? {}).filter(([header]) => !secret.has(header)));
  const { headers: _omitted, ...http } = module.http ?? {};
  const httpHeaders = {
    ...module.http?.http_headers,
    ...Object.fromEntries(files.map((file) => [file.header, { files: [file.path] }])),
  };
  return {
    ...module,
    http: { ...http, ...(Object.keys(plainHeaders).length > 0 ? { headers: plainHeaders as Record<string, string> } : {}), http_headers: httpHeaders },
  } as ModuleInput;
}

/** The config file's text, as the exporter reads it. */
export function renderExporterConfigYaml(spec: Pick<Spec, 'modules'>, secretsDir?: string): string {
  return stringify(renderExporterConfig(spec, secretsDir).config, { lineWidth: 0 });
}

/**
 * Module `name` as a probe run from here takes it (`probekit test`): each secret header's value read as synth
 * reads it (`fromEnv` from `env`, by readEnvSecret), in place. An `existingSecret` lives in the cluster, out of reach here: a
 * problem naming the header, as is a variable that is not set.
 */
export function moduleWithSecretValues(name: string, module: SpecModule, env: Environment): ModuleInput {
  const problems: Problem[] = [];
  const values = secretHeaders(module).map(([header, ref]): [string, string] => {
    const path: FieldPath = ['modules', name, 'http', 'headers', header];
    if ('existingSecret' in ref) {
      problems.push({
        path,
        message: `existingSecret names a Secret in the cluster, which probekit test cannot read from here; export the value and reference it with { fromEnv: VAR } to test this module`,
      });
      return [header, ''];
    }
    const value = readEnvSecret(ref, env);
    if (value === undefined) problems.push(unsetVariableProblem(path, ref, 'probekit test'));
    return [header, value ?? ''];
  });
  if (problems.length > 0) throw new ProblemsError(problems);
  if (values.length === 0) return withoutSecretHeaders(module);
  return { ...module, http: { ...module.http, headers: { ...module.http?.headers, ...Object.fromEntries(values) } } } as ModuleInput;
}
