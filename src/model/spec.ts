/**
 * The spec: one description of what to monitor. The same object is written as TypeScript or as YAML; the
 * field names are a contract that other tools read. Every default lives in DEFAULTS below. The types here are
 * written by hand, for readable hovers and declarations without zod; ./schema.ts checks values at run time, and
 * test/model/spec-types.test.ts keeps each input type equal to its schema's input.
 */
import { EXPORTER_IMAGE, EXPORTER_PORT, type ModuleInput } from '@probekit/exporter';
import type { SecretRef } from './secret-ref';
import type { PresetModule } from './presets';
import type { ExporterSize } from './sizing';
import type { AgentChart, AgentChartInput, AgentChartName, AgentTargets } from './agent-chart';

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
      /**
       * What each probe worker adds to the memory defaults when the CPU limit gives the exporter's
       * --probe.workers=auto more than one CPU (N workers add N times these), on the image's Node: idle once
       * settled 74.8 MiB with probes in the serving thread, 108.8, 126.9 and 145.8 with 2, 3 and 4 workers (about
       * 18 MiB a worker; 117 to 118 with 2 in the bench's run of record against 78.7 with one thread, 20 a worker);
       * the peak in that run 145 to 175 MiB with one thread and 258 to 299 with 2 workers (up to 62 a worker), so
       * the limit keeps about the one-thread default's room above the highest peak (docs/sizing.md).
       */
      perWorkerMiB: { idle: 20, peak: 56 },
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
    chart: 'generic' as AgentChartName,
    chartKey: 'agent',
    exporterKey: 'blackbox-exporter',
    /** probekit's exporter is the one the jobs scrape: the chart's own would be a second one, scraped by nobody. */
    enableExporter: false,
    /** The label of the `prometheus.remote_write` component probekit writes for Alloy when the spec names none. */
    remoteWriteName: 'probekit',
    /** The targets travel in the agent's values, as long as they fit a Helm release (docs/scale.md). */
    targets: 'inline' as AgentTargets,
    /** One agent scrapes every target. */
    shards: 1,
  },
  searchEngine: {
    secretName: 'search-engine',
  },
  /**
   * Where a browser reaches the exporter in a cluster, for the debug links of the dashboard and the alerts: what
   * `kubectl port-forward svc/<serviceName> 9115` opens. The host form's follows `host.listenAddress` (./host.ts).
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
    alertmanagerConfig: true,
  },
  /** Alertmanager's own defaults, written out. */
  alertmanager: {
    receiver: 'default',
    severities: ['critical'],
    groupWait: '30s',
    groupInterval: '5m',
    repeatInterval: '4h',
    timezone: 'UTC',
  },
  /** The label each location's series carry. */
  locationLabel: 'location',
  host: {
    /** Loopback only: the agent on the same machine scrapes it there, and nothing else reaches it. */
    listenAddress: `127.0.0.1:${EXPORTER_PORT}`,
  },
} as const;

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

/** A Kubernetes quantity: `100m`, `0.5`, `128Mi`, or a number. */
export type Quantity = string | number;

/** CPU and memory, each a Kubernetes quantity. */
export interface ResourceAmounts {
  readonly cpu?: Quantity;
  readonly memory?: Quantity;
}

/** The spec as a user writes it (TypeScript object or YAML file). */
export interface SpecInput {
  /** Namespace of every object (a DNS-1123 label). @default monitoring */
  readonly namespace?: string;
  /** The exporter's Deployment, Service and access settings. @default - one replica of the default image */
  readonly exporter?: ExporterInput;
  /**
   * Modules by name: a preset (`{ preset: http_2xx }`) or blackbox_exporter's module fields, whose secret
   * fields may be secret references. @default - none
   */
  readonly modules?: Readonly<Record<string, ModuleEntry>>;
  /** The scrape jobs: each probes its targets with one module. */
  readonly jobs: readonly JobInput[];
  /** The agent's chart and its settings. @default - the generic chart: the jobs under agent, its exporter section disabled */
  readonly agent?: AgentInput;
  /** The search engine the assistant reads probe logs from; a Secret with its URL and token is made. @default - none */
  readonly searchEngine?: SearchEngineInput;
  /** The endpoints dashboard. @default - made, titled Endpoints */
  readonly dashboard?: DashboardInput;
  /** The alert rules and their thresholds. @default - made, with DEFAULTS.alerts.thresholds */
  readonly alerts?: AlertsInput;
  /** Prometheus Operator objects (Probes, ServiceMonitor, PrometheusRule). @default - none */
  readonly operator?: OperatorInput;
  /** The single-machine form's settings (`probekit host render`, install.sh); the cluster form ignores them. @default - listen on 127.0.0.1:9115 */
  readonly host?: HostInput;
  /**
   * This deployment's location (a cluster, a region): the `location` label of every series its agent scrapes, one of
   * `locations`. @default - none: the series carry no location label
   */
  readonly location?: string;
  /**
   * Every location that probes these jobs, whose agents all send to the Prometheus (or ruler) that evaluates the rules:
   * with two or more, EndpointDown pages when `alerts.failingLocations` of them see a target fail. @default - `location` alone, or none
   */
  readonly locations?: readonly string[];
  /** Planned windows in which Alertmanager delivers nothing for some jobs (or targets); the rules keep firing. @default - none */
  readonly maintenance?: readonly MaintenanceWindowInput[];
}

