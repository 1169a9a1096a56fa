/**
 * Targets found in the cluster (a job's `discover`): for agents, a scrape job with kubernetes_sd_configs and the
 * relabelling that turns each Ingress or Service into a target URL; for the Operator, a Probe with
 * `targets.ingress`; and the RBAC an agent needs to list what it discovers. Each object may override its target
 * with annotations (probekit.io/module, probekit.io/path, probekit.io/scheme) or opt out (probekit.io/probe: "false").
 */
import { PROBE_PATH } from '@probekit/exporter';
import { kubernetesObjectName, MODULE_LABEL, type DiscoverInput, type LabelSelector, type ScrapeJob, type SpecModule } from '../model';
import { probekitLabels } from './labels';
import { relabelRules, type ProbeScrapeConfig, type RelabelRule } from './scrape-job';

/** The annotations an Ingress or a Service may carry to change how it is probed. */
export const DISCOVERY_ANNOTATIONS = {
  module: 'probekit.io/module',
  path: 'probekit.io/path',
  scheme: 'probekit.io/scheme',
  probe: 'probekit.io/probe',
} as const;

export type DiscoveredKind = keyof DiscoverInput;

/** Per kind: kubernetes_sd's role, its meta label prefix, and the API group and resource RBAC names. */
const KINDS = {
  ingresses: { role: 'ingress', meta: '__meta_kubernetes_ingress', apiGroup: 'networking.k8s.io', resource: 'ingresses' },
  services: { role: 'service', meta: '__meta_kubernetes_service', apiGroup: '', resource: 'services' },
} as const satisfies Record<DiscoveredKind, object>;

const DISCOVERED_NAMESPACE_LABEL = 'namespace';

/** The labels discovery gives each target it finds, beside the job's: its namespace, and its object's name by kind. */
export function discoveredTargetLabels(job: Pick<ScrapeJob, 'discover'>): string[] {
  const kinds = Object.keys(job.discover ?? {}) as DiscoveredKind[];
  return kinds.length === 0 ? [] : [DISCOVERED_NAMESPACE_LABEL, ...kinds.map((kind) => KINDS[kind].role)];
}

