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

/** `source` compiled, or a thrown Error whose message says where it does not parse. */
export function compileCel(source: string): CelProgram {
  const { cel, bodyEnv } = loadCel();
  const evaluate = cel.plan(bodyEnv, cel.parse(source));
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
