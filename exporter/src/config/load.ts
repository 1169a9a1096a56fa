/**
 * Reading the exporter's config file as upstream reads it (./yaml.ts: UTF-8 only, the first YAML document,
 * scalars read by the type of their field, merge keys, unknown fields refused with their file and line),
 * then each module compiled once into the form probes use (./module.ts), relative file paths taken from
 * the config file's directory, as upstream does.
 */
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { configSchema, type Module } from './schema';
import { compileConfig, type CompiledConfig, type ModuleCompiled } from './module';
import { decodeYaml, firstDocument, LineIndex, mergedEntries, parseYaml, YamlError, type YamlNode } from './yaml';
import { formatProblem, type FieldPath, type Problem } from '../contract/problems';
import { readProblem, readRegularFile } from './regular-file';

/** A config file the exporter refuses: every problem found, printed one per line as `file:line: field: fix`. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly Problem[],
  ) {
    super(problems.map((problem) => formatProblem(problem, { source: file })).join('\n'));
    this.name = 'ConfigError';
  }
}

/** A loaded config, and what the loader has to say about a file it accepted. */
export interface LoadedConfig extends CompiledConfig {
  readonly notes: readonly string[];
}

/** The 1-based line of the field at `path` in the document, or of its nearest parent the file has. */
function lineOf(root: YamlNode | undefined, lines: LineIndex, path: FieldPath): number | undefined {
  let node = root;
  let line = root && lines.lineAt(root.offset);
  for (const segment of path) {
    if (node?.kind === 'mapping' && typeof segment === 'string') {
      const entry = mergedEntries(node, lines).get(segment);
      if (entry === undefined) break;
      // Point at the key of a mapping entry rather than at its (possibly empty) value.
      line = lines.lineAt(entry.key.offset);
      node = entry.value;
    } else if (node?.kind === 'sequence' && typeof segment === 'number' && segment < node.items.length) {
      node = node.items[segment];
      line = lines.lineAt(node.offset);
    } else break;
  }
  return line;
}

/** The file's bytes as text: UTF-8 only, as upstream's YAML reader refuses anything else. */
export function configText(bytes: Uint8Array, file: string): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return decoder.decode(bytes);
  } catch {
    // Lines end at a newline byte, which no multi-byte character contains: the first line that fails is the place.
    let start = 0;
    for (let line = 1; ; line += 1) {
      const end = bytes.indexOf(0x0a, start);
      const slice = bytes.subarray(start, end === -1 ? bytes.length : end);
      try {
        decoder.decode(slice);
      } catch {
        throw new ConfigError(file, [{ path: [], line, message: 'is not valid UTF-8; save the file as UTF-8' }]);
      }
      start = end + 1;
    }
  }
}

/** A YAML file decoded by the field types of a schema, and how to put its lines on problems. */
export interface DecodedConfigText {
  readonly decoded: unknown;
  /** The problems with the line of their field (or of its nearest parent the file has) put on each. */
  located(problems: readonly Problem[]): Problem[];
}

/**
 * Parses `text` (one YAML document; `lines` indexes the whole file) and decodes it by the field types of
 * `schema`; what YAML itself refuses is a ConfigError at its line. A file without a document is refused with
 * `missing`, or decodes as nothing without it.
 */
export function decodeConfigText(text: string, lines: LineIndex, file: string, schema: z.ZodType, missing?: string): DecodedConfigText {
  let root: YamlNode | undefined;
  let decoded: unknown;
  try {
    root = parseYaml(text);
    if (root === undefined && missing !== undefined) throw new YamlError(missing, 0);
    decoded = root === undefined ? undefined : decodeYaml(root, schema, lines);
  } catch (error) {
    if (!(error instanceof YamlError)) throw error;
    throw new ConfigError(file, [{ path: [], message: error.message, line: lines.lineAt(error.offset) }]);
  }
  return { decoded, located: (problems) => problems.map((problem) => ({ ...problem, line: lineOf(root, lines, problem.path) })) };
}

/**
 * Parses and validates config text; `file` names it in messages and anchors relative paths. Every problem
 * of every module is reported at once, each on its own line as `file:line: field: what to do`. `compiled`
 * hears of each module that compiled, as soon as it did, while later ones may still be refused.
 */
export function parseConfig(text: string, file: string, compiled?: ModuleCompiled): LoadedConfig {
  const notes: string[] = [];
  const document = firstDocument(text);
  if (document.more) notes.push('the file holds more than one YAML document; only the first is read, as blackbox_exporter does');
  const { decoded, located } = decodeConfigText(document.text, new LineIndex(text), file, configSchema, 'the file has no YAML document; write modules: and the modules under it');

  const result = compileConfig(decoded, dirname(resolve(file)), compiled);
  if ('problems' in result) throw new ConfigError(file, located(result.problems));
  return { ...result.config, notes };
}

/** The config file's bytes (./regular-file.ts: a regular file, bounded), or a ConfigError that says why they cannot be read. */
export async function readConfigFile(file: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await readRegularFile(file);
  } catch (error) {
    throw new ConfigError(file, [{ path: [], message: `cannot read the config file: ${readProblem(error)}` }]);
  }
  return configText(bytes, file);
}

/** Reads, parses and compiles the config file in this thread (`--config.check`, tests). */
export async function loadConfigFile(file: string, compiled?: ModuleCompiled): Promise<LoadedConfig> {
  return parseConfig(await readConfigFile(file), file, compiled);
}

/** Modules as written, with upstream's defaults and absolute file paths: what crosses from a loading thread. */
export type WrittenModules = ReadonlyArray<readonly [name: string, written: Module]>;
