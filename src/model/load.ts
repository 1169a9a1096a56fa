/**
 * Reading a spec file (YAML, or JSON, which is YAML too). An edge of the program: renderers never read
 * files; the cdk8s app and the CLI call this and pass the spec on.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { EMPTY_SPEC_FIX, SpecError, parseSpec, type ParseOptions } from './validate';
import type { Problem } from '@probekit/exporter';
import type { Spec } from './spec';

export interface LoadOptions extends Omit<ParseOptions, 'source'> {
  /**
   * How the user named the file, put before a problem reading it: `--spec monitoring.yaml`,
   * `PROBEKIT_SPEC=monitoring.yaml`. @default the path
   */
  readonly namedBy?: string;
  /** The directory a relative path is read from: the caller's. @default process.cwd() */
  readonly cwd?: string;
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

/** Reads and validates the spec file at `path`; its problems are printed after the path as the user gave it. */
export function loadSpecFile(path: string, options: LoadOptions = {}): Spec {
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
  return parseSpecText(text, { ...parseOptions, source: path });
}

export function parseSpecText(text: string, options: ParseOptions = {}): Spec {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    throw new SpecError(
      document.errors.map((error) => ({
        path: [],
        message: `line ${error.linePos?.[0].line ?? '?'}: ${error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}; fix the YAML syntax`,
      })),
      options.source,
    );
  }
  // A file with nothing in it (or only comments) holds no spec at all, which deserves its own words.
  if (document.contents === null) throw new SpecError([{ path: [], message: `the spec file is empty; ${EMPTY_SPEC_FIX}` }], options.source);
  return parseSpec(document.toJS(), options);
}
