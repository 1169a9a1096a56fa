/**
 * Synthesis in-process: the objects `cdk8s synth` writes, as data. The Pulumi program applies these, so
 * both engines deliver the same objects.
 */
import { App } from 'cdk8s';
import { ProblemsError } from '@probekit/exporter';
import type { Environment, Spec } from '../model';
import type { DashboardJson } from '../render/dashboard';
import { renderAlertRulesYaml, type RuleFile } from '../render/alert-rules';
import { renderAlertmanagerConfigYaml, routesAlerts } from '../render/alertmanager-config';
import { ProbekitChart } from './probekit';

export interface Synthesized {
  /** Kubernetes objects, in the order of the chart's manifest file. */
  readonly manifests: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects of every kind, which callers index into
  /** The agent's values, in the layout of the spec's agent.chart. */
  readonly agentValues: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- one of five charts' layouts, which callers index into
  /** host:port the agent's jobs scrape: the exporter's Service in the spec's namespace, port 9115. */
  readonly exporterAddress: string;
  /** The endpoints dashboard (also in the manifests, as a ConfigMap), unless the spec turns it off. */
  readonly dashboard?: DashboardJson;
  /** The alert rule file's content, unless the spec turns alerts off. */
  readonly alertRules?: RuleFile;
  /**
   * What the Prometheus (or ruler) that receives every location's series loads: the rule file's text (with two or
   * more locations, the one that counts them), as synth writes `<chart>.rules.yaml`; none when alerts are off.
   */
  readonly centralRules?: string;
  /** Alertmanager's file, as synth writes `<chart>.alertmanager.yaml`, when the spec routes its alerts. */
  readonly alertmanagerConfig?: string;
}

export function synthesize(spec: Spec, env: Environment = {}): Synthesized {
  const chart = new ProbekitChart(new App(), 'probekit', { spec, env });
  const { agentValues, dashboard, alerts, exporter } = chart.probekit;
  // One agent release per cluster takes these values: shards that need a release each cannot be installed so.
  if (agentValues.shardFiles) {
    const message = `is ${agentValues.shards}, which writes a values file per shard for the ${agentValues.chart.chart} chart, each an agent release of its own; synthesize installs one release: use agent.chart alloy (its replicas share the targets by clustering), or install the shards' files with probekit synth`;
    throw new ProblemsError([{ path: ['agent', 'shards'], message }]);
  }
  // The values' size is checked as synth checks the file: a release too large fails at helm, later and in other words.
  agentValues.toYaml();
  return {
    manifests: chart.toJson(),
    agentValues: agentValues.values,
    exporterAddress: exporter.address,
    dashboard: dashboard?.dashboard,
    alertRules: alerts?.rules,
    ...centralAlerting(spec),
  };
}

/** The central Prometheus's rule file and Alertmanager's file (see Synthesized); none when alerts are off. */
function centralAlerting(spec: Spec): Pick<Synthesized, 'centralRules' | 'alertmanagerConfig'> {
  if (!spec.alerts.enabled) return {};
  return { centralRules: renderAlertRulesYaml(spec), ...(routesAlerts(spec) ? { alertmanagerConfig: renderAlertmanagerConfigYaml(spec) } : {}) };
}
