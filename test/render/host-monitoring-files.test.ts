/** The dashboard and the rules as files of the single-machine form. */
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
    expect(files[0].content).toBe(renderDashboardJson(spec));
    expect(parse(files[1].content!)).toEqual(renderAlertRules(spec));
  });

  it('neither when the spec turns them off', () => {
    expect(renderHostMonitoringFiles(parseSpec({ ...documentedExample, dashboard: { enabled: false }, alerts: { enabled: false } }), 'acme')).toEqual([]);
  });
});
