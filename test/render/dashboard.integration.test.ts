/**
 * The endpoints dashboard's JSON. No Grafana can run here (it is a server with its own database), so the JSON is
 * checked against what Grafana reads, as strictly as its documented model allows: built through the Grafana
 * Foundation SDK's types, then every panel's type, place, data source, queries and field config shape, the
 * variables and what the queries use of them, and every query's PromQL through Prometheus's own parser. The
 * end-to-end test (test/integration/endpoints-e2e.integration.test.ts) runs every query against a real Prometheus.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAILURE_REASON_METRIC } from '@probekit/exporter';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { documentedExample, parseSpec } from '../../src/model';
import { renderDashboard, renderDashboardJson } from '../../src/render';
import { fullEnv, fullSpec } from '../fixtures/specs';
import { interpolate, panelQueries, type Dashboard } from '../support/grafana';
import { describeWithBinaries } from '../support/integration';

const spec = parseSpec(fullSpec, { env: fullEnv });
// Built by the SDK's typed builders (src/render/dashboard.ts): a field Grafana's model does not have, or of the
// wrong kind, fails `npm run typecheck` there.
const dashboard = JSON.parse(renderDashboardJson(spec)) as Dashboard;
const panels = dashboard.panels as Array<Record<string, any>>;
const visualizations = panels.filter((panel) => panel.type !== 'row');
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

/** Every panel on the 24-column grid, in cells no other panel takes. */
function expectOwnCells(list: ReadonlyArray<Record<string, any>>): void {
  const cells = new Set<string>();
  for (const { gridPos, title } of list) {
    expect(gridPos.x + gridPos.w).toBeLessThanOrEqual(24);
    expect(gridPos.h).toBeGreaterThan(0);
    for (let x = gridPos.x; x < gridPos.x + gridPos.w; x += 1) {
      for (let y = gridPos.y; y < gridPos.y + gridPos.h; y += 1) {
        expect(cells.has(`${x},${y}`) ? title : undefined).toBeUndefined();
        cells.add(`${x},${y}`);
      }
    }
  }
}

