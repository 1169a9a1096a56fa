/**
 * The endpoints dashboard in a cluster: a ConfigMap labelled for Grafana's dashboard sidecar, which loads every
 * ConfigMap carrying its label (`grafana_dashboard: "1"` by default in the Grafana chart), and the same JSON, which
 * ProbekitApp writes as `<chart>.dashboard.json` beside the manifests for importing by hand. Its debug links lead to
 * the exporter construct's external URL.
 */
import { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct, type IConstruct } from 'constructs';
import { DEFAULTS, kubernetesObjectName, type MaintenanceWindow } from '../model';
import { dashboardSettings } from '../model/defaults';
import { buildDashboard, dashboardFileText, type DashboardJson, type DashboardOptions } from '../render/dashboard';
import { probekitLabels } from '../render/labels';
import type { BlackboxExporter } from './blackbox-exporter';

export interface EndpointsDashboardProps {
  /** The exporter whose debug pages the dashboard links to, at the exporter's `externalUrl`. */
  readonly exporter: BlackboxExporter;
  /** @default Endpoints */
  readonly title?: string;
  /** Grafana's uid of the dashboard, also the ConfigMap's name and key. @default probekit-endpoints */
  readonly uid?: string;
  /** Labels by which Grafana's sidecar finds the ConfigMap. @default { grafana_dashboard: '1' } */
  readonly labels?: Readonly<Record<string, string>>;
  /** Days left at which a certificate turns orange, and red. @default 21 and 7, the alerts' defaults */
  readonly certificateWarningDays?: number;
  readonly certificateCriticalDays?: number;
  /** Every location that probes (the spec's `locations`): two or more add a location variable and each location's status. @default - none */
  readonly locations?: readonly string[];
  /** Maintenance windows (the spec's `maintenance`), listed in a panel. @default - none */
  readonly maintenance?: readonly MaintenanceWindow[];
}

export class EndpointsDashboard extends Construct {
  /** Finds every EndpointsDashboard below `scope`. */
  static all(scope: IConstruct): EndpointsDashboard[] {
    return scope.node.findAll().filter((child): child is EndpointsDashboard => child instanceof EndpointsDashboard);
  }

  readonly dashboard: DashboardJson;
  readonly configMap: kplus.ConfigMap;

  constructor(scope: Construct, id: string, props: EndpointsDashboardProps) {
    super(scope, id);
    // The spec's defaults, filled as parseSpec fills a spec's dashboard.
    const settings = dashboardSettings(props);
    const options: DashboardOptions = {
      title: settings.title,
      uid: settings.uid,
      exporterUrl: props.exporter.externalUrl,
      certificateWarningDays: props.certificateWarningDays ?? DEFAULTS.alerts.thresholds.certificateWarningDays,
      certificateCriticalDays: props.certificateCriticalDays ?? DEFAULTS.alerts.thresholds.certificateCriticalDays,
      ...((props.locations?.length ?? 0) >= 2 ? { locations: props.locations } : {}),
      ...((props.maintenance?.length ?? 0) > 0 ? { maintenance: props.maintenance } : {}),
    };
    this.dashboard = buildDashboard(options);
    this.configMap = new kplus.ConfigMap(this, 'config-map', {
      metadata: { name: `${kubernetesObjectName(options.uid)}-dashboard`, labels: { ...probekitLabels({ component: 'dashboard' }), ...settings.labels } },
    });
    this.configMap.addData(`${options.uid}.json`, this.toJson());
  }

  /** The file name beside the chart's manifests: `<chart>.dashboard.json`. */
  get fileName(): string {
    return `${Chart.of(this).node.id}.dashboard.json`;
  }

  toJson(): string {
    return dashboardFileText(this.dashboard);
  }
}
