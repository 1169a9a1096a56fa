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

describe('ProbeAlerts with routing', () => {
  const routed = parseSpec({
    ...documentedExample,
    location: 'eu',
    locations: ['eu', 'us', 'ap'],
    alerts: { receivers: [{ name: 'pager', webhookUrl: 'https://hooks.example.com/page' }] },
    maintenance: [{ name: 'sunday', jobs: [documentedExample.jobs[0].name ?? 'blackbox-exporter'], weekly: { days: ['sunday'], from: '02:00', to: '04:00' } }],
  });

  it("Alertmanager's file beside the rules, and an AlertmanagerConfig when asked for, with the same receivers and windows", () => {
    const chart = new Chart(new App(), 'probes', { namespace: 'monitoring' });
    const alerts = new ProbeAlerts(chart, 'alerts', { spec: routed, alertmanagerConfig: { labels: { release: 'kps' } } });
    expect(alerts.alertmanagerFileName).toBe('probes.alertmanager.yaml');
    const file = parse(alerts.alertmanagerYaml!) as { receivers: Array<{ name: string }>; time_intervals: Array<{ name: string }> };
    expect(file.receivers.map((receiver) => receiver.name)).toEqual(['default', 'pager']);
    expect(file.time_intervals.map((interval) => interval.name)).toEqual(['sunday']);
    const [object] = chart.toJson();
    expect(object).toMatchObject({
      apiVersion: 'monitoring.coreos.com/v1alpha1',
      kind: 'AlertmanagerConfig',
      metadata: { name: 'blackbox-exporter-alerts', namespace: 'monitoring', labels: { release: 'kps' } },
    });
    expect((object.spec as { muteTimeIntervals: unknown[] }).muteTimeIntervals).toHaveLength(1);
  });

  it('no file and no object for a spec that routes nothing', () => {
    const chart = new Chart(new App(), 'probes', { namespace: 'monitoring' });
    const alerts = new ProbeAlerts(chart, 'alerts', { spec, alertmanagerConfig: { labels: {} } });
    expect(alerts.alertmanagerYaml).toBeUndefined();
    expect(chart.toJson()).toEqual([]);
  });
});
