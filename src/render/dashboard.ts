/**
 * Spec to the endpoints dashboard, built through the Grafana Foundation SDK's typed builders (no hand-written
 * JSON): a status overview of every target, uptime over the dashboard's range and over 30 days, probe duration
 * and HTTP latency by phase, HTTP status and version, redirects, TLS version and days until the certificate
 * expires, DNS lookup time, and why a failing target fails. Variables choose the data source, the jobs, the
 * modules and the targets; every target links to the exporter's debug output for it.
 */
import * as common from '@grafana/grafana-foundation-sdk/common';
import {
  DashboardBuilder,
  DashboardLinkBuilder,
  DatasourceVariableBuilder,
  MappingType,
  QueryVariableBuilder,
  RowBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
  type DynamicConfigValue,
  type ValueMapping,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanel } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as StateTimelinePanel } from '@grafana/grafana-foundation-sdk/statetimeline';
import { PanelBuilder as TablePanel } from '@grafana/grafana-foundation-sdk/table';
import { PanelBuilder as TimeseriesPanel } from '@grafana/grafana-foundation-sdk/timeseries';
import { PanelBuilder as TextPanel, TextMode } from '@grafana/grafana-foundation-sdk/text';
import { LOCATION_LABEL, MODULE_LABEL, type DashboardSettings, type MaintenanceWindow, type Spec } from '../model';
import { OBJECTIVE_WINDOW } from './alert-rules';
import { windowSchedule } from './alertmanager-config';
import { probeDebugUrl, statusPageUrl } from './debug-links';
import { PROBE_METRICS } from './probe-metrics';
import { FAILURE_REASON_METRIC } from '@probekit/exporter';

/** The dashboard's variables, by name. */
export const DASHBOARD_VARIABLES = { datasource: 'datasource', job: 'job', module: 'module', instance: 'instance', location: LOCATION_LABEL } as const;

/** Every query of every panel: the variables, as Grafana replaces them in a regex matcher. */
const SELECTOR = `{job=~"$${DASHBOARD_VARIABLES.job}", ${MODULE_LABEL}=~"$${DASHBOARD_VARIABLES.module}", instance=~"$${DASHBOARD_VARIABLES.instance}"}`;
const DATASOURCE = { type: 'prometheus', uid: `\${${DASHBOARD_VARIABLES.datasource}}` };

const series = (metric: string): string => `${metric}${SELECTOR}`;
const FAILING = `on (job, instance) ${series(PROBE_METRICS.success)} == 0`;
const DAYS_LEFT = `(${series(PROBE_METRICS.certificateExpiry)} - time()) / 86400`;

/**
 * What else tells why a failing target fails, one column each, for the targets failing now: the exporter's
 * reason (FAILURE_REASON_COLUMN) says it in words; these say more, and say something with an upstream exporter.
 */
const FAILURE_SIGNALS: readonly FailureSignal[] = [
  { column: 'HTTP status', expr: series(PROBE_METRICS.httpStatusCode) },
  { column: 'Body or header did not match', expr: series(PROBE_METRICS.failedDueToRegex), mappings: yesNo() },
  { column: 'Certificate days left', expr: DAYS_LEFT, unit: 'none', decimals: 1 },
];

interface FailureSignal {
  readonly column: string;
  readonly expr: string;
  readonly unit?: string;
  readonly decimals?: number;
  readonly mappings?: ValueMapping[];
}

interface TableColumn {
  readonly header: string;
  readonly expr: string;
  readonly properties?: DynamicConfigValue[];
  /** Labels of the query's series shown as columns (label → header); the query's value is then not shown. */
  readonly labelColumns?: Readonly<Record<string, string>>;
}

/**
 * The exporter's failure reason of the targets failing now, in words, and the phase of a timeout: the labels of
 * its reason metric (the exporter's contract names both), which a failed probe alone has.
 */
const FAILURE_REASON_COLUMN: TableColumn = {
  header: 'Failure reason',
  expr: `${series(FAILURE_REASON_METRIC.name)} and ${FAILING}`,
  labelColumns: { [FAILURE_REASON_METRIC.labels.reason]: 'Failure reason', [FAILURE_REASON_METRIC.labels.phase]: 'Timed out during' },
};

/**
 * The dashboard as Grafana reads it: the JSON of the SDK's model. The SDK's own types stay inside probekit: its
 * entry points resolve only under `moduleResolution` node16 and later, and probekit's declarations must also work
 * with the classic `node`.
 */