/** A planned window: weekly, or once. */
export interface MaintenanceWindowInput {
  /** The window's name: the Alertmanager time interval's (letters, digits, - and _). */
  readonly name: string;
  /** The jobs (their names) whose alerts it mutes. */
  readonly jobs: readonly string[];
  /** Only these targets of those jobs. @default - every target of the jobs */
  readonly targets?: readonly string[];
  /** Every week on these days, from `from` to `to` (a `to` before `from` ends the next day). */
  readonly weekly?: WeeklyWindowInput;
  /** Once, between two RFC 3339 times (on a minute). */
  readonly once?: { readonly from: string; readonly to: string };
}

/** A weekly window, in a time zone's wall-clock time. */
export interface WeeklyWindowInput {
  /** Day names in English, lower case: monday ... sunday. */
  readonly days: readonly WeekDay[];
  /** HH:MM, 00:00 to 23:59. */
  readonly from: string;
  /** HH:MM, 00:01 to 24:00; before `from`, the window ends on the next day. */
  readonly to: string;
  /** An IANA time zone such as Europe/Zurich. @default UTC */
  readonly timezone?: string;
}

export const WEEK_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

/** A maintenance window, checked: its jobs exist, its targets are theirs. */
export interface MaintenanceWindow {
  readonly name: string;
  readonly jobs: readonly string[];
  readonly targets?: readonly string[];
  readonly weekly?: { readonly days: readonly WeekDay[]; readonly from: string; readonly to: string; readonly timezone: string };
  readonly once?: { readonly from: string; readonly to: string };
}

/** Where Alertmanager delivers probekit's alerts: a receiver by name, with the severities it takes. */
export interface ReceiverInput {
  /** The receiver's name in the Alertmanager configuration (letters, digits, - and _). */
  readonly name: string;
  /** The alerts' severities it is sent. @default [critical] (the receiver named default: whatever no other takes) */
  readonly severities?: readonly string[];
  /** An http(s) endpoint Alertmanager posts the alerts to. @default - none: add the receiver's integrations to the file yourself */
  readonly webhookUrl?: string;
}

/** A receiver, filled in. */
export interface Receiver {
  readonly name: string;
  readonly severities: readonly string[];
  readonly webhookUrl?: string;
}

/** The single-machine form, as the spec writes it. */
export interface HostInput {
  /**
   * Where the exporter listens (its unit's `--web.listen-address`): `host:port` or `:port` (every interface), the
   * host an IP address (`[::1]` for IPv6) or a name. The agent's jobs on the machine scrape it there (a wildcard
   * host through loopback). @default 127.0.0.1:9115
   */
  readonly listenAddress?: string;
}

/** A module entry of the spec: a preset with its parameters, or a module in blackbox_exporter's format. */
export type ModuleEntry = SpecModule | PresetModule;

