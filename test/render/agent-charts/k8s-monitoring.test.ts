/**
 * k8s-monitoring's values: the chart's contract, and that they install once the user adds what the header names
 * (the cluster's name and a destination). The Probe objects it scrapes are checked against the Operator's schema
 * where the construct makes them (test/cdk8s).
 */
import { k8sMonitoringChartValues } from '../../../src/render/agent-charts/k8s-monitoring';
import { contractProblems } from '../../support/chart-contracts';
import { K8S_MONITORING_CHART_CONTRACT, K8S_MONITORING_INSTALLABLE } from '../../support/chart-contracts/k8s-monitoring';

describe('values for grafana/k8s-monitoring v2', () => {
  const { values, notes } = k8sMonitoringChartValues('probekit.agent-values.yaml');

  it("keep the chart's contract: the Prometheus Operator objects feature with its Probes and ServiceMonitors, and its collector", () => {
    expect(contractProblems(K8S_MONITORING_CHART_CONTRACT, values)).toEqual([]);
    expect(values).toEqual({ prometheusOperatorObjects: { enabled: true, probes: { enabled: true }, serviceMonitors: { enabled: true } }, 'alloy-metrics': { enabled: true } });
  });

  it('install once the user adds the cluster name and a destination, which the header asks for, and not before', () => {
    expect(contractProblems(K8S_MONITORING_INSTALLABLE, values)).toEqual(["/: must have required property 'cluster'", "/: must have required property 'destinations'"]);
    expect(notes).toContain('Your own values must give cluster.name and a metrics destination (destinations), which the chart requires.');
    const theirs = { cluster: { name: 'prod-eu' }, destinations: [{ name: 'metrics', type: 'prometheus', url: 'https://prometheus.example.com/api/v1/write' }] };
    expect(contractProblems(K8S_MONITORING_INSTALLABLE, { ...theirs, ...values })).toEqual([]);
  });

  it('would be refused by the contract with the collector left off (the check is real)', () => {
    expect(contractProblems(K8S_MONITORING_CHART_CONTRACT, { ...values, 'alloy-metrics': { enabled: 'yes' } })).toEqual(['/alloy-metrics/enabled: must be boolean']);
  });
});
