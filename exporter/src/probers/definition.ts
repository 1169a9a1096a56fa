/**
 * What defines a prober apart from its probe function: its name, the section of a module it reads (a zod
 * schema with upstream's defaults) and the rules across that section's fields. This part loads no runtime
 * dependency of the exporter, so the contract can check modules with it.
 */
import type { z } from 'zod';
import type { Problem } from '../contract/problems';

export interface ProberDefinition<Name extends string = string, Schema extends z.ZodType = z.ZodType> {
  /** The value of a module's `prober` field, and the name of its section. */
  readonly name: Name;
  /** The section, with upstream's defaults; unknown fields are refused. */
  readonly schema: Schema;
  /** Rules across fields the schema cannot say, as upstream checks them at load; paths are below the section. */
  rules(section: z.output<Schema>): Problem[];
}

/** Types a definition as written, so that its schema's own type reaches the module schema. */
export function defineProber<const Name extends string, Schema extends z.ZodType>(definition: ProberDefinition<Name, Schema>): ProberDefinition<Name, Schema> {
  return definition;
}
