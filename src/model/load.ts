/**
 * Reading a spec file (YAML, or JSON, which is YAML too). An edge of the program: renderers never read
 * files; the cdk8s app and the CLI call this and pass the spec on.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { EMPTY_SPEC_FIX, SpecError, parseSpec, type ParseOptions } from './validate';
import { ProblemsError, type FieldPath, type Problem } from '@probekit/exporter';
import type { AgentChartName } from './agent-chart';
import type { Spec } from './spec';

export interface LoadOptions extends Omit<ParseOptions, 'source'> {
  /**
   * How the user named the file, put before a problem reading it: `--spec monitoring.yaml`,
   * `PROBEKIT_SPEC=monitoring.yaml`. @default the path
   */
  readonly namedBy?: string;
  /** The directory a relative path is read from: the caller's. @default process.cwd() */
  readonly cwd?: string;
  /** The agent chart to write values for, in place of the file's `agent.chart` (`probekit synth --chart`). @default the file's */
  readonly agentChart?: AgentChartName;
  /** This deployment's location, in place of the file's `location` (`probekit host render --location`). @default the file's */
  readonly location?: string;
}

/** A spec's input with `agent.chart` set to `chart`; an input that is not a mapping (or whose agent is not) is left for validation to refuse. */
export function withAgentChart(input: unknown, chart: AgentChartName): unknown {
  if (!isMapping(input)) return input;
  const agent = input.agent ?? {};
  return isMapping(agent) ? { ...input, agent: { ...agent, chart } } : input;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The spec file could not be read at all: the path is wrong, not the spec. */
export class SpecFileError extends SpecError {
  constructor(problems: readonly Problem[], source?: string) {
    super(problems, source);
    this.name = 'SpecFileError';
  }
}

const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
};

/** A spec file read and validated, and how to put the file's lines on problems found past parsing. */
export interface LoadedSpecFile {
  readonly spec: Spec;
  /**
   * A refusal found past parsing (what one form alone refuses: a unix job in a cluster) as the file's own: named
   * after it, each problem with the line of its field. One that names a file already is returned as it is.
   */
  readonly namedAfterFile: (error: ProblemsError) => ProblemsError;
}

/** Reads and validates the spec file at `path`; its problems are printed after the path as the user gave it. */
export function loadSpecFile(path: string, options: LoadOptions = {}): Spec {
  return readSpecFile(path, options).spec;
}

/** loadSpecFile, keeping the file's lines for what is found later. */
export function readSpecFile(path: string, options: LoadOptions = {}): LoadedSpecFile {
  const { namedBy, cwd, ...parseOptions } = options;
  const file = resolve(cwd ?? process.cwd(), path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const where = isAbsolute(path) ? '' : ` (a relative path is read from ${cwd ?? process.cwd()})`;
    throw new SpecFileError([{ path: [], message: `cannot read ${file}: ${READ_FAILURES[code] ?? code}; check the path${where}` }], namedBy ?? path);
  }
  const { spec, withLines } = parseWithLines(text, { ...parseOptions, source: path });
  return { spec, namedAfterFile: (error) => (error.source === undefined ? new ProblemsError(withLines(error.problems), path) : error) };
}

/** Validates spec text (YAML or JSON); each problem carries the line of its field. */
export function parseSpecText(text: string, options: ParseOptions = {}): Spec {
  return parseWithLines(text, options).spec;
}

/**
 * The 1-based line of the field at `path`: of its key in a mapping, of its item in a list; for a field the text
 * lacks (a missing one), of the nearest parent it has. None for the document as a whole.
 */
function lineOf(document: Document, lines: LineCounter, path: FieldPath): number | undefined {
  if (path.length === 0) return undefined;
  let node: unknown = document.contents;
  let offset = isNode(node) ? node.range?.[0] : undefined;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      // Keys are compared as text: a path says `200` for the key `200:`, which YAML reads as a number.
      const pair = node.items.find((item) => String(isScalar(item.key) ? item.key.value : item.key) === String(segment));
      if (pair === undefined) break;
      offset = isNode(pair.key) ? pair.key.range?.[0] : offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      node = node.items[segment];
      offset = isNode(node) ? node.range?.[0] : offset;
    } else break;
  }
  return offset === undefined ? undefined : lines.linePos(offset).line;
}

