/**
 * The README's and docs/'s examples are programs and specs that work: every ```ts block that is a whole program
 * (it imports what it uses) type-checks against the library, with the repository's tsconfig and its sources (the
 * "@probekit/source" condition, as npm run typecheck resolves `probekit`); every ```yaml block that is a whole
 * spec (top-level `modules:` and `jobs:`) passes parseSpec, its fromEnv variables set as a user would set them.
 */
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import { parseSpec } from '../../src/model';
import { documentationFiles, readMarkdown, ROOT, type CodeBlock } from '../support/markdown';

interface Example extends CodeBlock {
  readonly file: string;
}

const examples = (language: string, whole: (text: string) => boolean): Example[] =>
  documentationFiles().flatMap((file) =>
    readMarkdown(file)
      .blocks.filter((block) => block.language === language && whole(block.text))
      .map((block) => ({ ...block, file })),
  );

const programs = examples('ts', (text) => /^import /m.test(text));
const specs = examples('yaml', (text) => /^modules:/m.test(text) && /^jobs:/m.test(text));

/** The repository's compiler options (tsconfig.json), as `npm run typecheck` uses them. */
function compilerOptions(): ts.CompilerOptions {
  const configFile = join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, dirname(configFile)).options;
}

/**
 * Type-checks each program as a file of its own at the repository's root, where `probekit` resolves to this
 * package (its own name, through its exports) and cdk8s to the versions we develop with. Returns tsc's messages.
 */
function typeCheck(sources: ReadonlyMap<string, string>): string[] {
  const options = { ...compilerOptions(), noEmit: true, noUnusedLocals: false };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => sources.get(name) ?? readFile(name);
  host.fileExists = (name) => sources.has(name) || fileExists(name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = sources.get(name);
    return text === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file !== undefined && sources.has(diagnostic.file.fileName))
    .map((diagnostic) => {
      const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${diagnostic.file!.fileName.slice(ROOT.length + 1)}:${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
}

describe('the examples of README.md and docs/*.md', () => {
  it('finds the programs and the specs (the README has two of each)', () => {
    expect(programs.filter((block) => block.file === 'README.md')).toHaveLength(2);
    expect(specs.filter((block) => block.file === 'README.md')).toHaveLength(2);
  });

  it('every whole ts program type-checks against the library', () => {
    // Named after where each block is, so that a message points at it: README.md:312.ts is the block at line 312.
    const sources = new Map(programs.map((block) => [join(ROOT, `${block.file.replace('/', '-')}-${block.line}.example.ts`), block.text]));
    expect(typeCheck(sources)).toEqual([]);
  }, 120_000);

  it.each(specs.map((block) => [`${block.file}:${block.line}`, block] as const))('the spec at %s passes parseSpec', (_where, block) => {
    const env = Object.fromEntries([...block.text.matchAll(/fromEnv: (\w+)/g)].map(([, name]) => [name!, `value of ${name}`]));
    expect(() => parseSpec(parse(block.text), { env })).not.toThrow();
  });
});