/** An annotation as kubernetes_sd's meta label holds it: every character that is not a letter, digit or _ as _. */
function annotationLabel(kind: DiscoveredKind, annotation: string): string {
  return `${KINDS[kind].meta}_annotation_${annotation.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** A label selector in the text form kubernetes_sd's `selectors` take: `app=web,tier in (a,b),!legacy`. */
export function labelSelectorText(selector: LabelSelector): string {
  const labels = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  const expressions = (selector.matchExpressions ?? []).map(({ key, operator, values }) => {
    if (operator === 'Exists') return key;
    if (operator === 'DoesNotExist') return `!${key}`;
    return `${key} ${operator === 'In' ? 'in' : 'notin'} (${(values ?? []).join(',')})`;
  });
  return [...labels, ...expressions].join(',');
}

const TMP_SCHEME = '__tmp_probekit_scheme';
const TMP_PATH = '__tmp_probekit_path';

/**
 * The rules that make a discovered object's target, after the object's own meta labels: opted-out objects dropped,
 * the scheme and path from the annotations over the object's own (an Ingress's TLS section and rule path; a Service
 * has none, so http and /), the module from its annotation over the job's, and the job's labels. `prober` decides
 * whether the target is a URL (http) or the address itself (tcp, grpc).
 */
export function discoveryTargetRules(kind: DiscoveredKind, job: Pick<ScrapeJob, 'name' | 'labels'>, prober: SpecModule['prober']): RelabelRule[] {
  const annotation = (name: keyof typeof DISCOVERY_ANNOTATIONS): string => annotationLabel(kind, DISCOVERY_ANNOTATIONS[name]);
  const fromAnnotation = (name: keyof typeof DISCOVERY_ANNOTATIONS, target: string): RelabelRule => ({ source_labels: [annotation(name)], regex: '(.+)', target_label: target });
  const url: RelabelRule[] =
    prober !== 'http'
      ? [{ source_labels: ['__address__'], target_label: '__param_target' }]
      : [
          kind === 'ingresses' ? { source_labels: ['__meta_kubernetes_ingress_scheme'], target_label: TMP_SCHEME } : { target_label: TMP_SCHEME, replacement: 'http' },
          fromAnnotation('scheme', TMP_SCHEME),
          kind === 'ingresses' ? { source_labels: ['__meta_kubernetes_ingress_path'], target_label: TMP_PATH } : { target_label: TMP_PATH, replacement: '/' },
          fromAnnotation('path', TMP_PATH),
          { source_labels: [TMP_SCHEME, '__address__', TMP_PATH], regex: '(.+);(.+);(.+)', target_label: '__param_target', replacement: '${1}://${2}${3}' },
        ];
  return [
    { source_labels: [annotation('probe')], regex: 'false', action: 'drop' },
    ...url,
    fromAnnotation('module', '__param_module'),
    { source_labels: ['__param_module'], target_label: MODULE_LABEL },
    ...Object.entries(job.labels).map(([name, value]): RelabelRule => ({ target_label: name, replacement: value })),
    { target_label: 'job', replacement: job.name },
  ];
}

/** The Service port a job asks for, kept by its name or its number. */
function portRule(port: string | number): RelabelRule {
  return typeof port === 'number'
    ? { source_labels: ['__meta_kubernetes_service_port_number'], regex: String(port), action: 'keep' }
    : { source_labels: ['__meta_kubernetes_service_port_name'], regex: port, action: 'keep' };
}

/**
 * A job's discovery as the agent's scrape configs, one per kind it finds, named `<job>@ingresses` and
 * `<job>@services` (the `job` label is the job's): kubernetes_sd lists the objects, and the rules make each a target,
 * then (as the three rules of a static job do) carry it as `instance` and send the scrape to the exporter.
 */
export function renderDiscoveryScrapeConfigs(job: ScrapeJob, module: SpecModule, exporterAddress: string): ProbeScrapeConfig[] {
  return (Object.keys(job.discover ?? {}) as DiscoveredKind[]).flatMap((kind): ProbeScrapeConfig[] => {
    const found = job.discover![kind];
    if (found === undefined) return [];
    const { role } = KINDS[kind];
    const [, instance, address] = relabelRules(exporterAddress);
    return [
      {
        job_name: `${job.name}@${kind}`,
        scrape_interval: job.scrapeInterval,
        scrape_timeout: job.scrapeTimeout,
        metrics_path: PROBE_PATH,
        params: { module: [job.module] },
        kubernetes_sd_configs: [{ role, ...(found.namespaces && { namespaces: { names: [...found.namespaces] } }), selectors: [{ role, label: labelSelectorText(found.selector) }] }],
        relabel_configs: [
          ...('port' in found && found.port !== undefined ? [portRule(found.port)] : []),
          ...discoveryTargetRules(kind, job, module.prober),
          { source_labels: ['__meta_kubernetes_namespace'], target_label: DISCOVERED_NAMESPACE_LABEL },
          { source_labels: [`${KINDS[kind].meta}_name`], target_label: KINDS[kind].role },
          instance,
          address,
        ],
      },
    ];
  });
}

/** The Operator's form of a relabel rule (RelabelConfig of monitoring.coreos.com/v1). */
export interface OperatorRelabeling {
  readonly sourceLabels?: readonly string[];
  readonly targetLabel?: string;
  readonly regex?: string;
  readonly replacement?: string;
  readonly action?: string;
}

export function operatorRelabeling(rule: RelabelRule): OperatorRelabeling {
  return {
    ...(rule.source_labels && { sourceLabels: rule.source_labels }),
    ...(rule.action !== 'drop' && rule.action !== 'keep' && { targetLabel: rule.target_label }),
    ...(rule.regex !== undefined && { regex: rule.regex }),
    ...(rule.replacement !== undefined && { replacement: rule.replacement }),
    ...(rule.action !== undefined && { action: rule.action }),
  };
}

/** A Probe's `targets.ingress`. */
export interface ProbeIngress {
  readonly selector: LabelSelector;
  readonly namespaceSelector: { readonly matchNames?: readonly string[]; readonly any?: boolean };
  readonly relabelingConfigs: readonly OperatorRelabeling[];
}

/** The Probe spec's `targets.ingress`: the selector, the namespaces (any when the job names none), and the override rules. */
export function probeIngressTargets(job: ScrapeJob, module: SpecModule): { readonly ingress: ProbeIngress } | undefined {
  const found = job.discover?.ingresses;
  if (found === undefined) return undefined;
  return {
    ingress: {
      selector: found.selector,
      namespaceSelector: found.namespaces ? { matchNames: [...found.namespaces] } : { any: true },
      relabelingConfigs: discoveryTargetRules('ingresses', job, module.prober).map(operatorRelabeling),
    },
  };
}

/** Who the agent runs as, to whom the discovery RBAC is bound. */
export interface AgentServiceAccount {
  readonly name: string;
  readonly namespace: string;
}

/** A Role or ClusterRole and its binding, as plain Kubernetes objects. */
export type RbacObject = Readonly<Record<string, unknown>> & { readonly apiVersion: string; readonly kind: string; readonly metadata: { readonly name: string; readonly namespace?: string } };

/**
 * What an agent needs to discover the jobs' objects: get, list and watch on Ingresses and/or Services, in the
 * namespaces the jobs name (a Role and RoleBinding in each), or in every namespace when a job names none (a
 * ClusterRole and ClusterRoleBinding). Bound to the agent's ServiceAccount when the spec names it; otherwise the
 * roles alone, for the user to bind (docs/targets.md).
 */
export function renderDiscoveryRbac(jobs: readonly ScrapeJob[], account: AgentServiceAccount | undefined, name = 'probekit-discovery'): RbacObject[] {
  const wanted = new Map<string, Set<DiscoveredKind>>();
  const CLUSTER = '';
  for (const job of jobs) {
    for (const kind of Object.keys(job.discover ?? {}) as DiscoveredKind[]) {
      const found = job.discover![kind];
      if (found === undefined) continue;
      for (const namespace of found.namespaces ?? [CLUSTER]) wanted.set(namespace, (wanted.get(namespace) ?? new Set()).add(kind));
    }
  }
  const cluster = wanted.get(CLUSTER);
  const scopes: Array<[string, Set<DiscoveredKind>]> = cluster ? [[CLUSTER, new Set([...wanted.values()].flatMap((kinds) => [...kinds]))]] : [...wanted];
  const labels = probekitLabels({ component: 'discovery' });
  return scopes.flatMap(([namespace, kinds]): RbacObject[] => {
    const rules = [...kinds].sort().map((kind) => ({ apiGroups: [KINDS[kind].apiGroup], resources: [KINDS[kind].resource], verbs: ['get', 'list', 'watch'] }));
    const [roleKind, bindingKind] = namespace === CLUSTER ? ['ClusterRole', 'ClusterRoleBinding'] : ['Role', 'RoleBinding'];
    const metadata = { name: kubernetesObjectName(name), ...(namespace === CLUSTER ? {} : { namespace }), labels };
    const role: RbacObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: roleKind, metadata, rules };
    if (account === undefined) return [role];
    const binding: RbacObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: bindingKind,
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: metadata.name },
      subjects: [{ kind: 'ServiceAccount', name: account.name, namespace: account.namespace }],
    };
    return [role, binding];
  });
}