function sortByLine(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function parseWithLines(text: string, options: ParseOptions & Pick<LoadOptions, 'agentChart' | 'location'>): { spec: Spec; withLines: (problems: readonly Problem[]) => Problem[] } {
  const { agentChart, location, ...parseOptions } = options;
  const specOf = (read: unknown): Spec => {
    const input = location !== undefined && isMapping(read) ? { ...read, location } : read;
    return parseSpec(agentChart === undefined ? input : withAgentChart(input, agentChart), parseOptions);
  };
  // JSON is read as JSON: a million targets take a second there and some 25 s through the YAML document, which is
  // made only when there are problems to give lines to.
  const json = /^\s*\{/.test(text) ? jsonOf(text) : undefined;
  if (json !== undefined) {
    try {
      return { spec: specOf(json), withLines: (problems) => withLinesOf(text, problems) };
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
    }
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  if (document.errors.length > 0) {
    throw new SpecError(
      document.errors.map((error) => ({
        path: [],
        ...(error.linePos === undefined ? {} : { line: error.linePos[0].line }),
        message: `${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}; fix the YAML syntax`,
      })),
      options.source,
    );
  }
  // A file with nothing in it (or only comments) holds no spec at all, which deserves its own words.
  if (document.contents === null) throw new SpecError([{ path: [], message: `the spec file is empty; ${EMPTY_SPEC_FIX}` }], options.source);
  const withLines = (problems: readonly Problem[]): Problem[] =>
    problems.map((problem) => {
      const line = lineOf(document, lines, problem.path);
      return line === undefined ? problem : { ...problem, line };
    });
  try {
    return { spec: specOf(document.toJS()), withLines };
  } catch (error) {
    // In the file's order, as a reader goes through it to mend them; the document's own problems first.
    if (error instanceof SpecError) throw new SpecError(sortByLine(withLines(error.problems)), error.source);
    throw error;
  }
}

/**
 * A JSON text's value, or undefined when it is not JSON or repeats a key in one object (then it is read as YAML,
 * which says what is wrong and where: JSON.parse would keep the last of the repeated keys without a word).
 */
function jsonOf(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  return repeatsAKey(text) ? undefined : value;
}

/** Keys an object holds in a list until it has this many, then in a set: most objects of a spec have a few. */
const LISTED_KEYS = 16;

/**
 * Whether a well-formed JSON text has an object with the same key twice: one pass over the text, the keys of each
 * object open at the point (none for arrays); a string is a key when a colon follows it.
 */
function repeatsAKey(text: string): boolean {
  const open: Array<string[] | Set<string> | undefined> = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text.charCodeAt(at);
    if (char === 0x22) {
      // The string's closing quote: the first one after `at` not escaped by an odd run of backslashes.
      let end = text.indexOf('"', at + 1);
      for (;;) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes += 1;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      const keys = open[open.length - 1];
      if (keys !== undefined) {
        let after = end + 1;
        while (text.charCodeAt(after) <= 0x20) after += 1;
        if (text.charCodeAt(after) === 0x3a) {
          const raw = text.slice(at + 1, end);
          const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
          if (Array.isArray(keys)) {
            if (keys.includes(key)) return true;
            keys.push(key);
            if (keys.length === LISTED_KEYS) open[open.length - 1] = new Set(keys);
          } else {
            if (keys.has(key)) return true;
            keys.add(key);
          }
        }
      }
      at = end;
    } else if (char === 0x7b) open.push([]);
    else if (char === 0x5b) open.push(undefined);
    else if (char === 0x7d || char === 0x5d) open.pop();
  }
  return false;
}

/** Problems found past parsing a spec read as JSON, with their lines: the YAML document is made for them only. */
function withLinesOf(text: string, problems: readonly Problem[]): Problem[] {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  return problems.map((problem) => {
    const line = lineOf(document, lines, problem.path);
    return line === undefined ? problem : { ...problem, line };
  });
}