/** The exporter as the spec describes it (and the BlackboxExporter construct takes it); every field is optional. */
export interface ExporterInput {
  /** The exporter image. @default the image built from exporter/, tagged with this package's version */
  readonly image?: string;
  /** The fixed number of replicas; with `autoscaling`, the autoscaler's minimum unless it names its own. @default 1 */
  readonly replicas?: number;
  /**
   * Requests and limits, as Kubernetes quantities; each amount left out keeps its default. A CPU limit above one
   * CPU gives the exporter a probe worker per CPU (rounded up), and the memory defaults grow by 20Mi (request) and
   * 56Mi (limit) a worker: a limit of 2 CPUs makes them 168Mi and 368Mi.
   * @default requests 50m CPU and 128Mi, limits 500m and 256Mi
   */
  readonly resources?: { readonly requests?: ResourceAmounts; readonly limits?: ResourceAmounts };
  /**
   * A HorizontalPodAutoscaler (autoscaling/v2) that keeps the replicas' average CPU use at `cpuUtilization`
   * percent of the CPU request, between `minReplicas` (default `replicas`) and `maxReplicas`.
   * @default - no autoscaler: `replicas` replicas
   */
  readonly autoscaling?: AutoscalingInput;
  /**
   * Size the exporter from the spec's listed targets (docs/sizing.md#sized-from-the-targets): the probes a second
   * their intervals ask for times the CPU a probe takes give the autoscaler's minimum and maximum and each replica's
   * CPU request and limit; set alone, without replicas, autoscaling or a CPU amount. @default false
   */
  readonly sizeFromTargets?: boolean;
  /** Name of the Service (and of the Deployment, a DNS-1035 label), the host part of the exporter's address. @default blackbox-exporter */
  readonly serviceName?: string;
  /**
   * Where a browser reaches the exporter (`kubectl port-forward svc/<serviceName> 9115`, an ingress): the base of the
   * dashboard's and the alerts' debug links. @default http://localhost:9115 in a cluster; on a single machine, where
   * `host.listenAddress` says it listens (http://127.0.0.1:9115 unless set)
   */
  readonly externalUrl?: string;
  /**
   * A NetworkPolicy admitting only the agent's pods to 9115, and with `egress`, limiting what the exporter reaches.
   * @default - none: every pod that can reach the Service can make the exporter probe anything
   */
  readonly networkPolicy?: NetworkPolicySettings;
  /** A PodDisruptionBudget (at most one replica down) when replicas > 1. @default true */
  readonly podDisruptionBudget?: boolean;
  /**
   * What every module's probes may reach (the config file's top-level allowed_targets); its networks are
   * also the NetworkPolicy's egress when that lists none of its own.
   * @default - every target the jobs name
   */
  readonly allowedTargets?: AllowedTargetsInput;
  /** Serve https with the certificate of a `kubernetes.io/tls` Secret (e.g. cert-manager's). @default - plain http */
  readonly tls?: ExporterTls;
  /**
   * Ask every caller for a password (the web config's basic_auth_users): the web config then sits in a Secret
   * of its own (`<serviceName>-web-config`) as it holds the password's hash. @default - no password
   */
  readonly basicAuth?: ExporterBasicAuth;
}

/** A HorizontalPodAutoscaler on the exporter's CPU use, as the spec writes it. */
export interface AutoscalingInput {
  /** @default exporter.replicas, else 1 */
  readonly minReplicas?: number;
  readonly maxReplicas: number;
  /** Average CPU use, in percent of the CPU request, above which replicas are added. @default 80 */
  readonly cpuUtilization?: number;
}

/** The exporter-wide allow-list as the spec writes it. */
export interface AllowedTargetsInput {
  /** Host patterns the target's host must match: `example.org`, `*.example.org`, an IP address, `*`. @default - any host */
  readonly hosts?: readonly string[];
  /** CIDR ranges (or single addresses) every address probed must lie in. @default - any address */
  readonly networks?: readonly string[];
  /** Refuse the exporter's own listener and link-local / cloud metadata addresses. @default false */
  readonly denySelfAndMetadata?: boolean;
}

/** One scrape job: a module and the endpoints it probes. */
export interface JobInput {
  /** The Prometheus job name, unique in the spec. @default blackbox-exporter */
  readonly name?: string;
  /** The name of the module (under modules) that probes the targets. */
  readonly module: string;
  /**
   * The endpoints to probe, written out in full as the module's prober takes them (`https://example.com`,
   * `example.com:443`); a target written as an object carries labels, module fields or an interval of its own.
   * @default - none: the job finds its targets with `discover`
   */
  readonly targets?: ReadonlyArray<string | TargetInput>;
  /** A Prometheus duration. @default 30s */
  readonly scrapeInterval?: string;
  /** A Prometheus duration, at most the interval. @default 30s, or the interval when that is shorter */
  readonly scrapeTimeout?: string;
  /** Labels on every target's series (Prometheus label names; `module` is probekit's own). @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** This job's alert thresholds; each left out comes from the spec's alerts.thresholds. @default - the spec's */
  readonly alerts?: AlertThresholdsInput;
  /** The availability objective in percent over 30 days (such as 99.9); with one, the job gets error-budget alerts. @default - none */
  readonly slo?: number;
  /**
   * Targets found in the cluster, beside (or instead of) `targets`: Ingresses or Services that match a label
   * selector, each overridable by its annotations (docs/targets.md#targets-found-in-the-cluster). @default - none
   */
  readonly discover?: DiscoverInput;
}

