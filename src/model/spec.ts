/**
 * The spec: one description of what to monitor. The same object is written as TypeScript or as YAML; the
 * field names are a contract that other tools read. Every default lives in DEFAULTS below.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { EXPORTER_IMAGE, EXPORTER_PORT, type ModuleInput } from '@probekit/exporter';
import { secretRefSchema, type SecretRef } from './secret-ref';
import type { PresetName } from './presets';

export const DEFAULTS = {
  namespace: 'monitoring',
  exporter: {
    image: EXPORTER_IMAGE,
    replicas: 1,
    serviceName: 'blackbox-exporter',
    /** Made only when replicas > 1. */
    podDisruptionBudget: true,
    /**
     * For the image's Node (24): the memory request is about 1.6 times the 77 to 82 MiB an idle exporter holds
     * once settled; the limit leaves 67 MiB above the 189 MiB it peaked at with 256 HTTPS/2 handshakes in flight
     * in `npm run bench` on that Node (docs/benchmarks.md), which also covers the first seconds (81 to 84 MiB)
     * and a reload.
     */
    resources: {
      requests: { cpu: '50m', memory: '128Mi' },
      limits: { cpu: '500m', memory: '256Mi' },
    },
    /** With `autoscaling`, the average CPU use, in percent of the CPU request, above which replicas are added. */
    autoscalingCpuUtilization: 80,
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
  /**
   * Where a browser reaches the exporter, for the debug links of the dashboard and the alerts: what
   * `kubectl port-forward svc/<serviceName> 9115` (cluster) or an SSH tunnel (single machine) opens.
   */
  exporterExternalUrl: `http://localhost:${EXPORTER_PORT}`,
  dashboard: {
    enabled: true,
    title: 'Endpoints',
    uid: 'probekit-endpoints',
    /** The label Grafana's dashboard sidecar looks for, as the Grafana chart's `sidecar.dashboards.label(Value)` default it. */
    labels: { grafana_dashboard: '1' },
  },
  alerts: {
    enabled: true,
    thresholds: {
      downFor: '5m',
      slowerThan: '1s',
      slowFor: '10m',
      /** Let's Encrypt renews 30 days ahead: 21 days left means renewal has failed for more than a week. */
      certificateWarningDays: 21,
      certificateCriticalDays: 7,
    },
  },
  operator: {
    probes: true,
    rules: true,
  },
} as const;

const quantity = z.union([z.string().regex(/^[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/, 'must be a Kubernetes quantity such as 100m or 128Mi'), z.number()]);
const resourceAmounts = z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() });

