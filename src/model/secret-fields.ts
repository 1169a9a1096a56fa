/**
 * The fields of a module that may hold a secret reference, and where the exporter reads each from. A secret
 * never enters the exporter's config file: each becomes a file the config names, in the field the exporter
 * reads it from (a header from `http_headers` files, `Authorization` from `authorization.credentials_file`,
 * `bearer_token` from `bearer_token_file`, a basic-auth password from `password_file`). What the exporter
 * cannot read from a file is refused here, with the fix, so that every spec that validates synthesizes a
 * config the exporter accepts.
 */
import type { FieldPath, ModuleInput, Problem } from '@probekit/exporter';
import { isSecretRef } from './schema';
import type { SecretRef } from './secret-ref';
import type { SpecModule } from './spec';

/** Fields besides header values that take a secret reference, from the module's top. */
export const SECRET_FIELDS: readonly FieldPath[] = [
  ['http', 'bearer_token'],
  ['http', 'authorization', 'credentials'],
  ['http', 'basic_auth', 'password'],
];

/** A secret reference in a module: the field as the user wrote it (from the module's top) and the reference. */
export interface ModuleSecret {
  readonly field: FieldPath;
  readonly ref: SecretRef;
}

/** A secret placed in a file: the file's path, and the reference whose value the file holds. */
export interface PlacedSecret extends ModuleSecret {
  readonly path: string;
  readonly fileRef: SecretRef;
}

/** Headers the exporter sets itself, or from a field of its own; none can come from a file. */
const SELF_SET_HEADERS = ['content-length', 'connection', 'transfer-encoding', 'upgrade'];

function valueAt(module: unknown, field: FieldPath): unknown {
  return field.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key as string] : undefined), module);
}

/** The candidate fields for a secret reference in `module`: every header value and SECRET_FIELDS. */
export function secretCandidateFields(module: SpecModule): FieldPath[] {
  const headers = module.http?.headers;
  const headerFields = headers !== null && typeof headers === 'object' ? Object.keys(headers).map((name) => ['http', 'headers', name]) : [];
  return [...headerFields, ...SECRET_FIELDS].filter((field) => valueAt(module, field) !== undefined);
}

/** The secret references of a module, in the order of its fields. */
export function moduleSecrets(module: SpecModule): ModuleSecret[] {
  return secretCandidateFields(module).flatMap((field) => {
    const ref = valueAt(module, field);
    return isSecretRef(ref) ? [{ field, ref }] : [];
  });
}

/** A copy of `module` with `value` at `field` (undefined: the field removed), parents copied on the way. */
function withValue(module: Record<string, unknown>, field: FieldPath, value: unknown): Record<string, unknown> {
  const [key, ...rest] = field as string[];
  const copy = { ...module };
  if (rest.length === 0) {
    if (value === undefined) delete copy[key];
    else copy[key] = value;
  } else copy[key] = withValue((module[key] as Record<string, unknown> | undefined) ?? {}, rest, value);
  return copy;
}

/** The module with each secret replaced, in place, by what `valueOf` gives for it. */
export function moduleWithSecretsInPlace(module: SpecModule, valueOf: (secret: ModuleSecret) => string): ModuleInput {
  return moduleSecrets(module).reduce<Record<string, unknown>>((copy, secret) => withValue(copy, secret.field, valueOf(secret)), module as Record<string, unknown>) as object as ModuleInput;
}

/** The module with each secret replaced by a stand-in, as the exporter's schema sees its fields. */
export function withoutSecrets(module: SpecModule): ModuleInput {
  return moduleWithSecretsInPlace(module, () => '<secret>');
}

const isHeader = (field: FieldPath): boolean => field[1] === 'headers';
const headerName = (field: FieldPath): string => String(field[2]).toLowerCase();

/** The scheme of an Authorization header's `prefix` ("Bearer "), when it is one word and a space. */
function authorizationScheme(ref: SecretRef): string | undefined {
  return 'fromEnv' in ref ? /^(\S+) $/.exec(ref.prefix ?? '')?.[1] : undefined;
}

/** Secret references the exporter could not read where they sit, with the fix; `path` leads to the module. */
export function secretFieldProblems(module: SpecModule, path: FieldPath): Problem[] {
  const problems: Problem[] = [];
  for (const { field, ref } of moduleSecrets(module)) {
    const at = [...path, ...field];
    if (!isHeader(field)) continue;
    const name = headerName(field);
    if (name === 'host') problems.push({ path: at, message: 'cannot come from a secret: the exporter sends Host as written (the target sees it anyway); write it as text' });
    else if (SELF_SET_HEADERS.includes(name)) problems.push({ path: at, message: `cannot come from a secret: the exporter sets ${String(field[2])} itself for each request; drop it` });
    else if (name === 'authorization') {
      const scheme = authorizationScheme(ref);
      const others = ['authorization', 'bearer_token', 'bearer_token_file', 'basic_auth', 'oauth2'].filter((other) => valueAt(module, ['http', other]) !== undefined);
      if (!('fromEnv' in ref)) {
        problems.push({
          path: at,
          message:
            'the exporter reads Authorization from authorization.credentials_file, without the scheme, and a Secret holds the whole value; write authorization: { type: Bearer, credentials: { existingSecret: { name, key } } } (or externalSecret) with the value holding the credentials alone',
        });
      } else if (scheme === undefined) {
        problems.push({
          path: [...at, 'prefix'],
          message: 'must be the scheme and one space, for example prefix: "Bearer ": the exporter sends Authorization as its type and the credentials read from a file',
        });
      } else if (scheme.toLowerCase() === 'basic') {
        problems.push({ path: [...at, 'prefix'], message: 'is Basic, which the exporter sends from basic_auth; write basic_auth: { username, password: { fromEnv: VAR } } instead' });
      } else if (others.length > 0) {
        problems.push({ path: at, message: `the exporter sends one Authorization header, and ${others.join(', ')} sets it too; keep one of them` });
      }
    }
  }
  return problems;
}

/**
 * The module as the exporter reads it: each secret moved to the field that reads it from the file `place`
 * gives it. Assumes secretFieldProblems found nothing.
 */
export function moduleWithSecretFiles(module: SpecModule, place: (secret: ModuleSecret) => string): { module: ModuleInput; placed: PlacedSecret[] } {
  const secrets = moduleSecrets(module);
  let result = module as Record<string, unknown>;
  const placed: PlacedSecret[] = [];
  for (const secret of secrets) {
    const path = place(secret);
    const { field, ref } = secret;
    result = withValue(result, field, undefined);
    if (isHeader(field) && headerName(field) === 'authorization') {
      result = withValue(result, ['http', 'authorization'], { type: authorizationScheme(ref), credentials_file: path });
      // The file holds the credentials; the scheme is the authorization's type.
      placed.push({ ...secret, path, fileRef: { fromEnv: (ref as { fromEnv: string }).fromEnv } });
      continue;
    }
    if (isHeader(field)) {
      const httpHeaders = (valueAt(result, ['http', 'http_headers']) as Record<string, unknown> | undefined) ?? {};
      result = withValue(result, ['http', 'http_headers'], { ...httpHeaders, [String(field[2])]: { files: [path] } });
    } else {
      result = withValue(result, [...field.slice(0, -1), `${String(field[field.length - 1])}_file`], path);
    }
    placed.push({ ...secret, path, fileRef: ref });
  }
  const headers = valueAt(result, ['http', 'headers']);
  if (headers !== undefined && Object.keys(headers as object).length === 0) result = withValue(result, ['http', 'headers'], undefined);
  return { module: result as object as ModuleInput, placed };
}
