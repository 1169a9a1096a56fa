/**
 * The dashboard and the alert rules as files of the single-machine form, under the agent's vendor directory: the
 * dashboard's JSON for Grafana (import it, or point a file provider at the folder) and the rule file for the
 * Prometheus that evaluates the agent's metrics (its `rule_files`).
 */
import type { Spec } from '../model';
import { renderAlertRulesYaml } from './alert-rules';
import { renderDashboardJson } from './dashboard';
import type { HostFile } from './host-files';

export interface HostMonitoringPaths {
  readonly dashboard: string;
  readonly rules: string;
}

export function hostMonitoringPaths(vendor: string, dashboardUid: string): HostMonitoringPaths {
  return { dashboard: `/etc/${vendor}/dashboards/${dashboardUid}.json`, rules: `/etc/${vendor}/rules/probekit.rules.yaml` };
}

/**
 * The files the spec asks for: the dashboard unless `dashboard.enabled` is false, the rules unless `alerts.enabled`
 * is. Their debug links go to the machine's exporter, at the host form's external URL (where it listens, unless the
 * spec says otherwise), not at the cluster form's.
 */
export function renderHostMonitoringFiles(spec: Spec, vendor: string): HostFile[] {
  const paths = hostMonitoringPaths(vendor, spec.dashboard.uid);
  const onHost: Spec = { ...spec, exporter: { ...spec.exporter, externalUrl: spec.host.externalUrl } };
  return [
    ...(spec.dashboard.enabled ? [{ path: paths.dashboard, content: renderDashboardJson(onHost), mode: 0o644 }] : []),
    ...(spec.alerts.enabled ? [{ path: paths.rules, content: renderAlertRulesYaml(onHost), mode: 0o644 }] : []),
  ];
}