const exporterSchema = z.strictObject({
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
export type PresetModule = z.infer<typeof presetSchema>;

type ExporterHttp = NonNullable<ModuleInput['http']>;

/**
 * A module as the spec holds it: blackbox_exporter's module format, except that a header value, the bearer
 * token, the authorization's credentials and the basic-auth password may be secret references
 * (./secret-fields.ts). Checked against the exporter's own schema in validate.ts.
 */
export type SpecModule = Omit<ModuleInput, 'http'> & {
  http?: Omit<ExporterHttp, 'headers' | 'bearer_token' | 'authorization' | 'basic_auth'> & {
    headers?: Record<string, string | SecretRef>;
    bearer_token?: string | SecretRef;
    authorization?: Omit<NonNullable<ExporterHttp['authorization']>, 'credentials'> & { credentials?: string | SecretRef };
    basic_auth?: Omit<NonNullable<ExporterHttp['basic_auth']>, 'password'> & { password?: string | SecretRef };
  };
};

/**
 * A module entry as the spec's type sees it. validate.ts checks each entry on its own: a preset against its
 * parameters, anything else against the exporter's module schema, with secret headers set aside.
 */
const moduleEntrySchema = z.union([presetSchema, z.record(z.string(), z.unknown())]);

/** The names modules may have: any text but the empty one (a job names its module by it). */
export const moduleNameSchema = z.string().min(1);

/**
 * The label probekit puts on every target with its job's module (`static_configs[].labels.module`), so that the
 * dashboard can filter by module and link each target to the exporter's debug output for it.
 */
export const MODULE_LABEL = 'module';

/** A job's name as a Kubernetes object name (DNS-1123 subdomain): lower case, other characters as -. */
export function kubernetesObjectName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^-a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return (cleaned === '' ? 'job' : cleaned).slice(0, 253);
}

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

export const jobSchema = z.strictObject({
  name: z.string().min(1).optional(),
  module: z.string().min(1),
  targets: z.array(z.string()),
  scrapeInterval: z.string().optional(),
  scrapeTimeout: z.string().optional(),
  labels: z.record(labelName, z.string()).optional(),
  alerts: thresholdsSchema.optional(),
  slo: sloSchema.optional(),
});

const agentSchema = z.strictObject({
  chartKey: z.string().min(1).optional(),
  exporterKey: z.string().min(1).optional(),
  enableExporter: z.boolean().optional(),
  scrapeJobs: z.boolean().optional(),
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

const alertsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  thresholds: thresholdsSchema.optional(),
});

const operatorSchema = z.strictObject({
  probes: z.boolean().optional(),
  rules: z.boolean().optional(),
  labels: kubernetesLabels.optional(),
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
  dashboard: dashboardSchema.optional(),
  alerts: alertsSchema.optional(),
  operator: operatorSchema.optional(),
});

type RawSpecInput = z.input<typeof specSchema>;

/** The spec as a user writes it (TypeScript object or YAML file). */
export interface SpecInput extends Omit<RawSpecInput, 'modules'> {
  readonly modules?: Record<string, SpecModule | PresetModule>;
}
export type JobInput = z.input<typeof jobSchema>;

/** A HorizontalPodAutoscaler on the exporter's CPU use; every field filled in. */
export interface ExporterAutoscaling {
  readonly minReplicas: number;
  readonly maxReplicas: number;
  /** Average CPU use, in percent of the container's CPU request, that the autoscaler keeps the replicas at. */
  readonly cpuUtilization: number;
}

export interface Resources {
  readonly requests: { readonly cpu?: string | number; readonly memory?: string | number };
  readonly limits: { readonly cpu?: string | number; readonly memory?: string | number };
}

/** When an endpoint's alerts fire; every field filled in. */
export interface AlertThresholds {
  /** How long a target fails (or answers outside 2xx/3xx) before EndpointDown (EndpointHttpStatus) fires. */
  readonly downFor: string;
  /** A probe taking longer than this is slow. */
  readonly slowerThan: string;
  /** How long every probe must be slow before EndpointSlow fires. */
  readonly slowFor: string;
  /** Fewer days than this until the certificate expires: a warning. */
  readonly certificateWarningDays: number;
  /** Fewer days than this: critical. */
  readonly certificateCriticalDays: number;
}

/** What a scrape job needs of a job: its alerting settings aside. */
export interface ScrapeJob {
  readonly name: string;
  readonly module: string;
  readonly targets: readonly string[];
  readonly scrapeInterval: string;
  readonly scrapeTimeout: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface Job extends ScrapeJob {
  readonly alerts: AlertThresholds;
  /** The availability objective in percent over 30 days; with one, the job gets error-budget alerts. */
  readonly slo?: number;
}

/** A validated spec, every default filled in and every preset expanded. */
export interface Spec {
  readonly namespace: string;
  readonly exporter: {
    readonly image: string;
    readonly replicas: number;
    readonly serviceName: string;
    readonly resources: Resources;
    /** Present when the spec asks for an autoscaler; the Deployment then has no fixed replica count. */
    readonly autoscaling?: ExporterAutoscaling;
    /** Where a browser reaches the exporter: the base of every debug link. */
    readonly externalUrl: string;
    /** Present when the spec asks for a NetworkPolicy. */
    readonly networkPolicy?: NetworkPolicySettings;
    /** Whether a PodDisruptionBudget is made when replicas > 1. */
    readonly podDisruptionBudget: boolean;
    /** Present when the exporter serves https. */
    readonly tls?: ExporterTls;
    readonly basicAuth?: ExporterBasicAuth;
    /** Present when the spec limits what every module's probes may reach. */
    readonly allowedTargets?: AllowedTargets;
  };
  readonly modules: Readonly<Record<string, SpecModule>>;
  readonly jobs: readonly Job[];
  readonly agent: { readonly chartKey: string; readonly exporterKey: string; readonly enableExporter: boolean; readonly scrapeJobs: boolean };
  readonly searchEngine?: { readonly url: string; readonly apiToken: SecretRef; readonly secretName: string };
  readonly dashboard: DashboardSettings;
  /** Whether alert rules are made, and the thresholds of jobs that set none of their own. */
  readonly alerts: { readonly enabled: boolean; readonly thresholds: AlertThresholds };
  /** Present when the spec asks for Prometheus Operator objects. */
  readonly operator?: OperatorSettings;
}

/** The exporter serving https from a `kubernetes.io/tls` Secret, and the agent's client certificate when one is required. */
export interface ExporterTls {
  /** The Secret holding `tls.crt`, `tls.key` and `ca.crt` (a cert-manager Certificate's secretName). */
  readonly secretName: string;
  /** The agent's client certificate Secret (`tls.crt`, `tls.key`, signed by that CA); set, the exporter requires client certificates. */
  readonly agentSecretName?: string;
}

/**
 * The exporter asking for a password (the web config's `basic_auth_users`): the bcrypt hash is written into its
 * web config, the password itself stays in a `kubernetes.io/basic-auth` Secret (`username`, `password`) that the
 * agent mounts and the Operator's objects reference.
 */
export interface ExporterBasicAuth {
  readonly username: string;
  /** A bcrypt hash of the password, as `htpasswd -nbBC 10 "" PASSWORD` prints it after the colon. */
  readonly passwordHash: string;
  /** The Secret holding `password` (and `username`, which the Operator's objects read) for whoever scrapes the exporter. */
  readonly secretName: string;
}

/**
 * What every probe of the exporter may reach: its config file's top-level `allowed_targets` (a module
 * narrows it further with its own `allowed_targets`). Checked after name resolution and for every redirect.
 */
export interface AllowedTargets {
  /** Host patterns the target's host must match: `example.org`, `*.example.org`, an IP address, `*`. */
  readonly hosts?: readonly string[];
  /** CIDR ranges (or single addresses) every address probed must lie in; also the NetworkPolicy's egress unless it lists its own. */
  readonly networks?: readonly string[];
  /** Refuse the exporter's own listener and link-local / cloud metadata addresses (169.254.169.254). */
  readonly denySelfAndMetadata: boolean;
}

/** Who may reach the exporter (the agent's pods, on 9115) and, with egress, what it may reach. */
export interface NetworkPolicySettings {
  /** The agent's pods: their labels, and their namespace when it is not the exporter's. */
  readonly agentPods: { readonly namespace?: string; readonly labels: Readonly<Record<string, string>> };
  /** CIDR ranges the exporter may connect to (besides the cluster's DNS); absent: exporter.allowedTargets.networks when set, else egress is not limited. */
  readonly egress?: readonly string[];
}

export interface DashboardSettings {
  readonly enabled: boolean;
  readonly title: string;
  readonly uid: string;
  /** Labels of the dashboard's ConfigMap, by which Grafana's sidecar finds it. */
  readonly labels: Readonly<Record<string, string>>;
}

export interface OperatorSettings {
  /** One Probe per job, and a ServiceMonitor for the exporter's own metrics. */
  readonly probes: boolean;
  /** The alert rules as a PrometheusRule. */
  readonly rules: boolean;
  /** Labels on every Operator object, for the Prometheus resource's probeSelector, ruleSelector and serviceMonitorSelector. */
  readonly labels: Readonly<Record<string, string>>;
}
