/**
 * The config as /config and debug output show it: every secret replaced by <secret>, as upstream prints
 * its Secret fields, plus the values of headers whose name says they carry a credential (the documented
 * `Authentication: Bearer <ACCESS_TOKEN>` lives in plain `headers`).
 */
import type * as Yaml from 'yaml';
import type { CompiledConfig } from './module';
import type { Module } from './schema';

export const SECRET_MASK = '<secret>';

/** Field names whose values are secrets wherever they appear. */
const SECRET_FIELDS = new Set(['password', 'credentials', 'bearer_token', 'client_secret', 'key', 'secrets']);

const CREDENTIAL_HEADER = /auth|token|secret|key|cookie|password|session/i;

/** A URL with its password (userinfo) replaced by <secret>; other text unchanged. */
export function maskUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === '') return text;
    url.password = SECRET_MASK;
    return decodeURIComponent(url.toString());
  } catch {
    return text;
  }
}

function maskValue(key: string, value: unknown, parentKey: string | undefined): unknown {
  if (value === undefined || value === null) return value;
  if (SECRET_FIELDS.has(key)) return Array.isArray(value) ? value.map(() => SECRET_MASK) : SECRET_MASK;
  if ((parentKey === 'headers' || parentKey === 'proxy_connect_header' || parentKey === 'metadata') && CREDENTIAL_HEADER.test(key)) {
    return Array.isArray(value) ? value.map(() => SECRET_MASK) : SECRET_MASK;
  }
  if (parentKey === 'http_headers' && CREDENTIAL_HEADER.test(key) && typeof value === 'object') {
    const header = maskTree(value, key) as { values?: string[] };
    return { ...header, values: header.values?.map(() => SECRET_MASK) };
  }
  if (key === 'proxy_url' && typeof value === 'string') return maskUrl(value);
  return maskTree(value, key);
}

function maskTree(value: unknown, parentKey?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => maskTree(item, parentKey));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== undefined)
        .map(([key, inner]) => [key, maskValue(key, inner, parentKey)]),
    );
  }
  return value;
}

/**
 * YAML text of `value`. The YAML library (about 8 MiB in memory) loads when /config or a debug text is first
 * written, not with the exporter: most exporters never write either.
 */
function yamlText(value: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return (require('yaml') as typeof Yaml).stringify(value);
}

/** A module as written, as YAML with secrets masked: what debug output shows. */
export function maskedModuleYaml(module: Module): string {
  return yamlText(maskTree(module));
}

/** The loaded config as written (defaults applied) as YAML with secrets masked. */
export function maskedConfigYaml(config: CompiledConfig): string {
  const modules = Object.fromEntries(Object.entries(config.modules).map(([name, module]) => [name, module.written]));
  return yamlText(maskTree({ allowed_targets: config.writtenAllowedTargets, modules }));
}
