/**
 * Reading the exporter's config file: strict YAML (an unknown field is an error with its file and line),
 * upstream's defaults (from the schema, plus the section of the module's own prober), cross-field rules,
 * and file paths made relative to the config file's directory, as upstream does.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { configSchema, grpcProbeSchema, httpProbeSchema, icmpProbeSchema, moduleSchema, tcpProbeSchema, type Config, type Module, type TlsConfig } from './schema';
import { closestName, fieldsAt } from '../contract/problems';
import { validateModule, type ConfigProblem } from './validate';

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** The default section of each prober, for modules that leave it out (upstream fills it in the same way). */
const DEFAULT_SECTIONS = {
  http: () => httpProbeSchema.parse({}),
  tcp: () => tcpProbeSchema.parse({}),
  icmp: () => icmpProbeSchema.parse({}),
  grpc: () => grpcProbeSchema.parse({}),
} as const;

type Path = ReadonlyArray<PropertyKey>;

/** The 1-based line of `path` in the document (of the key when `key` is given), or of the nearest parent. */
function lineOf(document: Document, lines: LineCounter, path: Path, key?: string): number | undefined {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = document.getIn(path.slice(0, depth) as unknown[], true);
    if (depth === path.length && key !== undefined && isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
      if (pair && isScalar(pair.key) && pair.key.range) return lines.linePos(pair.key.range[0]).line;
    }
    // Point at the key of a mapping entry rather than at its (possibly empty) value.
    if (depth > 0) {
      const parent = document.getIn(path.slice(0, depth - 1) as unknown[], true);
      if (isMap(parent)) {
        const wanted = path[depth - 1];
        const pair = parent.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === wanted);
        if (pair && isScalar(pair.key) && pair.key.range) return lines.linePos(pair.key.range[0]).line;
      }
    }
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range) return lines.linePos(range[0]).line;
  }
  return undefined;
}

function dotted(path: Path): string {
  return path.map(String).join('.');
}

/** One problem per issue of `schema`; `prefix` is where the validated value sits in the file. */
function describeIssue(schema: z.ZodType, issue: z.core.$ZodIssue, prefix: Path): { path: Path; key?: string; message: string }[] {
  if (issue.code === 'unrecognized_keys') {
    const known = fieldsAt(schema, issue.path);
    const path = [...prefix, ...issue.path];
    return issue.keys.map((key) => {
      const suggestion = closestName(key, known);
      const fix = suggestion ? `did you mean ${JSON.stringify(suggestion)}?` : 'check its spelling or remove it';
      return { path, key, message: `unknown field ${JSON.stringify(key)}${path.length ? ` in ${dotted(path)}` : ''}; ${fix}` };
    });
  }
  issue = { ...issue, path: [...prefix, ...issue.path] } as z.core.$ZodIssue;
  const field = issue.path.length ? dotted(issue.path) : 'config';
  if (issue.code === 'invalid_value' && issue.path[issue.path.length - 1] === 'prober') {
    return [{ path: issue.path, message: `${field}: prober ${JSON.stringify(issue.input)} is not supported; use one of ${issue.values.join(', ')}` }];
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return [{ path: issue.path, message: `${field} is required` }];
  return [{ path: issue.path, message: `${field}: ${issue.message}` }];
}

/** YAML `key:` with nothing after it means "all defaults" upstream; drop those nulls before validation. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null).map(([key, inner]) => [key, dropNulls(inner)]));
  }
  return value;
}

function absolute(directory: string, path: string | undefined): string | undefined {
  return path === undefined || path === '' || isAbsolute(path) ? path : resolve(directory, path);
}

function tlsFilesFrom(directory: string, tls: TlsConfig): TlsConfig {
  return { ...tls, ca_file: absolute(directory, tls.ca_file), cert_file: absolute(directory, tls.cert_file), key_file: absolute(directory, tls.key_file) };
}

/** The module with its prober's section present and every file path absolute. */
function completeModule(module: Module, directory: string): Module {
  const filled: Module = { ...module };
  if (module.prober !== 'dns' && filled[module.prober] === undefined) {
    (filled as Record<string, unknown>)[module.prober] = DEFAULT_SECTIONS[module.prober]();
  }
  for (const section of ['tcp', 'dns', 'grpc'] as const) {
    const settings = filled[section];
    if (settings) (filled as Record<string, unknown>)[section] = { ...settings, tls_config: tlsFilesFrom(directory, settings.tls_config) };
  }
  const http = filled.http;
  if (http) {
    filled.http = {
      ...http,
      body_file: absolute(directory, http.body_file),
      bearer_token_file: absolute(directory, http.bearer_token_file),
      tls_config: tlsFilesFrom(directory, http.tls_config),
      basic_auth: http.basic_auth && { ...http.basic_auth, password_file: absolute(directory, http.basic_auth.password_file), username_file: absolute(directory, http.basic_auth.username_file) },
      authorization: http.authorization && { ...http.authorization, credentials_file: absolute(directory, http.authorization.credentials_file) },
      http_headers:
        http.http_headers &&
        Object.fromEntries(Object.entries(http.http_headers).map(([name, header]) => [name, { ...header, files: header.files?.map((file) => absolute(directory, file) ?? file) }])),
    };
  }
  return filled;
}

const topLevelSchema = configSchema.extend({ modules: z.record(z.string(), z.unknown()) });

/**
 * Parses and validates config text; `file` names it in messages and anchors relative paths. Every problem
 * of every module is reported at once, each on its own line as `file:line: field: what to do`.
 */
export function parseConfig(text: string, file: string): Config {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new ConfigError(document.errors.map((error) => `${file}:${lines.linePos(error.pos[0]).line}: ${error.message.split('\n')[0]}`));
  }
  const at = (path: Path, key?: string): string => {
    const line = lineOf(document, lines, path, key);
    return line === undefined ? file : `${file}:${line}`;
  };
  const schemaProblems = (schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix: Path): string[] =>
    issues.flatMap((issue) => describeIssue(schema, issue, prefix)).map((problem) => `${at(problem.path, problem.key)}: ${problem.message}`);

  const top = topLevelSchema.safeParse(dropNulls(document.toJS() ?? {}), { reportInput: true });
  if (!top.success) throw new ConfigError(schemaProblems(topLevelSchema, top.error.issues, []));
  const problems: string[] = [];
  const modules: Record<string, Module> = {};
  const directory = dirname(resolve(file));
  for (const [name, input] of Object.entries(top.data.modules)) {
    const parsed = moduleSchema.safeParse(input, { reportInput: true });
    if (!parsed.success) {
      problems.push(...schemaProblems(moduleSchema, parsed.error.issues, ['modules', name]));
      continue;
    }
    const found: ConfigProblem[] = validateModule(name, parsed.data);
    problems.push(...found.map((problem) => `${at(problem.path)}: ${dotted(problem.path)}: ${problem.message}`));
    modules[name] = completeModule(parsed.data, directory);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { modules };
}

export async function loadConfigFile(file: string): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`${file}: cannot read the config file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`]);
  }
  return parseConfig(text, file);
}