export interface DashboardJson {
  readonly uid: string;
  readonly title: string;
  readonly schemaVersion: number;
  readonly panels: ReadonlyArray<Record<string, unknown>>;
  readonly templating: { readonly list: ReadonlyArray<Record<string, unknown>> };
  readonly [field: string]: unknown;
}

export interface DashboardOptions extends Pick<DashboardSettings, 'title' | 'uid'> {
  /** Where a browser reaches the exporter: the base of the debug links. */
  readonly exporterUrl: string;
  /** Certificate thresholds for the colours of days left: the spec's `alerts.thresholds`. */
  readonly certificateWarningDays: number;
  readonly certificateCriticalDays: number;
  /** With two or more, a location variable narrows every query, and a panel shows each location's status. @default - none */
  readonly locations?: readonly string[];
  /** Maintenance windows, listed in a panel. @default - none */
  readonly maintenance?: readonly MaintenanceWindow[];
}

/** What the dashboard reads of the spec; the locations and windows are optional (a spec from before them has neither). */
export type DashboardSpec = Pick<Spec, 'dashboard' | 'exporter' | 'alerts'> & Partial<Pick<Spec, 'locations' | 'maintenance'>>;

export function dashboardOptions(spec: DashboardSpec): DashboardOptions {
  const { thresholds } = spec.alerts;
  return {
    title: spec.dashboard.title,
    uid: spec.dashboard.uid,
    exporterUrl: spec.exporter.externalUrl,
    certificateWarningDays: thresholds.certificateWarningDays,
    certificateCriticalDays: thresholds.certificateCriticalDays,
    ...((spec.locations?.length ?? 0) >= 2 ? { locations: spec.locations } : {}),
    ...((spec.maintenance?.length ?? 0) > 0 ? { maintenance: spec.maintenance } : {}),
  };
}

export function renderDashboard(spec: DashboardSpec): DashboardJson {
  return buildDashboard(dashboardOptions(spec));
}

/** The dashboard as the JSON file Grafana imports and its sidecar reads. */
export function renderDashboardJson(spec: DashboardSpec): string {
  return dashboardFileText(renderDashboard(spec));
}

export function dashboardFileText(dashboard: DashboardJson): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

export function buildDashboard(options: DashboardOptions): DashboardJson {
  const dashboard = JSON.parse(JSON.stringify(buildWithSdk(options))) as DashboardJson;
  return options.locations ? located(dashboard) : dashboard;
}

/** The matcher every query of a located dashboard adds to the target's: the chosen locations. */
const LOCATION_MATCHER = `${LOCATION_LABEL}=~"$${DASHBOARD_VARIABLES.location}"`;

/**
 * A dashboard of several locations: every query and variable narrowed to the chosen locations, after the target's own
 * matchers (each selector of the dashboard ends with the instance's), so that the one set of panels serves both.
 */
function located(dashboard: DashboardJson): DashboardJson {
  const narrowed = JSON.stringify(dashboard).replaceAll(
    `instance=~\\"$${DASHBOARD_VARIABLES.instance}\\"}`,
    `instance=~\\"$${DASHBOARD_VARIABLES.instance}\\", ${LOCATION_MATCHER.replaceAll('"', '\\"')}}`,
  );
  return JSON.parse(narrowed) as DashboardJson;
}

