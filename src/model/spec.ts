/**
 * The spec: one description of what to monitor. The same object is written as TypeScript or as YAML; the
 * field names are a contract that other tools read. Every default lives in DEFAULTS below.
 */
import { z } from 'zod';
import { EXPORTER_IMAGE, type ModuleInput } from '@probekit/exporter';
import { secretRefSchema, type SecretRef } from './secret-ref';
import type { PresetName } from './presets';

export const DEFAULTS = {
  namespace: 'monitoring',
  exporter: {
    image: EXPORTER_IMAGE,
    replicas: 1,
    serviceName: 'blackbox-exporter',
    resources: {
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '256Mi' },
    },
  },
  job: {
    name: 'blackbox-exporter',
    scrapeInterval: '30s',
    /** At most this; a job whose interval is shorter gets its interval as timeout (Prometheus refuses a longer one). */
    scrapeTimeout: '30s',
  },
  agent: {
    chartKey: 'agent',
    exporterKey: 'blackbox-exporter',
    enableExporter: true,
  },
  searchEngine: {
    secretName: 'search-engine',
  },
} as const;

const quantity = z.union([z.string().regex(/^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/, 'must be a Kubernetes quantity such as 100m or 128Mi'), z.number()]);
const resourceAmounts = z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() });

const exporterSchema = z.strictObject({
  image: z.string().min(1).optional(),
  replicas: z.number().int().min(1).optional(),
  resources: z.strictObject({ requests: resourceAmounts.optional(), limits: resourceAmounts.optional() }).optional(),
  serviceName: z
    .string()
    .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS-1035 label: lower case letters, digits and -, starting with a letter')
    .optional(),
});

/** Each preset with its parameters; a module that names a preset is checked against its schema alone. */
export const presetSchemas = {
  http_2xx: z.strictObject({ preset: z.literal('http_2xx') }),
  http_2xx_with_header: z.strictObject({
    preset: z.literal('http_2xx_with_header'),
    accessToken: secretRefSchema,
    acceptLanguage: z.string().optional(),
  }),
  http_post_2xx: z.strictObject({ preset: z.literal('http_post_2xx'), body: z.string() }),
} satisfies Record<PresetName, z.ZodObject>;

const presetSchema = z.discriminatedUnion('preset', [presetSchemas.http_2xx, presetSchemas.http_2xx_with_header, presetSchemas.http_post_2xx]);
export type PresetModule = z.infer<typeof presetSchema>;

/**
 * A module as the spec holds it: blackbox_exporter's module format, except that a header value may be a
 * secret reference. Checked against the exporter's own schema in validate.ts.
 */
export type SpecModule = Omit<ModuleInput, 'http'> & {
  http?: Omit<NonNullable<ModuleInput['http']>, 'headers'> & { headers?: Record<string, string | SecretRef> };
};

/**
 * A module entry as the spec's type sees it. validate.ts checks each entry on its own: a preset against its
 * parameters, anything else against the exporter's module schema, with secret headers set aside.
 */
const moduleEntrySchema = z.union([presetSchema, z.record(z.string(), z.unknown())]);

/** The names modules may have: any text but the empty one (a job names its module by it). */
export const moduleNameSchema = z.string().min(1);

const labelName = z
  .string()
  .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name: letters, digits and _, not starting with a digit')
  .refine((name) => !name.startsWith('__'), {
    message: 'must not start with __, which Prometheus reserves for itself',
  });

export const jobSchema = z.strictObject({
  name: z.string().min(1).optional(),
  module: z.string().min(1),
  targets: z.array(z.string()),
  scrapeInterval: z.string().optional(),
  scrapeTimeout: z.string().optional(),
  labels: z.record(labelName, z.string()).optional(),
});

const agentSchema = z.strictObject({
  chartKey: z.string().min(1).optional(),
  exporterKey: z.string().min(1).optional(),
  enableExporter: z.boolean().optional(),
});

const searchEngineSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  apiToken: secretRefSchema,
  secretName: z.string().min(1).optional(),
});

export const specSchema = z.strictObject({
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS-1123 label: lower case letters, digits and -')
    .optional(),
  exporter: exporterSchema.optional(),
  modules: z.record(moduleNameSchema, moduleEntrySchema).optional(),
  jobs: z.array(jobSchema),
  agent: agentSchema.optional(),
  searchEngine: searchEngineSchema.optional(),
});

type RawSpecInput = z.input<typeof specSchema>;

/** The spec as a user writes it (TypeScript object or YAML file). */
export interface SpecInput extends Omit<RawSpecInput, 'modules'> {
  readonly modules?: Record<string, SpecModule | PresetModule>;
}
export type JobInput = z.input<typeof jobSchema>;

export interface Resources {
  readonly requests: { readonly cpu?: string | number; readonly memory?: string | number };
  readonly limits: { readonly cpu?: string | number; readonly memory?: string | number };
}

export interface Job {
  readonly name: string;
  readonly module: string;
  readonly targets: readonly string[];
  readonly scrapeInterval: string;
  readonly scrapeTimeout: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A validated spec, every default filled in and every preset expanded. */
export interface Spec {
  readonly namespace: string;
  readonly exporter: {
    readonly image: string;
    readonly replicas: number;
    readonly serviceName: string;
    readonly resources: Resources;
  };
  readonly modules: Readonly<Record<string, SpecModule>>;
  readonly jobs: readonly Job[];
  readonly agent: { readonly chartKey: string; readonly exporterKey: string; readonly enableExporter: boolean };
  readonly searchEngine?: { readonly url: string; readonly apiToken: SecretRef; readonly secretName: string };
}
