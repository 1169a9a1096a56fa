/**
 * What defines a prober apart from its probe function: its name, the section of a module it reads (a zod
 * schema with upstream's defaults), the rules across that section's fields, the compile step that turns
 * the section into the form its probes use, and the grammar of its targets. This part loads no runtime
 * dependency of the exporter, so the contract can check modules and targets with it.
 */
import type { z } from 'zod';
import type { FieldPath, Problem } from '../contract/problems';
import type { Pattern } from '../config/regexp';
import type { CelProgram } from '../config/cel';

/** What a compile step may ask of the loader. Paths are below the section. */
export interface CompileContext {
  /** The pattern written at `path`, compiled; one that does not compile becomes a problem there. */
  pattern(path: FieldPath, source: string): Pattern;
  /** The CEL expression written at `path`, compiled; one that does not compile becomes a problem there. */
  cel(path: FieldPath, source: string): CelProgram;
  /** Refuses the value at `path`: the module does not load. */
  problem(path: FieldPath, message: string): void;
}

/** A target as a probe reads it, or why the probe cannot; `problem` follows the quoted target. */
export type ParsedTarget<Target> = { readonly ok: true; readonly target: Target } | { readonly ok: false; readonly problem: string };

/**
 * What `target=` a prober accepts. The probe parses its target with `parse`, and the contract reports
 * from the same function, so the two cannot disagree.
 */
export interface TargetGrammar<Target> {
  parse(target: string): ParsedTarget<Target>;
  /**
   * What a stricter reader (probekit's spec, by choice) refuses among the targets `parse` accepts: a host
   * that is neither a name nor an IP address, and what the exporter would otherwise assume (each prober
   * says which). The words follow the quoted target.
   */
  strictProblem(target: Target, written: string): string | undefined;
}

export interface ProberDefinition<Name extends string = string, Schema extends z.ZodType = z.ZodType, Compiled = unknown, Target = unknown> {
  /** The value of a module's `prober` field, and the name of its section. */
  readonly name: Name;
  /** The section, with upstream's defaults; unknown fields are refused. */
  readonly schema: Schema;
  /** Rules across fields the schema cannot say, as upstream checks them at load; paths are below the section. */
  rules?(section: z.output<Schema>): Problem[];
  /**
   * The section with every file path it names made absolute by `absolute` (relative to the config file's
   * directory, as upstream resolves them). Left out by a section that names no file.
   */
  withAbsolutePaths?(section: z.output<Schema>, absolute: (path: string) => string): z.output<Schema>;
  /** The section as its probes use it: patterns compiled, durations and sizes as numbers, defaults settled. */
  compile(section: z.output<Schema>, context: CompileContext): Compiled;
  readonly target: TargetGrammar<Target>;
}

/** Types a definition as written, so that its schema's and its compiled form's own types reach the registry. */
export function defineProber<const Name extends string, Schema extends z.ZodType, Compiled, Target>(
  definition: ProberDefinition<Name, Schema, Compiled, Target>,
): ProberDefinition<Name, Schema, Compiled, Target> {
  return definition;
}

export function accepted<Target>(target: Target): ParsedTarget<Target> {
  return { ok: true, target };
}

export function refused(problem: string): ParsedTarget<never> {
  return { ok: false, problem };
}
