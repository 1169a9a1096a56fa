/**
 * CEL expressions of `fail_if_body_json_matches_cel` and `fail_if_body_json_not_matches_cel`, on
 * @bufbuild/cel (Buf's implementation of the Common Expression Language, which cel-go upstream uses too).
 * As upstream, an expression sees one variable, `body`, of dynamic type: the response body parsed as JSON.
 * Each expression is parsed and planned once, at load; a probe only evaluates the plan.
 */
import { CelScalar, celEnv, isCelError, parse, plan } from '@bufbuild/cel';

/** The one environment every expression runs in: `body`, dynamic. */
const BODY_ENV = celEnv({ variables: { body: CelScalar.DYN } });

/** What evaluating an expression on a body gave: a boolean, or why there is none. */
export type CelOutcome = { readonly ok: true; readonly value: boolean } | { readonly ok: false; readonly problem: string };

/** An expression compiled at load; one object serves every probe. */
export interface CelProgram {
  /** The expression as written: what logs and /config show. */
  readonly source: string;
  evaluate(body: unknown): CelOutcome;
}

/** `source` compiled, or a thrown Error whose message says where it does not parse. */
export function compileCel(source: string): CelProgram {
  const evaluate = plan(BODY_ENV, parse(source));
  return {
    source,
    evaluate(body) {
      let result: unknown;
      try {
        result = evaluate({ body: body as never });
      } catch (error) {
        return { ok: false, problem: (error as Error).message };
      }
      if (isCelError(result)) return { ok: false, problem: result.message };
      if (typeof result !== 'boolean') return { ok: false, problem: `the expression gave ${typeof result === 'bigint' ? 'an integer' : `a ${typeof result}`}, not a boolean` };
      return { ok: true, value: result };
    },
  };
}
