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

/** The files the spec asks for: the dashboard unless `dashboard.enabled` is false, the rules unless `alerts.enabled` is. */
export function renderHostMonitoringFiles(spec: Spec, vendor: string): HostFile[] {
  const paths = hostMonitoringPaths(vendor, spec.dashboard.uid);
  return [
    ...(spec.dashboard.enabled ? [{ path: paths.dashboard, content: renderDashboardJson(spec), mode: 0o644 }] : []),
    ...(spec.alerts.enabled ? [{ path: paths.rules, content: renderAlertRulesYaml(spec), mode: 0o644 }] : []),
  ];
}
