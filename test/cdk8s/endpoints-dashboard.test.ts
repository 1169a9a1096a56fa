/** EndpointsDashboard alone: the ConfigMap Grafana's sidecar loads, and the JSON file beside the manifests. */
import { App, Chart } from 'cdk8s';
import { EndpointsDashboard } from '../../src/cdk8s';
import { validateAgainstSchema } from '../support/manifests';

function dashboardIn(props: ConstructorParameters<typeof EndpointsDashboard>[2] = {}): { chart: Chart; dashboard: EndpointsDashboard } {
  const chart = new Chart(new App(), 'probes', { namespace: 'monitoring' });
  return { chart, dashboard: new EndpointsDashboard(chart, 'dashboard', props) };
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

  it('another label for a sidecar configured otherwise, another uid and title, the links at the given exporter URL', () => {
    const { chart } = dashboardIn({ uid: 'team-endpoints', title: 'Team endpoints', labels: { dashboards: 'team' }, exporterUrl: 'https://exporter.example.com' });
    const [configMap] = chart.toJson();
    expect(configMap.metadata.labels).toMatchObject({ dashboards: 'team' });
    expect(configMap.metadata.labels.grafana_dashboard).toBeUndefined();
    const json = JSON.parse(configMap.data['team-endpoints.json']);
    expect(json).toMatchObject({ uid: 'team-endpoints', title: 'Team endpoints' });
    expect(JSON.stringify(json)).toContain('https://exporter.example.com/probe?debug=true');
  });

  it('is written beside the manifests as <chart>.dashboard.json', () => {
    expect(dashboardIn().dashboard.fileName).toBe('probes.dashboard.json');
  });
});
