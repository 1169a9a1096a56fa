/**
 * Reading a spec file (YAML, or JSON, which is YAML too). An edge of the program: renderers never read
 * files; the cdk8s app and the CLI call this and pass the spec on.
 */
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { SpecError, parseSpec, type ParseOptions } from './validate';
import type { Spec } from './spec';

export function loadSpecFile(path: string, options: Omit<ParseOptions, 'source'> = {}): Spec {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SpecError([`cannot read the spec file: ${(error as NodeJS.ErrnoException).code ?? String(error)}; check the path given in PROBEKIT_SPEC`], path);
  }
  return parseSpecText(text, { ...options, source: path });
}

export function parseSpecText(text: string, options: ParseOptions = {}): Spec {
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    throw new SpecError(
      document.errors.map((error) => `line ${error.linePos?.[0].line ?? '?'}: ${error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}; fix the YAML syntax`),
      options.source,
    );
  }
  return parseSpec(document.toJS(), options);
}
