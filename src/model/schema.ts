/**
 * The spec's schemas: the runtime truth of what a spec may hold, and the words of each field's problem. Internal:
 * the public types are written by hand in ./spec.ts (readable, and free of zod for the user's compiler), and
 * test/model/spec-types.test.ts fails to compile when a type and its schema's input drift apart.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseListenAddress } from '@probekit/exporter';
import type { SecretRef } from './secret-ref';
import { AGENT_CHARTS, AGENT_TARGETS } from './agent-chart';
import type { PresetName } from './presets';
import type { TargetModuleFields } from './spec';

/**
 * One object with both forms' fields rather than a union of the two, so that a misspelt field is named as such
 * (`fromEnvv: did you mean "fromEnv"?`) and a missing choice is said in words; the rules between the fields are
 * checked once the fields themselves are right.
 */
const secretRefFields = z.strictObject({
  fromEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name: letters, digits and _, not starting with a digit')
    .optional(),
  prefix: z.string().optional(),
  existingSecret: z.strictObject({ name: z.string().min(1), key: z.string().min(1) }).optional(),
  externalSecret: z
    .strictObject({
      name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes name: lower-case letters, digits and -, starting and ending with a letter or digit'),
      store: z.string().min(1),
      storeKind: z.enum(['SecretStore', 'ClusterSecretStore']).optional(),
      key: z.string().min(1),
      property: z.string().min(1).optional(),
    })
    .optional(),
});
const fieldsRight = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };

export const secretRefSchema = secretRefFields
  .refine((ref) => [ref.fromEnv, ref.existingSecret, ref.externalSecret].filter((form) => form !== undefined).length === 1, {
    ...fieldsRight,
    message:
      'give one of fromEnv: VAR (an environment variable read at synth), existingSecret: { name, key } (a Secret in the cluster) or externalSecret: { name, store, key } (a value the External Secrets Operator copies into a Secret)',
  })
  .refine((ref) => ref.fromEnv !== undefined || ref.prefix === undefined, {
    ...fieldsRight,
    path: ['prefix'],
    message: 'applies to fromEnv only; a Secret holds the whole value',
  }) as unknown as z.ZodType<SecretRef, SecretRef>;

export function isSecretRef(value: unknown): value is SecretRef {
  return secretRefSchema.safeParse(value).success;
}

const quantity = z.union([z.string().regex(/^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/, 'must be a Kubernetes quantity such as 100m or 128Mi'), z.number()]);
const resourceAmounts = z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() });

export const exporterSchema = z.strictObject({
  image: z.string().min(1).optional(),
  replicas: z.number().int().min(1).optional(),
  resources: z.strictObject({ requests: resourceAmounts.optional(), limits: resourceAmounts.optional() }).optional(),
  autoscaling: z
    .strictObject({
      minReplicas: z.number().int().min(1).optional(),
      maxReplicas: z.number().int().min(1),
      cpuUtilization: z.number().int().min(1).max(1000).optional(),
    })
    .optional(),
  sizeFromTargets: z.boolean().optional(),
  serviceName: z
    .string()
    .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS-1035 label: lower case letters, digits and -, starting with a letter')
    .optional(),
  externalUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL, for example http://localhost:9115' }).optional(),
  networkPolicy: z
    .strictObject({
      agentPods: z.strictObject({
        namespace: z.string().min(1).optional(),
        labels: z
          .record(z.string(), z.string())
          .refine((labels) => Object.keys(labels).length > 0, { message: "must name at least one label of the agent's pods, for example app.kubernetes.io/name: alloy" }),
      }),
      egress: z.array(z.string().refine(isCidr, { message: 'must be a CIDR range such as 10.0.0.0/8 or 2001:db8::/32' })).optional(),
    })
    .optional(),
  podDisruptionBudget: z.boolean().optional(),
  allowedTargets: z
    .strictObject({
      hosts: z.array(z.string()).optional(),
      networks: z.array(z.string()).optional(),
      denySelfAndMetadata: z.boolean().optional(),
    })
    .optional(),
  tls: z
    .strictObject({
      secretName: z.string().min(1),
      agentSecretName: z.string().min(1).optional(),
    })
    .optional(),
  basicAuth: z
    .strictObject({
      username: z.string().regex(/^[^:\s]+$/, 'must be a user name without colons or spaces, for example prometheus'),
      passwordHash: z
        .string()
        .regex(
          /^\$2[aby]?\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/,
          'must be a bcrypt hash (60 characters starting with $2y$, $2b$ or $2a$), for example the output of: htpasswd -nbBC 10 "" PASSWORD | tr -d \':\\n\'',
        ),
      secretName: z.string().min(1),
    })
    .optional(),
});

/** `10.0.0.0/8`, `2001:db8::/32`: an IP address and a prefix length its family allows. */
function isCidr(text: string): boolean {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text);
  const family = match ? isIP(match[1]) : 0;
  return family !== 0 && Number(match![2]) <= (family === 4 ? 32 : 128);
}

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