describe('the dashboard', () => {
  it("is the spec's, in Grafana's current schema", () => {
    expect(renderDashboard(spec).schemaVersion).toBe(42);
    expect(dashboard).toMatchObject({ uid: 'synthetic-checks', title: 'Synthetic checks', time: { from: 'now-6h', to: 'now' }, refresh: '30s', tags: ['probekit', 'blackbox'] });
    expect(dashboard.links).toEqual([expect.objectContaining({ type: 'link', url: 'https://probes.example.com/', targetBlank: true })]);
  });

  it('the panels, row by row, and what each asks', () => {
    const layout = panels.map((panel) => (panel.type === 'row' ? `# ${panel.title}` : `${panel.type}: ${panel.title} <- ${panel.targets.map((target: { expr: string }) => target.expr).join(' | ')}`));
    expect(layout).toMatchSnapshot();
  });

  it('every panel has a unique id and a place on the 24-column grid that no other panel takes', () => {
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expectOwnCells(panels);
  });

  it('every visualization: a known type, a title and a description, the data source variable, and a field config Grafana reads', () => {
    for (const panel of visualizations) {
      expect(['stat', 'table', 'timeseries', 'state-timeline']).toContain(panel.type);
      expect(panel.title).toEqual(expect.any(String));
      expect(panel.description.length).toBeGreaterThan(20);
      expect(panel.datasource).toEqual(DATASOURCE);
      expect(panel.options).toEqual(expect.any(Object));
      expect(panel.fieldConfig).toEqual({ defaults: expect.any(Object), overrides: expect.any(Array) });
      for (const override of panel.fieldConfig.overrides) {
        expect(override.matcher).toEqual({ id: 'byName', options: expect.any(String) });
        for (const property of override.properties) expect(property).toEqual({ id: expect.any(String), value: expect.anything() });
      }
    }
  });

  it('every query: a unique refId in its panel, the data source variable, instant for stats and tables, a range for graphs', () => {
    for (const panel of visualizations) {
      expect(panel.targets.length).toBeGreaterThan(0);
      expect(new Set(panel.targets.map((target: { refId: string }) => target.refId)).size).toBe(panel.targets.length);
      for (const target of panel.targets) {
        expect(target.datasource).toEqual(DATASOURCE);
        expect(target.expr).toMatch(/\S/);
        const instant = ['stat', 'table'].includes(panel.type);
        expect(target).toMatchObject(instant ? { instant: true, range: false } : { range: true, instant: false });
        if (panel.type === 'table') expect(target.format).toBe('table');
      }
    }
  });

  it('the variables: the data source, then job, module and target, each multi-value with All, on the chosen data source', () => {
    const [datasource, ...labels] = dashboard.templating.list;
    expect(datasource).toMatchObject({ type: 'datasource', name: 'datasource', query: 'prometheus' });
    expect(labels.map((variable) => variable.name)).toEqual(['job', 'module', 'instance']);
    for (const variable of labels) {
      expect(variable).toMatchObject({ type: 'query', datasource: DATASOURCE, multi: true, includeAll: true, allValue: '.*', refresh: 2 });
      expect(variable.query).toMatch(/^label_values\(probe_success.*\)$/);
    }
  });

  it('every query filters by every variable, and uses no variable that is not defined', () => {
    const defined = new Set(dashboard.templating.list.map((variable) => variable.name));
    for (const query of panelQueries(dashboard)) {
      for (const name of ['job', 'module', 'instance']) expect(query.expr).toContain(`=~"$${name}"`);
      for (const [, used] of query.expr.matchAll(/\$(?!__)([a-zA-Z_]\w*)/g)) expect(defined).toContain(used);
    }
  });

  it("every target links to the exporter's debug output for it, at the spec's external URL", () => {
    const debug = /^https:\/\/probes\.example\.com\/probe\?debug=true&module=\$\{__(field\.labels|data\.fields)\.module:percentencode\}&target=\$\{__\1\.instance:percentencode\}$/;
    for (const panel of visualizations.filter((candidate) => candidate.type !== 'stat')) {
      const links = [
        ...(panel.fieldConfig.defaults.links ?? []),
        ...panel.fieldConfig.overrides.flatMap((override: any) => override.properties.filter((property: any) => property.id === 'links').flatMap((property: any) => property.value)),
      ];
      expect(links.map((link: { url: string }) => link.url)).toEqual([expect.stringMatching(debug)]);
    }
  });

  it('the failure panel: the failing targets, and a column for each signal of why, each limited to them', () => {
    const failing = visualizations.find((panel) => panel.title === 'Failing targets and why')!;
    const headers = failing.fieldConfig.overrides.flatMap((override: any) => override.properties.filter((property: any) => property.id === 'displayName').map((property: any) => property.value));
    expect(headers).toEqual(['Failing', 'HTTP status', 'Body or header did not match', 'Certificate days left']);
    for (const target of failing.targets.slice(1)) expect(target.expr).toMatch(/ and on \(job, instance\) probe_success\{.*\} == 0$/);
  });

  it("the failure panel shows the exporter's failure reason in words, and the phase of a timeout, from the reason metric's labels", () => {
    const failing = visualizations.find((panel) => panel.title === 'Failing targets and why')!;
    const reason = failing.targets.find((target: any) => target.expr.startsWith(`${FAILURE_REASON_METRIC.name}{`));
    expect(reason).toBeDefined();
    const organize = failing.transformations.find((transformation: any) => transformation.id === 'organize');
    expect(organize.options.renameByName).toMatchObject({ [FAILURE_REASON_METRIC.labels.reason]: 'Failure reason', [FAILURE_REASON_METRIC.labels.phase]: 'Timed out during' });
    const valueOverride = failing.fieldConfig.overrides.find((override: any) => override.matcher.options === `Value #${reason.refId}`);
    expect(valueOverride.properties).toEqual([{ id: 'custom.hidden', value: true }]);
  });

  it('the documented example renders too, with the default title, uid and exporter URL', () => {
    const example = renderDashboard(parseSpec(documentedExample));
    expect(example).toMatchObject({ uid: 'probekit-endpoints', title: 'Endpoints' });
    expect(JSON.stringify(example)).toContain('http://localhost:9115/probe?debug=true');
  });

  it('docs/dashboard.md lists every panel', () => {
    const page = readFileSync(join(__dirname, '..', '..', 'docs', 'dashboard.md'), 'utf8');
    for (const panel of visualizations) expect(page).toContain(`| ${panel.title} |`);
  });
});

