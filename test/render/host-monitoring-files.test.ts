/** The dashboard and the rules as files of the single-machine form, linking to the machine's exporter. */
import { parse } from 'yaml';
import { documentedExample, parseSpec } from '../../src/model';
import { renderAlertRules, renderDashboardJson, renderHostMonitoringFiles } from '../../src/render';

describe('single-machine dashboard and rule files', () => {
  const spec = parseSpec(documentedExample);

  it("under the vendor's directory, readable by the agent and Grafana", () => {
    const files = renderHostMonitoringFiles(spec, 'acme');
    expect(files.map((file) => [file.path, file.mode])).toEqual([
      ['/etc/acme/dashboards/probekit-endpoints.json', 0o644],
      ['/etc/acme/rules/probekit.rules.yaml', 0o644],
    ]);
    const onHost = { ...spec, exporter: { ...spec.exporter, externalUrl: 'http://127.0.0.1:9115' } };
    expect(files[0].content).toBe(renderDashboardJson(onHost));
    expect(parse(files[1].content!)).toEqual(renderAlertRules(onHost));
  });

  it.each([
    [{ host: { listenAddress: '0.0.0.0:9200' } }, 'http://127.0.0.1:9200'],
    [{ host: { listenAddress: '192.0.2.10:9115' } }, 'http://192.0.2.10:9115'],
    [{ exporter: { externalUrl: 'https://blackbox.example' }, host: { listenAddress: '0.0.0.0:9200' } }, 'https://blackbox.example'],
  ])("%j: every debug link goes to the exporter at %s, none to the cluster form's localhost:9115", (extra, url) => {
    const [dashboard, rules] = renderHostMonitoringFiles(parseSpec({ ...documentedExample, ...extra }), 'acme').map((file) => file.content!);
    expect(dashboard).toContain(`${url}/probe?debug=true`);
    expect(rules).toContain(`${url}/probe?debug=true`);
    expect(rules).toContain(`debug_url: ${url}/\n`);
    expect(dashboard + rules).not.toContain('localhost:9115');
  });

  it('neither when the spec turns them off', () => {
    expect(renderHostMonitoringFiles(parseSpec({ ...documentedExample, dashboard: { enabled: false }, alerts: { enabled: false } }), 'acme')).toEqual([]);
  });
});
