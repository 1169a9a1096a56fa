/**
 * Every emitter the probers create gets its error listener the tick it exists, from the probe's Resources
 * (see src/probers/shared/resources.ts): this test reads the probers' sources with the type checker and
 * fails on any expression that creates an EventEmitter (a socket, request, session, stream, UDP socket,
 * decompressor...) anywhere but as the argument of `Resources.own`. Calls of the probers' own functions
 * are checked where those functions create their emitters; methods that return their receiver (`on`,
 * `once`, `end`) create nothing. An emitter that outlives probes (a thread of the body checks' pool) is
 * owned by no probe: it passes when the statements right after its declaration, with no `await` before,
 * give it an 'error' listener.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const PROBERS = resolve(__dirname, '../../../src/probers');
const EXPORTER_SOURCES = resolve(__dirname, '../../../src');
const RESOURCES = join(PROBERS, 'shared', 'resources.ts');

/**
 * Types of emitters used synchronously, which never emit 'error': a hash (createHash(...).update(...)
 * .digest()) is a stream only for those who pipe into it.
 */
const SYNCHRONOUS_STREAMS = new Set(['Hash', 'Hmac']);

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function isEmitter(type: ts.Type, checker: ts.TypeChecker): boolean {
  const concrete = checker.getNonNullableType(type);
  const parts = concrete.isUnion() ? concrete.types : [concrete];
  return parts.some((part) => ['on', 'once', 'emit', 'prependListener'].every((name) => part.getProperty(name) !== undefined));
}

/** The argument of `<Resources>.own(...)`, maybe as one branch of a condition. */
function isOwned(node: ts.Node, checker: ts.TypeChecker): boolean {
  let argument = node;
  while (ts.isConditionalExpression(argument.parent) || ts.isParenthesizedExpression(argument.parent) || ts.isAsExpression(argument.parent)) argument = argument.parent;
  const parent = argument.parent;
  if (!ts.isCallExpression(parent) || parent.arguments[0] !== argument || !ts.isPropertyAccessExpression(parent.expression)) return false;
  const receiver = checker.getTypeAtLocation(parent.expression.expression);
  return parent.expression.name.text === 'own' && receiver.getSymbol()?.getName() === 'Resources';
}

/**
 * `const x = <node>;` followed in its block, before any `await`, by a statement `x.on('error', ...)`: the
 * emitter has its error listener in the tick it exists, from the code that keeps it.
 */
function listenedAtOnce(node: ts.Node): boolean {
  const declaration = node.parent;
  if (!ts.isVariableDeclaration(declaration) || declaration.initializer !== node || !ts.isIdentifier(declaration.name)) return false;
  const name = declaration.name.text;
  const statement = declaration.parent.parent;
  if (!ts.isVariableStatement(statement) || !ts.isBlock(statement.parent)) return false;
  const following = statement.parent.statements.slice(statement.parent.statements.indexOf(statement) + 1);
  for (const next of following) {
    if (containsAwait(next)) return false;
    if (!ts.isExpressionStatement(next) || !ts.isCallExpression(next.expression)) continue;
    const call = next.expression;
    if (!ts.isPropertyAccessExpression(call.expression) || !ts.isIdentifier(call.expression.expression)) continue;
    const [event] = call.arguments;
    if (call.expression.expression.text === name && ['on', 'once'].includes(call.expression.name.text) && event !== undefined && ts.isStringLiteral(event) && event.text === 'error') {
      return true;
    }
  }
  return false;
}

function containsAwait(node: ts.Node): boolean {
  return ts.isAwaitExpression(node) || (!ts.isFunctionLike(node) && ts.forEachChild(node, containsAwait) === true);
}

/** Expressions in `files` (of `program`) that create an emitter other than as the argument of Resources.own, as file:line text. */
function unownedEmitters(program: ts.Program, files: readonly string[]): string[] {
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} was not read`);
    const visit = (node: ts.Node): void => {
      const type = (ts.isCallExpression(node) || ts.isNewExpression(node)) && checker.getTypeAtLocation(node);
      if (type && isEmitter(type, checker) && !SYNCHRONOUS_STREAMS.has(type.getSymbol()?.getName() ?? '')) {
        const declaration = checker.getResolvedSignature(node as ts.CallExpression | ts.NewExpression)?.getDeclaration();
        const ours = declaration !== undefined && resolve(declaration.getSourceFile().fileName).startsWith(EXPORTER_SOURCES);
        // Methods declared to return `this` (on, once, end, setEncoding...) hand back what they were called on.
        const fluent = declaration !== undefined && 'type' in declaration && (declaration.type as ts.Node | undefined)?.kind === ts.SyntaxKind.ThisType;
        if (!ours && !fluent && !isOwned(node, checker) && !listenedAtOnce(node)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          found.push(`${relative(PROBERS, file)}:${line + 1}: ${node.getText().split('\n')[0]}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** A prober that creates emitters every way there is, owned and not. */
const EXAMPLE = `import { connect } from 'node:net';
import { request } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { createGunzip } from 'node:zlib';
import { createHash } from 'node:crypto';
import { Resources } from ${JSON.stringify(RESOURCES.replace(/\.ts$/, ''))};
export function probe(resources: Resources): void {
  const owned = resources.own(connect(80, '127.0.0.1'));
  owned.on('data', () => undefined).once('end', () => undefined);
  const loose = connect(80, '127.0.0.1');
  const outgoing = request({ createConnection: () => owned });
  const session = resources.own(http2Connect('http://x', { createConnection: () => owned }));
  const stream = session.request({});
  const piped = loose.pipe(createGunzip());
  createHash('sha256').update('x').digest('hex');
  const inflate = resources.own(Math.random() > 0.5 ? createGunzip() : createGunzip());
  void [outgoing, stream, piped, inflate];
}
export async function pool(): Promise<void> {
  const kept = connect(80, '127.0.0.1');
  kept.on('data', () => undefined);
  kept.on('error', () => undefined);
  const late = connect(80, '127.0.0.1');
  await Promise.resolve();
  late.on('error', () => undefined);
  const other = connect(80, '127.0.0.1');
  kept.on('error', () => other);
}
`;

describe('emitters of the probe path', () => {
  let dir: string;
  let example: string;
  let program: ts.Program;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-emitters-'));
    example = join(dir, 'prober.ts');
    writeFileSync(example, EXAMPLE);
    // One program for both: type-checking the probers with Node's typings is the slow part.
    program = ts.createProgram([...sourceFiles(PROBERS), example], {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      esModuleInterop: true,
      resolveJsonModule: true,
      skipLibCheck: true,
      noEmit: true,
    });
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are all created as the argument of Resources.own', () => {
    expect(unownedEmitters(program, sourceFiles(PROBERS))).toEqual([]);
  }, 60_000);

  it('a socket, request, session or stream created any other way is found', () => {
    expect(unownedEmitters(program, [example]).map((line) => line.replace(/^.*prober\.ts:/, ''))).toEqual([
      "10: connect(80, '127.0.0.1')",
      '11: request({ createConnection: () => owned })',
      '13: session.request({})',
      '14: loose.pipe(createGunzip())',
      '14: createGunzip()',
      "23: connect(80, '127.0.0.1')",
      "26: connect(80, '127.0.0.1')",
    ]);
  }, 60_000);
});
