/**
 * What defines a prober apart from its probe function: its name, the section of a module it reads (a zod
 * schema with upstream's defaults), the rules across that section's fields, and the compile step that turns
 * the section into the form its probes use. This part loads no runtime dependency of the exporter, so the
 * contract can check modules with it.
 */
import type { z } from 'zod';
import type { FieldPath, Problem } from '../contract/problems';
import type { Pattern } from '../config/regexp';

/** What a compile step may ask of the loader. Paths are below the section. */
export interface CompileContext {
  /** The pattern written at `path`, compiled; one that does not compile becomes a problem there. */
  pattern(path: FieldPath, source: string): Pattern;
  /** Refuses the value at `path`: the module does not load. */
  problem(path: FieldPath, message: string): void;
}

export interface ProberDefinition<Name extends string = string, Schema extends z.ZodType = z.ZodType, Compiled = unknown> {
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
}

/** Types a definition as written, so that its schema's and its compiled form's own types reach the registry. */
export function defineProber<const Name extends string, Schema extends z.ZodType, Compiled>(definition: ProberDefinition<Name, Schema, Compiled>): ProberDefinition<Name, Schema, Compiled> {
  return definition;
}
