/**
 * Spec to Prometheus Operator objects (`monitoring.coreos.com/v1`), for clusters whose Prometheus the Operator
 * runs: Probes for each job (one per module and label set), a ServiceMonitor for the exporter's own metrics, and the alert rules as a
 * PrometheusRule.
 *
 * For a Probe with static targets the Operator generates the three relabel rules of a blackbox scrape job itself
 * (`__address__` to `__param_target`, `__param_target` to `instance`, the prober's URL to `__address__`: its
 * generateProbeConfig), so `instance` carries the target as it does with the agent values. It names the scrape job
 * `probe/<namespace>/<name>` and sets the `job` label to `jobName`, which is the spec's job name here, so the
 * dashboard and the alerts see the same `job` either way. It also adds a `namespace` label to the targets.
 */
import { METRICS_PATH, PROBE_PATH } from '@probekit/exporter';
import { DEFAULTS, LOCATION_LABEL, type Job, type Spec, type SpecModule } from '../model';
import { probeIngressTargets, type ProbeIngress } from './discovery';
import type { RuleFile } from './alert-rules';
import { exporterSelectorLabels, probekitLabels } from './labels';
import { EXPORTER_JOB_NAME, MODULE_PARAM_LABEL, targetGroups } from './scrape-job';
import { jobParts, probeObjectNames, targetSets } from '../model/targets';

export const OPERATOR_API_VERSION = 'monitoring.coreos.com/v1';

interface ObjectMeta {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface ProbeObject {
  readonly apiVersion: typeof OPERATOR_API_VERSION;
  readonly kind: 'Probe';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly jobName: string;
    readonly prober: { readonly url: string; readonly path: string };
    readonly module: string;
    readonly interval: string;
    readonly scrapeTimeout: string;
    /** One of the two: the targets a job lists, or the Ingresses it discovers. */
    readonly targets: { readonly staticConfig?: { readonly static: readonly string[]; readonly labels: Readonly<Record<string, string>> }; readonly ingress?: ProbeIngress };
  };
}

export interface ServiceMonitorObject {
  readonly apiVersion: typeof OPERATOR_API_VERSION;
  readonly kind: 'ServiceMonitor';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly selector: { readonly matchLabels: Readonly<Record<string, string>> };
    readonly endpoints: ReadonlyArray<{
      readonly port: string;
      readonly path: string;
      readonly interval: string;
      readonly relabelings: ReadonlyArray<{ readonly targetLabel: string; readonly replacement: string; readonly action: 'replace' }>;
    }>;
  };
}

export interface PrometheusRuleObject {
  readonly apiVersion: typeof OPERATOR_API_VERSION;
  readonly kind: 'PrometheusRule';
  readonly metadata: ObjectMeta;
  readonly spec: RuleFile;
}

export interface OperatorTarget {
  readonly namespace: string;
  /** Labels for the Prometheus resource's selectors (probeSelector, ruleSelector, serviceMonitorSelector). */
  readonly labels: Readonly<Record<string, string>>;
}

function metadata(name: string, target: OperatorTarget, component: string): ObjectMeta {
  return { name, namespace: target.namespace, labels: { ...probekitLabels({ component }), ...target.labels } };
}

/**
 * One job as Probes, probed by the exporter at `proberAddress` (host:port, as the Operator wants its `url`): a Probe
 * takes one module and one interval, so a job makes one per target group of each of its parts (see targetGroups and
 * jobParts), and one with `targets.ingress` for the Ingresses it discovers (./discovery.ts; `module` is the job's
 * module, the job's prober decides the target's form), named as probeObjectNames says, each with the job's name as
 * `jobName`.
 */
export function renderProbes(job: Job, module: SpecModule, proberAddress: string, target: OperatorTarget): ProbeObject[] {
  const names = probeObjectNames(job);
  const probes = jobParts(job).flatMap((part) =>
    targetGroups(part).map((group, index): Omit<ProbeObject, 'metadata'> => {
      const { [MODULE_PARAM_LABEL]: _moduleParam, ...labels } = group.labels;
      return {
        apiVersion: OPERATOR_API_VERSION,
        kind: 'Probe',
        spec: {
          jobName: job.name,
          prober: { url: proberAddress, path: PROBE_PATH },
          module: targetSets(part)[index].module,
          interval: part.scrapeInterval,
          scrapeTimeout: part.scrapeTimeout,
          targets: { staticConfig: { static: [...group.targets], labels } },
        },
      };
    }),
  );
  const ingress = probeIngressTargets(job, module);
  const discovered: Array<Omit<ProbeObject, 'metadata'>> = ingress
    ? [
        {
          apiVersion: OPERATOR_API_VERSION,
          kind: 'Probe',
          spec: { jobName: job.name, prober: { url: proberAddress, path: PROBE_PATH }, module: job.module, interval: job.scrapeInterval, scrapeTimeout: job.scrapeTimeout, targets: ingress },
        },
      ]
    : [];
  return [...probes, ...discovered].map((probe, index) => ({ ...probe, metadata: metadata(names[index], target, 'probe') }));
}

/** The exporter's Service port that serves /probe and /metrics. */
export const EXPORTER_SERVICE_PORT_NAME = 'http';

/**
 * The exporter's own metrics, scraped from each of its pods through its Service; the `job` label is set to the
 * name the agent values give that job, so that the config-reload alert reads the same series either way, and a
 * located deployment's `location` as its agent values set it.
 */
export function renderExporterServiceMonitor(serviceName: string, target: OperatorTarget, location?: string): ServiceMonitorObject {
  return {
    apiVersion: OPERATOR_API_VERSION,
    kind: 'ServiceMonitor',
    metadata: metadata(serviceName, target, 'exporter-metrics'),
    spec: {
      selector: { matchLabels: exporterSelectorLabels(serviceName) },
      endpoints: [
        {
          port: EXPORTER_SERVICE_PORT_NAME,
          path: METRICS_PATH,
          interval: DEFAULTS.job.scrapeInterval,
          relabelings: [
            { targetLabel: 'job', replacement: EXPORTER_JOB_NAME, action: 'replace' },
            ...(location === undefined ? [] : [{ targetLabel: LOCATION_LABEL, replacement: location, action: 'replace' as const }]),
          ],
        },
      ],
    },
  };
}

/** The alert rules as the Operator loads them: its spec is the rule file's groups. */
export function renderPrometheusRule(name: string, rules: RuleFile, target: OperatorTarget): PrometheusRuleObject {
  return { apiVersion: OPERATOR_API_VERSION, kind: 'PrometheusRule', metadata: metadata(name, target, 'alerts'), spec: rules };
}

/** The spec's Operator target: its namespace and the labels the spec asks for. */
export function operatorTarget(spec: Pick<Spec, 'namespace' | 'operator'>): OperatorTarget {
  return { namespace: spec.namespace, labels: spec.operator?.labels ?? {} };
}
