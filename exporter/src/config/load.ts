/**
 * Reading the exporter's config file: strict YAML (an unknown field is an error with its file and line),
 * then each module compiled once into the form probes use (./module.ts), relative file paths taken from
 * the config file's directory, as upstream does.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { configSchema } from './schema';
import { compileModule, type CompiledConfig, type CompiledModule } from './module';
import { formatProblem, schemaProblems, type FieldPath, type Problem } from '../contract/problems';

/** A problem of the config file, with the line of the field it is about when the file has that field. */
export interface LocatedProblem extends Problem {
  readonly line?: number;
}

/** A config file the exporter refuses: every problem found, printed one per line as `file:line: field: fix`. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly LocatedProblem[],
  ) {
    super(problems.map((problem) => formatProblem(problem, { source: file, line: problem.line })).join('\n'));
    this.name = 'ConfigError';
  }
}

/** The 1-based line of the field at `path` in the document, or of its nearest parent the file has. */
function lineOf(document: Document, lines: LineCounter, path: FieldPath): number | undefined {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = document.getIn(path.slice(0, depth) as unknown[], true);
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

/** YAML `key:` with nothing after it means "all defaults" upstream; drop those nulls before validation. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== null)
        .map(([key, inner]) => [key, dropNulls(inner)]),
    );
  }
  return value;
}

const topLevelSchema = configSchema.extend({ modules: z.record(z.string(), z.unknown()) });

/**
 * Parses and validates config text; `file` names it in messages and anchors relative paths. Every problem
 * of every module is reported at once, each on its own line as `file:line: field: what to do`.
 */
export function parseConfig(text: string, file: string): CompiledConfig {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new ConfigError(
      file,
      document.errors.map((error) => ({ path: [], message: error.message.split('\n')[0], line: lines.linePos(error.pos[0]).line })),
    );
  }
  const located = (problems: readonly Problem[]): LocatedProblem[] => problems.map((problem) => ({ ...problem, line: lineOf(document, lines, problem.path) }));

  const top = topLevelSchema.safeParse(dropNulls(document.toJS() ?? {}), { reportInput: true });
  if (!top.success) throw new ConfigError(file, located(schemaProblems(topLevelSchema, top.error.issues)));
  const problems: Problem[] = [];
  const modules: Record<string, CompiledModule> = {};
  const directory = dirname(resolve(file));
  for (const [name, input] of Object.entries(top.data.modules)) {
    const compiled = compileModule(name, input, directory);
    if ('problems' in compiled) problems.push(...compiled.problems);
    else modules[name] = compiled.module;
  }
  if (problems.length > 0) throw new ConfigError(file, located(problems));
  return { modules };
}

export async function loadConfigFile(file: string): Promise<CompiledConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, [{ path: [], message: `cannot read the config file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }]);
  }
  return parseConfig(text, file);
}
