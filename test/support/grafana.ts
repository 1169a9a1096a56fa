/**
 * What Grafana does with a dashboard's queries before sending them to Prometheus, for tests that run them where no
 * Grafana can run (it is a server with its own database, not installable here). Written from Grafana's documented
 * behaviour and its Prometheus data source: a multi-value or include-all variable is put into a query with each
 * value regex-escaped (metacharacters get `\\`, doubled because the regex sits in a PromQL string) and several values
 * as `(a|b)`; "All" becomes the variable's allValue; `$__range` is the time range in seconds, `$__interval` the step.
 * Data links put `${__field.labels.x:percentencode}` and `${__data.fields.x:percentencode}` in URL-encoded.
 */
import type { DashboardJson } from '../../src/render';

export interface PanelQuery {
  readonly panel: string;
  readonly refId: string;
  readonly expr: string;
  readonly instant: boolean;
}

/** The dashboard's JSON, looked into as Grafana does: panels and variables of many shapes. */
export type Dashboard = Record<string, any> & { readonly panels: ReadonlyArray<Record<string, any>>; readonly templating: { readonly list: ReadonlyArray<Record<string, any>> } };

/** The rendered dashboard, to look into. */
export function lookInto(dashboard: DashboardJson): Dashboard {
  return dashboard as Dashboard;
}

/** A variable's choice: "All", or the values picked. */
export type Selection = 'All' | readonly string[];

export interface QueryContext {
  readonly selections: Readonly<Record<string, Selection>>;
  readonly rangeSeconds: number;
  readonly intervalSeconds: number;
}

/** Grafana's Prometheus data source, classic escaping, for a multi-value or include-all variable's value. */
function regexEscape(value: string): string {
  return value.replace(/\\/g, '\\\\\\\\').replace(/[$^*{}[\]+?.()|]/g, '\\\\$&');
}

export function interpolate(expr: string, dashboard: DashboardJson | Dashboard, context: QueryContext): string {
  let result = expr.replaceAll('$__range', `${context.rangeSeconds}s`).replaceAll('$__interval', `${context.intervalSeconds}s`);
  for (const variable of (dashboard as Dashboard).templating.list.filter((candidate) => candidate.type === 'query')) {
    const selection = context.selections[variable.name] ?? 'All';
    const escaped = selection === 'All' ? variable.allValue : selection.length === 1 ? regexEscape(selection[0]) : `(${selection.map(regexEscape).join('|')})`;
    result = result.replaceAll(`\${${variable.name}}`, escaped).replace(new RegExp(`\\$${variable.name}\\b`, 'g'), () => escaped);
  }
  if (/\$/.test(result)) throw new Error(`a variable is left in ${result}`);
  return result;
}

/** Every query of every panel, rows' panels included. */
export function panelQueries(dashboard: DashboardJson | Dashboard): PanelQuery[] {
  const panels = (dashboard as Dashboard).panels.flatMap((panel) => (panel.type === 'row' ? [panel, ...(panel.panels ?? [])] : [panel]));
  return panels.flatMap((panel) => (panel.targets ?? []).map((target: Record<string, any>) => ({ panel: panel.title, refId: target.refId, expr: target.expr, instant: target.instant === true })));
}

/** A `label_values(selector, label)` variable query, as Grafana asks Prometheus for it. */
export function labelValuesQuery(query: string): { readonly match: string; readonly label: string } {
  const parsed = /^label_values\((.*), *([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(query);
  if (!parsed) throw new Error(`not a label_values query: ${query}`);
  return { match: parsed[1], label: parsed[2] };
}

/** A data link's URL with a series' labels (or a table row's fields) put in, URL-encoded. */
export function interpolateLink(url: string, values: Readonly<Record<string, string>>): string {
  const result = url.replace(/\$\{__(?:field\.labels|data\.fields)\.([a-zA-Z_][a-zA-Z0-9_]*):percentencode\}/g, (_match, name: string) => {
    if (!(name in values)) throw new Error(`no value for ${name} in ${url}`);
    return encodeURIComponent(values[name]);
  });
  if (result.includes('${')) throw new Error(`a variable is left in ${result}`);
  return result;
}