describeWithBinaries(['/usr/bin/promtool'])("every query is PromQL that Prometheus's parser accepts", () => {
  it('with the variables put in as Grafana does (promtool check rules parses each as a recording rule)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-dashboard-'));
    try {
      const rules = panelQueries(dashboard).map((query, index) => ({
        record: `dashboard:query_${index}`,
        expr: interpolate(query.expr, dashboard, { selections: { instance: ['https://example.com/a?b=(c)'] }, rangeSeconds: 3600, intervalSeconds: 15 }),
      }));
      writeFileSync(join(dir, 'queries.yaml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
      const { stdout } = await promisify(execFile)('/usr/bin/promtool', ['check', 'rules', '--lint=none', join(dir, 'queries.yaml')]);
      expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the dashboard of several locations, with maintenance windows', () => {
  const located = parseSpec({
    ...documentedExample,
    location: 'eu',
    locations: ['eu', 'us', 'ap'],
    maintenance: [{ name: 'sunday', jobs: [documentedExample.jobs[0]!.name ?? 'blackbox-exporter'], weekly: { days: ['sunday'], from: '02:00', to: '04:00', timezone: 'Europe/Zurich' } }],
  });
  const board = JSON.parse(renderDashboardJson(located)) as Dashboard;
  const all = board.panels as Array<Record<string, any>>;

  it('a location variable after the target, and every query narrowed by it as by the others', () => {
    expect(board.templating.list.map((variable) => variable.name)).toEqual(['datasource', 'job', 'module', 'instance', 'location']);
    for (const query of panelQueries(board)) for (const name of ['job', 'module', 'instance', 'location']) expect(query.expr).toContain(`=~"$${name}"`);
  });

  it("each location's status, and the windows listed, in the status row; no panel overlaps another", () => {
    const byLocation = all.find((panel) => panel.title === 'Status by location')!;
    expect(byLocation.targets.map((target: { expr: string }) => target.expr)).toEqual([
      'sum by (location) (probe_success{job=~"$job", module=~"$module", instance=~"$instance", location=~"$location"})',
      'count by (location) (probe_success{job=~"$job", module=~"$module", instance=~"$instance", location=~"$location"} == 0) or sum by (location) (probe_success{job=~"$job", module=~"$module", instance=~"$instance", location=~"$location"}) * 0',
    ]);
    expect(all.find((panel) => panel.title === 'Maintenance windows')).toMatchObject({
      type: 'text',
      options: { mode: 'markdown', content: '- **sunday**: blackbox-exporter, every sunday, 02:00 to 04:00 Europe/Zurich' },
    });
    expectOwnCells(all);
  });

  it('one location, or none, is the dashboard of a single place', () => {
    const { location: _location, locations: _locations, maintenance: _maintenance, ...plain } = located;
    expect(renderDashboardJson({ ...located, locations: ['eu'], maintenance: [] })).toBe(renderDashboardJson(plain));
  });

  it('docs/dashboard.md lists the located panels', () => {
    const page = readFileSync(join(__dirname, '..', '..', 'docs', 'dashboard.md'), 'utf8');
    for (const title of ['Status by location', 'Maintenance windows']) expect(page).toContain(`| ${title} |`);
  });

  describeWithBinaries(['/usr/bin/promtool'])('its queries', () => {
    it("are PromQL that Prometheus's parser accepts, with a location chosen", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'probekit-dashboard-located-'));
      try {
        const rules = panelQueries(board).map((query, index) => ({
          record: `dashboard:query_${index}`,
          expr: interpolate(query.expr, board, { selections: { location: ['eu', 'ap'] }, rangeSeconds: 3600, intervalSeconds: 15 }),
        }));
        writeFileSync(join(dir, 'queries.yaml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
        const { stdout } = await promisify(execFile)('/usr/bin/promtool', ['check', 'rules', '--lint=none', join(dir, 'queries.yaml')]);
        expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
