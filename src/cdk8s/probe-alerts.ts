/**
 * The alert rules in a cluster: the rule file, which ProbekitApp writes as `<chart>.rules.yaml` beside the manifests
 * (for a Prometheus configured by hand, or an agent chart that takes rule files), and, for clusters whose
 * Prometheus the Prometheus Operator runs, the same groups as a PrometheusRule.
 */
import { ApiObject, Chart } from 'cdk8s';
import { Construct, type IConstruct } from 'constructs';
import { stringify } from 'yaml';
import { renderAlertRules, type RuleFile } from '../render/alert-rules';
import { renderPrometheusRule } from '../render/operator-objects';
import type { Spec } from '../model';

export interface ProbeAlertsProps {
  /** The jobs, their modules (an http module gets the HTTP status alert) and the exporter's URL for the debug links. */
  readonly spec: Pick<Spec, 'jobs' | 'modules' | 'exporter' | 'namespace'>;
  /**
   * Make a PrometheusRule too, with these labels (for the Prometheus resource's ruleSelector).
   * @default - no PrometheusRule: a cluster without the Operator's CRDs would refuse it
   */
  readonly prometheusRule?: { readonly labels: Readonly<Record<string, string>> };
}

export class ProbeAlerts extends Construct {
  /** Finds every ProbeAlerts below `scope`. */
  static all(scope: IConstruct): ProbeAlerts[] {
    return scope.node.findAll().filter((child): child is ProbeAlerts => child instanceof ProbeAlerts);
  }

  readonly rules: RuleFile;
  readonly prometheusRule?: ApiObject;

  constructor(scope: Construct, id: string, props: ProbeAlertsProps) {
    super(scope, id);
    this.rules = renderAlertRules(props.spec);
    if (props.prometheusRule) {
      const object = renderPrometheusRule(`${props.spec.exporter.serviceName}-alerts`, this.rules, { namespace: props.spec.namespace, labels: props.prometheusRule.labels });
      this.prometheusRule = new ApiObject(this, 'prometheus-rule', object);
    }
  }

  /** The file name beside the chart's manifests: `<chart>.rules.yaml`. */
  get fileName(): string {
    return `${Chart.of(this).node.id}.rules.yaml`;
  }

  toYaml(): string {
    return stringify(this.rules, { lineWidth: 0 });
  }
}
