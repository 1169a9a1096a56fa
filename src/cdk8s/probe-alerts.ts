/**
 * The alert rules in a cluster: the rule file, which ProbekitApp writes as `<chart>.rules.yaml` beside the manifests
 * (for a Prometheus configured by hand, or an agent chart that takes rule files), and, for clusters whose
 * Prometheus the Prometheus Operator runs, the same groups as a PrometheusRule. When the spec routes its alerts
 * (receivers, maintenance windows, locations), also Alertmanager's file (`<chart>.alertmanager.yaml`) and, for the
 * Operator, an AlertmanagerConfig.
 */
import { ApiObject, Chart } from 'cdk8s';
import { Construct, type IConstruct } from 'constructs';
import { stringify } from 'yaml';
import { renderAlertRules, type AlertRulesSpec, type RuleFile } from '../render/alert-rules';
import { renderAlertmanagerConfigObject, renderAlertmanagerConfigYaml, routesAlerts, type RoutingSpec } from '../render/alertmanager-config';
import { renderPrometheusRule } from '../render/operator-objects';
import type { Spec } from '../model';

export interface ProbeAlertsProps {
  /**
   * The jobs, their modules (an http module gets the HTTP status alert) and the exporter's URL for the debug links;
   * with `locations`, `maintenance` and `alerts.routing`, also the locations' rules and Alertmanager's routing.
   */
  readonly spec: Pick<Spec, 'namespace'> & AlertRulesSpec & Partial<RoutingSpec>;
  /**
   * Make a PrometheusRule too, with these labels (for the Prometheus resource's ruleSelector).
   * @default - no PrometheusRule: a cluster without the Operator's CRDs would refuse it
   */
  readonly prometheusRule?: { readonly labels: Readonly<Record<string, string>> };
  /**
   * Make an AlertmanagerConfig too (when the spec routes its alerts), with these labels (for the Alertmanager
   * resource's alertmanagerConfigSelector). @default - none
   */
  readonly alertmanagerConfig?: { readonly labels: Readonly<Record<string, string>> };
}

export class ProbeAlerts extends Construct {
  /** Finds every ProbeAlerts below `scope`. */
  static all(scope: IConstruct): ProbeAlerts[] {
    return scope.node.findAll().filter((child): child is ProbeAlerts => child instanceof ProbeAlerts);
  }

  readonly rules: RuleFile;
  readonly prometheusRule?: ApiObject;
  /** Alertmanager's file, when the spec routes its alerts. */
  readonly alertmanagerYaml?: string;
  readonly alertmanagerConfig?: ApiObject;

  constructor(scope: Construct, id: string, props: ProbeAlertsProps) {
    super(scope, id);
    const { spec } = props;
    this.rules = renderAlertRules(spec);
    const name = `${spec.exporter.serviceName}-alerts`;
    if (props.prometheusRule) {
      const object = renderPrometheusRule(name, this.rules, { namespace: spec.namespace, labels: props.prometheusRule.labels });
      this.prometheusRule = new ApiObject(this, 'prometheus-rule', object);
    }
    const routed =
      spec.alerts?.routing && spec.maintenance && spec.locations ? { ...spec, alerts: { routing: spec.alerts.routing }, maintenance: spec.maintenance, locations: spec.locations } : undefined;
    if (routed && routesAlerts(routed)) {
      this.alertmanagerYaml = renderAlertmanagerConfigYaml(routed);
      if (props.alertmanagerConfig) {
        this.alertmanagerConfig = new ApiObject(this, 'alertmanager-config', renderAlertmanagerConfigObject(name, routed, { namespace: spec.namespace, labels: props.alertmanagerConfig.labels }));
      }
    }
  }

  /** Alertmanager's file name beside the chart's manifests: `<chart>.alertmanager.yaml`. */
  get alertmanagerFileName(): string {
    return `${Chart.of(this).node.id}.alertmanager.yaml`;
  }

  /** The file name beside the chart's manifests: `<chart>.rules.yaml`. */
  get fileName(): string {
    return `${Chart.of(this).node.id}.rules.yaml`;
  }

  toYaml(): string {
    return stringify(this.rules, { lineWidth: 0 });
  }
}