/**
 * A module entry as the spec's type sees it. validate.ts checks each entry on its own: a preset against its
 * parameters, anything else against the exporter's module schema, with secret headers set aside.
 */
const moduleEntrySchema = z.union([presetSchema, z.record(z.string(), z.unknown())]);

/**
 * A module's name: the `module` label of every series its jobs make, the `module=` of every probe URL, a key of the
 * exporter's config file, and a word in alerts that Prometheus expands as Go templates. Hence a word that needs no
 * quoting or escaping in any of them: what blackbox_exporter's examples use (http_2xx, tcp_connect, dns.udp).
 */
export const MODULE_NAME_RULE = 'must be 1 to 128 letters, digits, _, - and ., starting with a letter, digit or _, for example http_2xx or api-health';
export const moduleNameSchema = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, MODULE_NAME_RULE);

/**
 * A job's name: Prometheus's `job` label, a rule group's name, an alert's label and words, and (made a Kubernetes
 * name) a Probe object's. Words people read, so letters of any script, digits, spaces and the punctuation of a title,
 * but nothing a template, a quoted string or a shell reads as its own: no braces, quotes, backslashes, $ or controls.
 */
export const jobNameSchema = z
  .string()
  .regex(
    /^[\p{L}\p{N}_][\p{L}\p{N}_ .,:/()+-]{0,127}$/u,
    'must be 1 to 128 letters, digits, spaces and _ . , : / ( ) + -, starting with a letter, digit or _, for example web or Web sites (EU); braces, quotes, \\ and $ are not allowed',
  );

const labelName = z
  .string()
  .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name: letters, digits and _, not starting with a digit')
  .refine((name) => !name.startsWith('__'), {
    message: 'must not start with __, which Prometheus reserves for itself',
  });

/** An alert's thresholds; each is optional, the spec's `alerts.thresholds` and then DEFAULTS fill the rest. */
export const thresholdsSchema = z.strictObject({
  downFor: z.string().optional(),
  slowerThan: z.string().optional(),
  slowFor: z.string().optional(),
  certificateWarningDays: z.number().positive().optional(),
  certificateCriticalDays: z.number().positive().optional(),
});

/** An availability objective in percent of successful probes over 30 days, such as 99.9. */
const sloSchema = z.number().refine((percent) => percent > 0 && percent < 100, {
  message: 'must be more than 0 and less than 100: the percent of probes that succeed, such as 99.9 (100 would leave no error budget to alert on)',
});

/**
 * A target written as an object. Its `module` is a module's name or module fields; the fields are checked by the
 * exporter's schema once merged onto the job's module (./targets.ts), hence a mapping here.
 */
export const targetObjectSchema = z.strictObject({
  target: z.string(),
  labels: z.record(labelName, z.string()).optional(),
  module: z
    .union([
      z.string().min(1),
      z.custom<TargetModuleFields>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), { message: "must be a module's name or a mapping of module fields" }),
    ])
    .optional(),
  scrapeInterval: z.string().optional(),
});

const labelSelectorSchema = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z.array(z.strictObject({ key: z.string().min(1), operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: z.array(z.string()).optional() })).optional(),
});
const namespacesSchema = z.array(z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a namespace: a DNS-1123 label such as shop')).min(1);

/** What a job finds in the cluster. */
export const discoverSchema = z.strictObject({
  ingresses: z.strictObject({ selector: labelSelectorSchema, namespaces: namespacesSchema.optional() }).optional(),
  services: z
    .strictObject({
      selector: labelSelectorSchema,
      namespaces: namespacesSchema.optional(),
      port: z.union([z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a Service port's name, such as http"), z.number().int().min(1).max(65535)]).optional(),
    })
    .optional(),
});

export const jobSchema = z.strictObject({
  name: jobNameSchema.optional(),
  module: z.string().min(1),
  targets: z.array(z.union([z.string(), targetObjectSchema])).optional(),
  scrapeInterval: z.string().optional(),
  scrapeTimeout: z.string().optional(),
  labels: z.record(labelName, z.string()).optional(),
  alerts: thresholdsSchema.optional(),
  slo: sloSchema.optional(),
  discover: discoverSchema.optional(),
});

/** A key of a Secret in the agent's namespace. */
const secretKeySchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Kubernetes name: lower-case letters, digits, - and .'),
  key: z.string().regex(/^[-._a-zA-Z0-9]+$/, "must be a Secret's key: letters, digits, -, _ and ."),
});

export const remoteWriteSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an Alloy identifier (the component's label): letters, digits and _, not starting with a digit")
    .optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL, for example https://mimir.example.com/api/v1/push' }).optional(),
  basicAuth: z.strictObject({ username: z.string().min(1), passwordSecret: secretKeySchema }).optional(),
  bearerTokenSecret: secretKeySchema.optional(),
});

