/**
 * The target grammar of each prober: what `target=` a module of that prober can probe. Each prober's
 * folder defines its grammar, and its probe parses its target with that same function, so what this
 * reports is what the exporter does.
 */
import type { TargetGrammar } from '../probers/definition';
import { PROBER_DEFINITIONS } from '../probers/registry';
import type { ProberName } from './config';

export interface TargetOptions {
  /**
   * Also refuse targets the exporter would probe but that are likely mistakes, for a reader that wants
   * every target written out in full (probekit's spec, by its own choice):
   * - a host that is neither a host name nor an IP address (the exporter resolves it, and fails, at every probe);
   * - http: a target without its scheme, or with another one (the exporter probes it as http://...);
   * - grpc: a target without its port (the exporter takes 443 or 80, by the module's tls setting).
   * @default false: report exactly what the exporter's probers refuse.
   */
  readonly strict?: boolean;
}

/** Why `target` does not fit `prober`, or undefined when it does; the text follows the quoted target. */
export function targetProblem(prober: ProberName, target: string, options: TargetOptions = {}): string | undefined {
  // Each grammar reads its own kind of target; past this point the prober is only known at run time.
  const grammar: TargetGrammar<unknown> = PROBER_DEFINITIONS[prober].target;
  const parsed = grammar.parse(target);
  if (!parsed.ok) return parsed.problem;
  return options.strict ? grammar.strictProblem(parsed.target, target) : undefined;
}
