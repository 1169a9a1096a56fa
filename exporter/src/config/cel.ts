/**
 * CEL expressions of `fail_if_body_json_matches_cel` and `fail_if_body_json_not_matches_cel`, on
 * @bufbuild/cel (Buf's implementation of the Common Expression Language, which cel-go upstream uses too).
 * As upstream, an expression sees one variable, `body`, of dynamic type: the response body parsed as JSON.
 * Each expression is parsed and planned once, at load; a probe only evaluates the plan.
 */
import type * as Cel from '@bufbuild/cel';

/**
 * The library and the one environment every expression runs in (`body`, dynamic), loaded with the first
 * expression: about 15 MiB of memory that a config without CEL never needs.
 */
let celLibrary: { readonly cel: typeof Cel; readonly bodyEnv: Cel.CelEnv } | undefined;
function loadCel(): NonNullable<typeof celLibrary> {
  if (celLibrary) return celLibrary;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const cel = require('@bufbuild/cel') as typeof Cel;
  celLibrary = { cel, bodyEnv: cel.celEnv({ variables: { body: cel.CelScalar.DYN } }) };
  return celLibrary;
}

/** What evaluating an expression on a body gave: a boolean, or why there is none. */
export type CelOutcome = { readonly ok: true; readonly value: boolean } | { readonly ok: false; readonly problem: string };

/** An expression compiled at load; one object serves every probe. */
export interface CelProgram {
  /** The expression as written: what logs and /config show. */
  readonly source: string;
  evaluate(body: unknown): CelOutcome;
}

/**
 * An expression another thread compiled already (so it compiles), compiled here only if it is ever evaluated:
 * the serving thread and probe workers keep such programs, while checks run on check threads, which compile the
 * text themselves (../probers/shared/checks.ts). A 90 KB expression takes @bufbuild/cel one to two seconds to parse
 * and plan, which the serving thread must never spend.
 */
export function deferCel(source: string): CelProgram {
  let compiled: CelProgram | undefined;
  return { source, evaluate: (body) => (compiled ??= compileCel(source)).evaluate(body) };
}

/** `source` compiled, or a thrown Error whose message says where it does not parse or what it names that does not exist. */
export function compileCel(source: string): CelProgram {
  const { cel, bodyEnv } = loadCel();
  let parsed: ReturnType<typeof Cel.parse>;
  try {
    parsed = cel.parse(source);
  } catch (error) {
    // The parser recurses; an expression nested thousands deep ends its stack rather than the exporter.
    if (error instanceof RangeError) throw new Error('nested too deeply to parse; split it into simpler expressions');
    throw error;
  }
  const undeclared = parsed.expr === undefined ? [] : undeclaredReferences(parsed.expr);
  if (undeclared.length > 0) {
    throw new Error(`${undeclared.map((name) => `undeclared reference to '${name}'`).join(', ')} (the expression's one variable is body; functions are CEL's standard ones)`);
  }
  const evaluate = cel.plan(bodyEnv, parsed);
  return {
    source,
    evaluate(body) {
      let result: unknown;
      try {
        result = evaluate({ body: body as never });
      } catch (error) {
        return { ok: false, problem: (error as Error).message };
      }
      if (cel.isCelError(result)) return { ok: false, problem: result.message };
      if (typeof result !== 'boolean') return { ok: false, problem: `the expression gave ${typeof result === 'bigint' ? 'an integer' : `a ${typeof result}`}, not a boolean` };
      return { ok: true, value: result };
    },
  };
}

type Expr = NonNullable<ReturnType<typeof Cel.parse>['expr']>;

/**
 * Names that resolve without a variable (type names such as int or google.protobuf.Timestamp): few, so kept.
 * A name that does not resolve refuses its config and is not kept, so that configs cannot grow this.
 */
const constantNames = new Set<string>();

/** Whether `name` alone evaluates to something in the expressions' environment: a type name, not a variable. */
function resolvesAlone(name: string): boolean {
  if (constantNames.has(name)) return true;
  const { cel, bodyEnv } = loadCel();
  let resolves: boolean;
  try {
    resolves = !cel.isCelError(cel.plan(bodyEnv, cel.parse(name))({ body: null }));
  } catch {
    resolves = false;
  }
  if (resolves) constantNames.add(name);
  return resolves;
}

/** `a.b.c` as ['a', 'b', 'c'] when `expr` is an identifier followed by field selections only. */
function qualifiedName(expr: Expr): string[] | undefined {
  const fields: string[] = [];
  let current: Expr | undefined = expr;
  while (current?.exprKind.case === 'selectExpr' && !current.exprKind.value.testOnly) {
    fields.unshift(current.exprKind.value.field);
    current = current.exprKind.value.operand;
  }
  return current?.exprKind.case === 'identExpr' ? [current.exprKind.value.name, ...fields] : undefined;
}

/**
 * What `root` names that the environment has not: a variable other than body and a macro's own (bdy.status),
 * a function the library does not have (foo(body)). cel-go, which upstream compiles with, refuses these when the
 * config loads ("undeclared reference"); the library would plan them and fail every probe. Operators and macros
 * are the parser's own names and are not looked up. Walked with a stack, not recursion: an expression may nest
 * as deep as its parser lets it.
 */
function undeclaredReferences(root: Expr): string[] {
  const { bodyEnv } = loadCel();
  const undeclared = new Set<string>();
  const declared = (name: string, scope: ReadonlySet<string>) => scope.has(name) || bodyEnv.variables.find(name) !== undefined;
  const pending: Array<{ readonly expr: Expr | undefined; readonly scope: ReadonlySet<string> }> = [{ expr: root, scope: new Set() }];
  // Pushed last to first, so that names are found, and reported, in the order they are written.
  const visit = (scope: ReadonlySet<string>, ...exprs: Array<Expr | undefined>) => {
    for (let index = exprs.length - 1; index >= 0; index -= 1) pending.push({ expr: exprs[index], scope });
  };
  while (pending.length > 0) {
    const { expr, scope } = pending.pop()!;
    const kind = expr?.exprKind;
    switch (kind?.case) {
      case 'identExpr':
      case 'selectExpr': {
        const name = qualifiedName(expr!);
        if (name === undefined || declared(name[0]!, scope)) {
          if (kind.case === 'selectExpr') visit(scope, kind.value.operand);
          break;
        }
        // Not a variable: a qualified type name (google.protobuf.Timestamp), the longest prefix that resolves.
        if (!name.some((_, index) => resolvesAlone(name.slice(0, name.length - index).join('.')))) undeclared.add(name[0]!);
        break;
      }
      case 'callExpr':
        if (/^[A-Za-z][A-Za-z0-9_]*$/.test(kind.value.function) && bodyEnv.funcs.find(kind.value.function) === undefined) undeclared.add(kind.value.function);
        visit(scope, kind.value.target, ...kind.value.args);
        break;
      case 'listExpr':
        visit(scope, ...kind.value.elements);
        break;
      case 'structExpr':
        visit(scope, ...kind.value.entries.flatMap((entry) => (entry.keyKind.case === 'mapKey' ? [entry.keyKind.value, entry.value] : [entry.value])));
        break;
      case 'comprehensionExpr': {
        const inner = new Set([...scope, kind.value.iterVar, kind.value.iterVar2, kind.value.accuVar].filter(Boolean));
        visit(inner, kind.value.loopCondition, kind.value.loopStep, kind.value.result);
        visit(scope, kind.value.iterRange, kind.value.accuInit);
        break;
      }
      default:
        break;
    }
  }
  return [...undeclared];
}
