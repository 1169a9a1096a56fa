/** ProbeAlerts alone: the rule file beside the manifests, and the PrometheusRule when asked for. */
import { App, Chart } from 'cdk8s';
import { parse } from 'yaml';
import { ProbeAlerts } from '../../src/cdk8s';
import { documentedExample, parseSpec } from '../../src/model';
import { renderAlertRules } from '../../src/render';

const spec = parseSpec(documentedExample);

function alertsIn(props: Omit<ConstructorParameters<typeof ProbeAlerts>[2], 'spec'> = {}): { chart: Chart; alerts: ProbeAlerts } {
  const chart = new Chart(new App(), 'probes', { namespace: 'monitoring' });
  return { chart, alerts: new ProbeAlerts(chart, 'alerts', { spec, ...props }) };
}

describe('ProbeAlerts', () => {
  it("by default only the rule file: a cluster without the Operator's CRDs would refuse a PrometheusRule", () => {
    const { chart, alerts } = alertsIn();
    expect(chart.toJson()).toEqual([]);
    expect(alerts.fileName).toBe('probes.rules.yaml');
    expect(parse(alerts.toYaml())).toEqual(renderAlertRules(spec));
  });

  it('a PrometheusRule with the same groups and the labels its ruleSelector wants', () => {
    const { chart } = alertsIn({ prometheusRule: { labels: { release: 'monitoring' } } });
    const [rule] = chart.toJson();
    expect(rule).toMatchObject({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: { name: 'blackbox-exporter-alerts', namespace: 'monitoring', labels: { release: 'monitoring' } },
    });
    expect(rule.spec).toEqual(renderAlertRules(spec));
  });
});
