/**
 * The exporter's config file, in blackbox_exporter's format: a `modules:` map of module name to module.
 *
 * A module is its prober's name, an optional timeout, and sections named after probers; each prober's
 * folder defines its own section with upstream's defaults. The exporter parses its file with this schema
 * (defaults applied, unknown fields refused), and probekit's spec validates its `modules` with it, so a
 * spec that synthesizes is a config the exporter accepts.
 */
import { z } from 'zod';
import { GO_DURATION_HINT, parseGoDuration } from './duration';
import { PROBER_DEFINITIONS, PROBER_NAMES, type ProberName } from '../probers/registry';
import { allowedTargetsSchema } from './allowed-targets';

/** A module's timeout, as upstream's decoder reads it into a Go time.Duration. */
const goDuration = z.string().refine((text) => parseGoDuration(text) !== undefined, {
  message: `must be ${GO_DURATION_HINT}`,
});

type Sections = { [N in ProberName]: z.ZodOptional<(typeof PROBER_DEFINITIONS)[N]['schema']> };

const sections = Object.fromEntries(PROBER_NAMES.map((name) => [name, PROBER_DEFINITIONS[name].schema.optional()])) as Sections;

export const moduleSchema = z.strictObject({
  prober: z.enum(PROBER_NAMES),
  /** Unset: the probe gets the scrape's own timeout (less the offset), as upstream does. */
  timeout: goDuration.optional(),
  ...sections,
  /** Which hosts and addresses this module's probes may reach (ours; ./allowed-targets.ts). */
  allowed_targets: allowedTargetsSchema.optional(),
});

export const configSchema = z.strictObject({
  /** Which hosts and addresses every module's probes may reach (ours; ./allowed-targets.ts). */
  allowed_targets: allowedTargetsSchema.optional(),
  modules: z.record(z.string(), moduleSchema),
});

/** The file as a whole: one without `modules:`, or with `modules:` left empty, has no modules, as upstream reads it. */
export const topLevelSchema = configSchema.extend({ modules: z.record(z.string(), z.unknown()).default({}) });

/** A module with every default applied. */
export type Module = z.output<typeof moduleSchema>;
