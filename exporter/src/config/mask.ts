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

/**
 * Where a password may sit in `text`: in every stretch between the text's ends and `/`, `\\`, `?` or `#`
 * (where a URL's authority ends, as WHATWG and RFC 3986 parse it), what lies after the first `:` and before
 * the last `@`. The text is read as written, never parsed: a target that is not a well-formed URL (a stray
 * `%`, a space, a NUL) is masked as surely as one that is, so masking fails closed. A path holding `:` and
 * `@` in one segment (`/a:b@c`) is masked too: better a masked path than a shown password.
 */
function secretSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const stretch = /[^/\\?#]+/g;
  for (let match = stretch.exec(text); match; match = stretch.exec(text)) {
    const at = match[0].lastIndexOf('@');
    const colon = match[0].indexOf(':');
    if (at > 0 && colon >= 0 && colon < at) spans.push([match.index + colon + 1, match.index + at]);
  }
  return spans;
}

/** `text` (a target, a proxy URL) with every password it may hold replaced by <secret>; the rest as written. */
export function maskUrl(text: string): string {
  let shown = '';
  let from = 0;
  for (const [start, end] of secretSpans(text)) {
    shown += `${text.slice(from, start)}${SECRET_MASK}`;
    from = end;
  }
  return shown + text.slice(from);
}

/** %XX sequences decoded where they are well-formed, the rest kept: the password as a client would send it. */
function lenientDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/**
 * The passwords `text` may hold, as written, decoded, and without the tabs and newlines a URL parser drops:
 * what a probe's log lines must not show, whichever form a prober's message quotes.
 */
export function urlSecrets(text: string): string[] {
  const secrets = new Set<string>();
  for (const [start, end] of secretSpans(text)) {
    const written = text.slice(start, end);
    for (const form of [written, written.replace(/[\t\n\r]/g, '')]) {
      secrets.add(form);
      secrets.add(lenientDecode(form));
    }
  }
  secrets.delete('');
  return [...secrets].sort((a, b) => b.length - a.length);
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