/** What a job finds in the cluster; either or both. */
export interface DiscoverInput {
  /** Ingresses: each rule's host, with the path and the scheme its TLS section gives. */
  readonly ingresses?: { readonly selector: LabelSelector; readonly namespaces?: readonly string[] };
  /** Services: each port (or the one named), at its cluster DNS name. */
  readonly services?: { readonly selector: LabelSelector; readonly namespaces?: readonly string[]; readonly port?: string | number };
}

/** A Kubernetes label selector: every label of matchLabels, and every expression. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: ReadonlyArray<{ readonly key: string; readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; readonly values?: readonly string[] }>;
}

/**
 * A target with settings of its own: labels on its series and alerts, module fields merged onto its job's module
 * for it alone (compiled into the fewest modules, see docs/targets.md), or a slower interval.
 */
export interface TargetInput {
  /** The endpoint, as a plain target is written. */
  readonly target: string;
  /** Labels on this target's series (and alerts) beside the job's; a label of the job's name takes this value. @default - the job's */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * The name of a module of the job's prober, or module fields merged onto the job's module for this target alone
   * (mappings field by field, such as one more header; lists and values replace). @default - the job's module
   */
  readonly module?: string | TargetModuleFields;
  /** A Prometheus duration, at least the job's scrapeTimeout; the target is scraped by a scrape job of its own. @default - the job's */
  readonly scrapeInterval?: string;
}

/** Module fields a target sets for itself: any field of a module but its prober, which is the job's. */
export type TargetModuleFields = Omit<SpecModule, 'prober'>;

/** When an endpoint's alerts fire, as the spec writes it; each field left out keeps its default. */
export interface AlertThresholdsInput {
  /** How long a target fails before EndpointDown fires (a Prometheus duration). @default 5m */
  readonly downFor?: string;
  /** A probe taking longer than this is slow. @default 1s */
  readonly slowerThan?: string;
  /** How long every probe must be slow before EndpointSlow fires. @default 10m */
  readonly slowFor?: string;
  /** Fewer days than this until the certificate expires: a warning. @default 21 */
  readonly certificateWarningDays?: number;
  /** Fewer days than this: critical. @default 7 */
  readonly certificateCriticalDays?: number;
}

/** The chart that runs the agent, in whose layout its values are written, and where the scrape jobs go. */
export interface AgentInput extends AgentChartInput {
  /** Whether the values carry the scrape jobs; false when Probe objects (operator) replace them. @default true (false with k8s-monitoring) */
  readonly scrapeJobs?: boolean;
  /**
   * The agent's ServiceAccount, to which the RBAC its discovery jobs need is bound (`jobs[].discover`).
   * @default - the roles are made without a binding: bind them to the agent's account, or its chart's roles grant as much
   */
  readonly serviceAccount?: { readonly name: string; readonly namespace?: string };
}

/** The search engine the assistant reads probe logs from. */
export interface SearchEngineInput {
  /** The engine's http or https URL. */
  readonly url: string;
  /** The API token, as a secret reference. */
  readonly apiToken: SecretRef;
  /** Name of the Secret holding URL and token. @default search-engine */
  readonly secretName?: string;
}

/** The endpoints dashboard, as the spec writes it. */
export interface DashboardInput {
  /** @default true */
  readonly enabled?: boolean;
  /** @default Endpoints */
  readonly title?: string;
  /** Grafana's uid: 1 to 40 letters, digits, - or _. @default probekit-endpoints */
  readonly uid?: string;
  /** Labels of the dashboard's ConfigMap, by which Grafana's sidecar finds it. @default { grafana_dashboard: '1' } */
  readonly labels?: Readonly<Record<string, string>>;
}

