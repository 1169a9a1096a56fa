/** EndpointsDashboard alone: the ConfigMap Grafana's sidecar loads, and the JSON file beside the manifests. */
import { App, Chart } from 'cdk8s';
import { BlackboxExporter, EndpointsDashboard, type EndpointsDashboardProps } from '../../src/cdk8s';
import { validateAgainstSchema } from '../support/manifests';

/** A dashboard beside an exporter (of the given external URL) in a chart; the chart's manifests are the dashboard's alone. */
function dashboardIn(props: Omit<EndpointsDashboardProps, 'exporter'> = {}, externalUrl?: string): { chart: Chart; dashboard: EndpointsDashboard } {
  const app = new App();
  const exporter = new BlackboxExporter(new Chart(app, 'exporter', { namespace: 'monitoring' }), 'exporter', { externalUrl });
  const chart = new Chart(app, 'probes', { namespace: 'monitoring' });
  return { chart, dashboard: new EndpointsDashboard(chart, 'dashboard', { exporter, ...props }) };
}

describe('EndpointsDashboard', () => {
  it("a ConfigMap with the sidecar's default label, the dashboard JSON under <uid>.json", () => {
    const { chart, dashboard } = dashboardIn();
    const [configMap] = chart.toJson();
    expect(configMap.metadata).toMatchObject({ name: 'probekit-endpoints-dashboard', namespace: 'monitoring', labels: { grafana_dashboard: '1', 'app.kubernetes.io/part-of': 'probekit' } });
    expect(Object.keys(configMap.data)).toEqual(['probekit-endpoints.json']);
    expect(configMap.data['probekit-endpoints.json']).toBe(dashboard.toJson());
    expect(() => validateAgainstSchema(configMap)).not.toThrow();
  });

  it("another label for a sidecar configured otherwise, another uid and title, the links at the exporter's external URL", () => {
    const { chart } = dashboardIn({ uid: 'team-endpoints', title: 'Team endpoints', labels: { dashboards: 'team' } }, 'https://exporter.example.com');
    const [configMap] = chart.toJson();
    expect(configMap.metadata.labels).toMatchObject({ dashboards: 'team' });
    expect(configMap.metadata.labels.grafana_dashboard).toBeUndefined();
    const json = JSON.parse(configMap.data['team-endpoints.json']);
    expect(json).toMatchObject({ uid: 'team-endpoints', title: 'Team endpoints' });
    expect(JSON.stringify(json)).toContain('https://exporter.example.com/probe?debug=true');
  });

  it('links to http://localhost:9115 when the exporter names no external URL (a port-forward)', () => {
    expect(dashboardIn().dashboard.toJson()).toContain('http://localhost:9115/probe?debug=true');
  });

  it('is written beside the manifests as <chart>.dashboard.json', () => {
    expect(dashboardIn().dashboard.fileName).toBe('probes.dashboard.json');
  });
});