/** Built through the SDK's builders, so that every panel, query, variable and link has Grafana's shape. */
function buildWithSdk(options: DashboardOptions) {
  let nextId = 1;
  const id = (): number => nextId++;
  // Each link opens a fresh probe of that target with its module, so it shows what happens now.
  const seriesDebugLink = debugLink(options.exporterUrl, '__field.labels');
  const rowDebugLink = debugLink(options.exporterUrl, '__data.fields');
  const variable = (name: string) => `$${name}`;

  const builder = new DashboardBuilder(options.title)
    .uid(options.uid)
    .description('Endpoints probed by probekit: are they up, how fast do they answer, and why does a failing one fail.')
    .tags(['probekit', 'blackbox'])
    .timezone('browser')
    .refresh('30s')
    .time({ from: 'now-6h', to: 'now' })
    .link(new DashboardLinkBuilder("Exporter's recent probes").url(statusPageUrl(options.exporterUrl)).targetBlank(true).icon('external link'))
    .withVariable(new DatasourceVariableBuilder(DASHBOARD_VARIABLES.datasource).label('Data source').type('prometheus'))
    .withVariable(labelVariable(DASHBOARD_VARIABLES.job, 'Job', `label_values(${PROBE_METRICS.success}, job)`))
    .withVariable(labelVariable(DASHBOARD_VARIABLES.module, 'Module', `label_values(${PROBE_METRICS.success}{job=~"${variable(DASHBOARD_VARIABLES.job)}"}, ${MODULE_LABEL})`))
    .withVariable(
      labelVariable(
        DASHBOARD_VARIABLES.instance,
        'Target',
        `label_values(${PROBE_METRICS.success}{job=~"${variable(DASHBOARD_VARIABLES.job)}", ${MODULE_LABEL}=~"${variable(DASHBOARD_VARIABLES.module)}"}, instance)`,
      ),
    );
  if (options.locations) {
    builder.withVariable(labelVariable(DASHBOARD_VARIABLES.location, 'Location', `label_values(${PROBE_METRICS.success}{job=~"${variable(DASHBOARD_VARIABLES.job)}"}, ${LOCATION_LABEL})`));
  }

  builder
    .withRow(new RowBuilder('Status now').id(id()))
    .withPanel(
      stat('Targets up', 'How many of the chosen targets answered their last probe.', `sum(${series(PROBE_METRICS.success)})`)
        .id(id())
        .span(6)
        .thresholds(steps([{ value: null, color: 'green' }])),
    )
    .withPanel(
      stat('Targets down', 'How many of the chosen targets failed their last probe.', `count(${series(PROBE_METRICS.success)}) - sum(${series(PROBE_METRICS.success)})`)
        .id(id())
        .span(6)
        .thresholds(
          steps([
            { value: null, color: 'green' },
            { value: 1, color: 'red' },
          ]),
        ),
    )
    .withPanel(uptimeStat('Uptime over the range', 'The share of successful probes of the chosen targets over the dashboard range.', '$__range').id(id()).span(6))
    .withPanel(uptimeStat('Uptime over 30 days', 'The share of successful probes of the chosen targets over 30 days, the window of an objective.', OBJECTIVE_WINDOW).id(id()).span(6))
    .withPanel(
      table(
        'Targets',
        'Every chosen target: up or down now, its uptime over the range and over 30 days, and how long its last probe took. The target links to the exporter probing it again, with its log.',
        [
          { header: 'Status', expr: series(PROBE_METRICS.success), properties: [{ id: 'mappings', value: upDown() }, colouredCells()] },
          {
            header: 'Uptime (range)',
            expr: `avg_over_time(${series(PROBE_METRICS.success)}[$__range])`,
            properties: [
              { id: 'unit', value: 'percentunit' },
              { id: 'decimals', value: 3 },
            ],
          },
          {
            header: 'Uptime (30 days)',
            expr: `avg_over_time(${series(PROBE_METRICS.success)}[${OBJECTIVE_WINDOW}])`,
            properties: [
              { id: 'unit', value: 'percentunit' },
              { id: 'decimals', value: 3 },
            ],
          },
          { header: 'Last probe', expr: series(PROBE_METRICS.duration), properties: [{ id: 'unit', value: 's' }] },
        ],
        rowDebugLink,
      )
        .id(id())
        .span(24)
        .height(8),
    );

  if (options.locations) {
    builder.withPanel(
      table(
        'Status by location',
        `Each location's view of the chosen targets now: how many answered their last probe, and how many failed. EndpointDown pages when enough locations agree; one location alone failing is its network's warning.`,
        [
          { header: 'Targets up', expr: `sum by (${LOCATION_LABEL}) (${series(PROBE_METRICS.success)})` },
          {
            header: 'Targets down',
            expr: `count by (${LOCATION_LABEL}) (${series(PROBE_METRICS.success)} == 0) or sum by (${LOCATION_LABEL}) (${series(PROBE_METRICS.success)}) * 0`,
            properties: [
              {
                id: 'thresholds',
                value: steps([
                  { value: null, color: 'green' },
                  { value: 1, color: 'red' },
                ]).build(),
              },
              colouredCells(),
            ],
          },
        ],
        rowDebugLink,
      )
        .id(id())
        .span(options.maintenance ? 12 : 24)
        .height(6),
    );
  }
  if (options.maintenance) {
    builder.withPanel(
      new TextPanel()
        .id(id())
        .title('Maintenance windows')
        .description("While a window is on, its jobs' alerts still fire in Prometheus, and Alertmanager delivers none of them.")
        .mode(TextMode.Markdown)
        .content(options.maintenance.map(windowLine).join('\n'))
        .span(options.locations ? 12 : 24)
        .height(6),
    );
  }

  builder.withRow(new RowBuilder('History').id(id())).withPanel(
    new StateTimelinePanel()
      .id(id())
      .title('Up and down over time')
      .description('When each chosen target was up and when it was down, probe by probe.')
      .datasource(DATASOURCE)
      .withTarget(rangeQuery('A', series(PROBE_METRICS.success), '{{instance}}'))
      .mappings(upDown())
      .dataLinks([seriesDebugLink])
      .span(24)
      .height(8),
  );

  builder
    .withRow(new RowBuilder('Latency').id(id()))
    .withPanel(timeseries('Probe duration', 'How long each probe took, from the first DNS lookup to the last byte.', series(PROBE_METRICS.duration), '{{instance}}', seriesDebugLink).id(id()).span(12))
    .withPanel(
      timeseries(
        'HTTP latency by phase',
        'Where an HTTP probe spends its time: resolve, connect, TLS, processing (waiting for the first byte), transfer.',
        series(PROBE_METRICS.httpPhaseDuration),
        '{{instance}} {{phase}}',
        seriesDebugLink,
      )
        .id(id())
        .span(12)
        .stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal)),
    )
    .withPanel(timeseries('DNS lookup time', 'How long resolving each target took.', series(PROBE_METRICS.dnsLookupTime), '{{instance}}', seriesDebugLink).id(id()).span(12))
    .withPanel(
      timeseries('Days until the certificate expires', 'The earliest expiry among the certificates each TLS target presents, in days.', DAYS_LEFT, '{{instance}}', seriesDebugLink)
        .id(id())
        .span(12)
        .unit('none')
        .decimals(1)
        .thresholds(certificateSteps(options)),
    );

  builder
    .withRow(new RowBuilder('HTTP and TLS').id(id()))
    .withPanel(
      table(
        'HTTP',
        'What each HTTP target answered last: the status code, the HTTP version, how many redirects were followed, and whether the final answer came over TLS.',
        [
          { header: 'Status code', expr: series(PROBE_METRICS.httpStatusCode) },
          { header: 'HTTP version', expr: series(PROBE_METRICS.httpVersion) },
          { header: 'Redirects', expr: series(PROBE_METRICS.httpRedirects) },
          { header: 'TLS', expr: series(PROBE_METRICS.httpTls), properties: [{ id: 'mappings', value: yesNo() }] },
        ],
        rowDebugLink,
      )
        .id(id())
        .span(12)
        .height(8),
    )
    .withPanel(
      table(
        'TLS',
        'The TLS version each target negotiated, and the days until the earliest of its certificates expires (orange and red at the alert thresholds).',
        [
          // The version is the series' label; its value is always 1.
          { header: 'TLS version', expr: series(PROBE_METRICS.tlsVersion), properties: [{ id: 'custom.hidden', value: true }] },
          {
            header: 'Days until the certificate expires',
            expr: DAYS_LEFT,
            properties: [{ id: 'decimals', value: 1 }, { id: 'thresholds', value: certificateSteps(options).build() }, colouredCells()],
          },
        ],
        rowDebugLink,
      )
        .id(id())
        .span(12)
        .height(8),
    );

  builder.withRow(new RowBuilder('Failures').id(id())).withPanel(
    table(
      'Failing targets and why',
      "The targets failing now and why: the exporter's failure reason (with the phase of a timeout), and what else it reports that tells more: the HTTP status, a body or header that did not match, the certificate. The target links to the exporter probing it again, whose log names the cause.",
      [
        { header: 'Failing', expr: `${series(PROBE_METRICS.success)} == 0`, properties: [{ id: 'mappings', value: upDown() }, colouredCells()] },
        FAILURE_REASON_COLUMN,
        ...FAILURE_SIGNALS.map((signal): TableColumn => ({
          header: signal.column,
          expr: `${signal.expr} and ${FAILING}`,
          properties: [
            ...(signal.unit === undefined ? [] : [{ id: 'unit', value: signal.unit }]),
            ...(signal.decimals === undefined ? [] : [{ id: 'decimals', value: signal.decimals }]),
            ...(signal.mappings === undefined ? [] : [{ id: 'mappings', value: signal.mappings }]),
          ],
        })),
      ],
      rowDebugLink,
    )
      .id(id())
      .span(24)
      .height(8),
  );

  return builder.build();
}