/** The alert rules, as the spec writes them. */
export interface AlertsInput {
  /** @default true */
  readonly enabled?: boolean;
  /** The thresholds of jobs that set none of their own. @default DEFAULTS.alerts.thresholds */
  readonly thresholds?: AlertThresholdsInput;
  /** With two or more `locations`: how many must see a target fail for EndpointDown to page. @default a majority of locations */
  readonly failingLocations?: number;
  /** How often the Prometheus (or ruler) evaluates the rule groups. @default - its global evaluation_interval */
  readonly evaluationInterval?: string;
  /** Alertmanager's receivers for probekit's alerts (`<chart>.alertmanager.yaml`, the AlertmanagerConfig). @default - one named default, without integrations */
  readonly receivers?: readonly ReceiverInput[];
  /** Alertmanager's group_wait: how long a new group of alerts waits for more before its first notification. @default 30s */
  readonly groupWait?: string;
  /** Alertmanager's group_interval: how long before a group's next notification about new alerts in it. @default 5m */
  readonly groupInterval?: string;
  /** Alertmanager's repeat_interval: how long before a notification still firing is sent again. @default 4h */
  readonly repeatInterval?: string;
}

/** The alerts' delivery, filled in. */
export interface AlertRouting {
  readonly receivers: readonly Receiver[];
  readonly groupWait: string;
  readonly groupInterval: string;
  readonly repeatInterval: string;
}

/** Prometheus Operator objects, as the spec writes them. */
export interface OperatorInput {
  /** One Probe per job, and a ServiceMonitor for the exporter's own metrics. @default true */
  readonly probes?: boolean;
  /** The alert rules as a PrometheusRule. @default true */
  readonly rules?: boolean;
  /** Labels on every Operator object, for the Prometheus resource's selectors. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * An AlertmanagerConfig (monitoring.coreos.com/v1alpha1) with the routes, receivers and maintenance windows, when
   * the spec names receivers or windows. @default true
   */
  readonly alertmanagerConfig?: boolean;
}

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

/** A target as the renderers read it: its module (the job's, or one compiled for it), its own labels and its interval. */
export interface Target {
  readonly target: string;
  /** The module that probes it: the job's, the one it names, or the one compiled from its own fields. */
  readonly module: string;
  /** Its own labels, which the renderers put beside (and over) the job's. */
  readonly labels: Readonly<Record<string, string>>;
  readonly scrapeInterval: string;
}

/** What a scrape job needs of a job: its alerting settings aside. */
export interface ScrapeJob {
  readonly name: string;
  /** The job's own module, which targets without one of their own use. */
  readonly module: string;
  readonly targets: readonly Target[];
  readonly scrapeInterval: string;
  readonly scrapeTimeout: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Targets found in the cluster; present when the job asks for them. */
  readonly discover?: DiscoverInput;
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
    /** With `sizeFromTargets`: the load the sizing was made from. */
    readonly sizedFromTargets?: ExporterSize;
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
  /** The agent's chart and its settings, and whether its values carry the scrape jobs. */
  readonly agent: AgentChart & {
    readonly scrapeJobs: boolean;
    readonly serviceAccount?: { readonly name: string; readonly namespace: string };
    /** Where the agent finds the targets: in its values, or from the exporter's `/sd/<job>`. */
    readonly targets: AgentTargets;
    /** How many agents share the scraping, each a disjoint part of the targets. */
    readonly shards: number;
  };
  readonly searchEngine?: { readonly url: string; readonly apiToken: SecretRef; readonly secretName: string };
  readonly dashboard: DashboardSettings;
  /**
   * Whether alert rules are made, the thresholds of jobs that set none of their own, how many locations must see a
   * target fail (with two or more locations), the rule groups' interval, and Alertmanager's routing.
   */
  readonly alerts: {
    readonly enabled: boolean;
    readonly thresholds: AlertThresholds;
    readonly failingLocations?: number;
    readonly evaluationInterval?: string;
    readonly routing: AlertRouting;
  };
  /** This deployment's location: the `location` label its jobs put on every series (in each job's labels). */
  readonly location?: string;
  /** Every location that probes these jobs; two or more make the rules count locations. */
  readonly locations: readonly string[];
  readonly maintenance: readonly MaintenanceWindow[];
  /** Present when the spec asks for Prometheus Operator objects. */
  readonly operator?: OperatorSettings;
  /** The single-machine form: where its exporter listens, and the base of its files' debug links (./host.ts). */
  readonly host: { readonly listenAddress: string; readonly externalUrl: string };
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
  /** Whether an AlertmanagerConfig is made (when the spec names receivers or maintenance windows). */
  readonly alertmanagerConfig: boolean;
}