export const agentSchema = z.strictObject({
  chart: z.enum(AGENT_CHARTS).optional(),
  chartKey: z.string().min(1).optional(),
  exporterKey: z.string().min(1).optional(),
  enableExporter: z.boolean().optional(),
  remoteWrite: remoteWriteSchema.optional(),
  scrapeJobs: z.boolean().optional(),
  targets: z.enum(AGENT_TARGETS).optional(),
  shards: z.number().optional(),
  serviceAccount: z
    .strictObject({
      name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a ServiceAccount's name: lower-case letters, digits, - and ."),
      namespace: z
        .string()
        .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a namespace: a DNS-1123 label such as monitoring')
        .optional(),
    })
    .optional(),
});

/** Kubernetes label values: at most 63 characters, alphanumerics and -_. inside. */
const kubernetesLabels = z.record(
  z
    .string()
    .regex(
      /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/,
      'must be a Kubernetes label name such as grafana_dashboard or app.kubernetes.io/part-of',
    ),
  z.string().regex(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/, 'must be a Kubernetes label value: at most 63 letters, digits, -, _ or ., starting and ending with a letter or digit'),
);

const dashboardSchema = z.strictObject({
  enabled: z.boolean().optional(),
  title: z.string().min(1).optional(),
  uid: z
    .string()
    .regex(/^[-_a-zA-Z0-9]{1,40}$/, "must be Grafana's uid: 1 to 40 letters, digits, - or _")
    .optional(),
  labels: kubernetesLabels.optional(),
});

/** A location's name: the `location` label's value, a word in alerts, and a literal in PromQL and Alertmanager regexps. */
export const LOCATION_NAME_RULE = 'must be 1 to 63 lower-case letters, digits, -, _ and ., starting and ending with a letter or digit, for example eu-west-1';
export const locationNameSchema = z.string().regex(/^[a-z0-9]([-a-z0-9_.]{0,61}[a-z0-9])?$/, LOCATION_NAME_RULE);

/** A name in Alertmanager's configuration (a receiver, a time interval). */
const alertmanagerName = z.string().regex(/^[A-Za-z0-9_][-A-Za-z0-9_]{0,62}$/, 'must be 1 to 63 letters, digits, - and _, starting with a letter, digit or _, for example oncall');

export const receiverSchema = z.strictObject({
  name: alertmanagerName,
  severities: z
    .array(z.string().regex(/^[a-z]+$/, 'must be a severity in lower-case letters: critical, warning or info'))
    .min(1)
    .optional(),
  webhookUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL, for example https://hooks.example.com/alerts' }).optional(),
});

const alertsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  thresholds: thresholdsSchema.optional(),
  failingLocations: z.number().int('must be a whole number of locations, such as 2').min(1, 'must be at least 1 location').optional(),
  evaluationInterval: z.string().optional(),
  receivers: z.array(receiverSchema).min(1, 'is empty; name at least one receiver, or leave receivers out').optional(),
  groupWait: z.string().optional(),
  groupInterval: z.string().optional(),
  repeatInterval: z.string().optional(),
});

const clockTime = (latest: '23:59' | '24:00') =>
  z.string().regex(latest === '24:00' ? /^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$/ : /^([01][0-9]|2[0-3]):[0-5][0-9]$/, `must be a time of day as HH:MM, 00:00 to ${latest}, such as 02:30`);

export const weeklyWindowSchema = z.strictObject({
  days: z.array(z.enum(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'])).min(1, 'is empty; name at least one day, such as sunday'),
  from: clockTime('23:59'),
  to: clockTime('24:00'),
  timezone: z.string().min(1).optional(),
});

const rfc3339 = z.iso.datetime({ offset: true, error: 'must be an RFC 3339 time with its offset, such as 2026-03-01T22:00:00+01:00 or 2026-03-01T21:00:00Z' });

export const maintenanceWindowSchema = z.strictObject({
  name: alertmanagerName,
  jobs: z.array(z.string()).min(1, 'is empty; name the jobs whose alerts the window mutes'),
  targets: z.array(z.string()).min(1, 'is empty; list targets of those jobs, or leave targets out to mute every target').optional(),
  weekly: weeklyWindowSchema.optional(),
  once: z.strictObject({ from: rfc3339, to: rfc3339 }).optional(),
});

const operatorSchema = z.strictObject({
  probes: z.boolean().optional(),
  rules: z.boolean().optional(),
  labels: kubernetesLabels.optional(),
  alertmanagerConfig: z.boolean().optional(),
});

const searchEngineSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  apiToken: secretRefSchema,
  secretName: z.string().min(1).optional(),
});

export const hostSchema = z.strictObject({
  listenAddress: z
    .string()
    .refine((address) => (parseListenAddress(address)?.port ?? 0) > 0, {
      message: 'must be host:port or :port with a port from 1 to 65535, for example 127.0.0.1:9115 (this machine only) or 0.0.0.0:9115 (every interface)',
    })
    .optional(),
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
  dashboard: dashboardSchema.optional(),
  alerts: alertsSchema.optional(),
  operator: operatorSchema.optional(),
  host: hostSchema.optional(),
  location: locationNameSchema.optional(),
  locations: z.array(locationNameSchema).min(1, 'is empty; list every location that probes these jobs, or leave locations out').optional(),
  maintenance: z.array(maintenanceWindowSchema).optional(),
});