/** A window as a line of the panel: its name, what it mutes, and when. */
function windowLine(window: MaintenanceWindow): string {
  return `- **${window.name}**: ${window.jobs.join(', ')}${window.targets ? ` (${window.targets.join(', ')})` : ''}, ${windowSchedule(window)}`;
}

function labelVariable(name: string, label: string, query: string): QueryVariableBuilder {
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .multi(true)
    .includeAll(true)
    .allValue('.*')
    .current({ text: 'All', value: '$__all' })
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc);
}

function rangeQuery(refId: string, expr: string, legend: string): DataqueryBuilder {
  return new DataqueryBuilder().refId(refId).datasource(DATASOURCE).expr(expr).legendFormat(legend).range();
}

function instantQuery(refId: string, expr: string, format: PromQueryFormat): DataqueryBuilder {
  return new DataqueryBuilder().refId(refId).datasource(DATASOURCE).expr(expr).instant().format(format);
}

function stat(title: string, description: string, expr: string): StatPanel {
  return new StatPanel()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .withTarget(instantQuery('A', expr, PromQueryFormat.TimeSeries))
    .colorMode(common.BigValueColorMode.Background)
    .graphMode(common.BigValueGraphMode.None)
    .height(4);
}

function uptimeStat(title: string, description: string, window: string): StatPanel {
  return stat(title, description, `avg(avg_over_time(${series(PROBE_METRICS.success)}[${window}]))`)
    .unit('percentunit')
    .decimals(3)
    .thresholds(uptimeSteps());
}

function timeseries(title: string, description: string, expr: string, legend: string, link: DashboardLinkBuilder): TimeseriesPanel {
  return new TimeseriesPanel()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .withTarget(rangeQuery('A', expr, legend))
    .unit('s')
    .legend(new common.VizLegendOptionsBuilder().showLegend(true).displayMode(common.LegendDisplayMode.List).placement(common.LegendPlacement.Bottom))
    .dataLinks([link])
    .height(8);
}

/**
 * A table of one row per target: each column is an instant query of its own, and Grafana's merge transformation
 * joins them on the labels (job, instance, module, ...). Grafana names a merged query's value `Value #<refId>`.
 */
function table(title: string, description: string, columns: readonly TableColumn[], link: DashboardLinkBuilder): TablePanel {
  const refIds = columns.map((_, index) => String.fromCharCode('A'.charCodeAt(0) + index));
  const panel = new TablePanel()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .targets(columns.map((column, index) => instantQuery(refIds[index], column.expr, PromQueryFormat.Table)))
    .withTransformation({ id: 'merge', options: {} })
    .withTransformation({
      id: 'organize',
      options: {
        excludeByName: { Time: true },
        indexByName: { job: 0, instance: 1, [MODULE_LABEL]: 2 },
        renameByName: { instance: 'Target', ...Object.assign({}, ...columns.map((column) => column.labelColumns ?? {})) },
      },
    })
    .overrideByName('instance', [{ id: 'links', value: [link.build()] }]);
  columns.forEach((column, index) =>
    panel.overrideByName(`Value #${refIds[index]}`, column.labelColumns ? [{ id: 'custom.hidden', value: true }] : [{ id: 'displayName', value: column.header }, ...(column.properties ?? [])]),
  );
  return panel;
}

/** A link to the debug output of the target whose labels (a series') or fields (a table row's) `scope` holds. */
function debugLink(exporterUrl: string, scope: '__field.labels' | '__data.fields'): DashboardLinkBuilder {
  const value = (name: string): string => `\${${scope}.${name}:percentencode}`;
  return new DashboardLinkBuilder('Probe this target now, with its debug log').url(probeDebugUrl(exporterUrl, { module: value(MODULE_LABEL), target: value('instance') })).targetBlank(true);
}

function steps(list: Array<{ value: number | null; color: string }>): ThresholdsConfigBuilder {
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(list);
}

function uptimeSteps(): ThresholdsConfigBuilder {
  return steps([
    { value: null, color: 'red' },
    { value: 0.99, color: 'orange' },
    { value: 0.999, color: 'green' },
  ]);
}

function certificateSteps(options: DashboardOptions): ThresholdsConfigBuilder {
  return steps([
    { value: null, color: 'red' },
    { value: options.certificateCriticalDays, color: 'orange' },
    { value: options.certificateWarningDays, color: 'green' },
  ]);
}

function colouredCells(): DynamicConfigValue {
  return { id: 'custom.cellOptions', value: { type: common.TableCellDisplayMode.ColorBackground } };
}

function upDown(): ValueMapping[] {
  return [
    {
      type: MappingType.ValueToText,
      options: { '0': { text: 'Down', color: 'red', index: 0 }, '1': { text: 'Up', color: 'green', index: 1 } },
    },
  ];
}

function yesNo(): ValueMapping[] {
  return [{ type: MappingType.ValueToText, options: { '0': { text: 'no', index: 0 }, '1': { text: 'yes', index: 1 } } }];
}
