/**
 * Spec to Prometheus alerting rules: one group per job, with that job's thresholds, and one for the exporter itself.
 * The same groups are the rule file (single machine, any Prometheus's `rule_files`) and the PrometheusRule object's
 * spec (the Prometheus Operator writes its groups into a rule file as they are).
 *
 * Every alert carries `job` and `instance` (the target, or the exporter's address), because each expression keeps
 * the labels of the probe's series; its summary names the target, and `debug_url` links to the exporter's debug
 * output for it.
 *
 * Prometheus expands every label and annotation of a rule as a Go template: each text of the spec's put into one (a
 * job or module name, a threshold, the external URL) is written as a literal, so that it prints as written and runs
 * nothing, whatever a caller that skipped the spec's checks hands in.
 */
import { stringify } from 'yaml';
import { parseDuration } from '@probekit/exporter';
import { DEFAULTS, LOCATION_LABEL, majority, MODULE_LABEL, type Job, type Spec, type SpecModule } from '../model';
import { probeDebugUrl, statusPageUrl } from './debug-links';
import { discoveredTargetLabels } from './discovery';
import { CONFIG_RELOAD_SUCCESSFUL, PROBE_METRICS } from './probe-metrics';
import { EXPORTER_JOB_NAME } from './scrape-job';
import { goTemplateLiteral as literal } from './go-template';

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface RuleGroup {
  readonly name: string;
  /** How often the group is evaluated (`alerts.evaluationInterval`); absent, the Prometheus's global interval. */
  readonly interval?: string;
  readonly rules: readonly AlertRule[];
}

export interface RuleFile {
  readonly groups: readonly RuleGroup[];
}

/** The alerts' names, each once. */
export const ALERTS = {
  endpointDown: 'EndpointDown',
  httpStatus: 'EndpointHttpStatus',
  slow: 'EndpointSlow',
  certificateExpiringSoon: 'CertificateExpiringSoon',
  certificateExpiringCritical: 'CertificateExpiringCritical',
  certificateExpired: 'CertificateExpired',
  configReloadFailed: 'ExporterConfigReloadFailed',
  errorBudgetBurnFast: 'EndpointErrorBudgetBurnFast',
  errorBudgetBurnSlow: 'EndpointErrorBudgetBurnSlow',
  uptimeBelowObjective: 'EndpointUptimeBelowObjective',
  downFromLocation: 'EndpointDownFromLocation',
  locationSilent: 'ProbeLocationSilent',
} as const;

/** How long a location that sent probe results is remembered: it is silent when it has sent nothing since, for downFor. */
export const LOCATION_MEMORY = '1h';

/** The window an objective is measured over. */
export const OBJECTIVE_WINDOW = '30d';
const OBJECTIVE_WINDOW_DAYS = 30;

/**
 * Multi-window, multi-burn-rate alerts for a 30-day objective, as the SRE workbook sets them out: an alert
 * fires when the error rate over the long window is `factor` times what the objective allows (14.4 times spends
 * 2% of the month's budget in one hour, 6 times 5% in six hours), and the short window, a twelfth of the long
 * one, shows it is still going on, so the alert ends soon after the failures do. Both page: at these rates
 * the budget is gone in about two and five days.
 */
export const BURN_RATE_WINDOWS = [
  { alert: ALERTS.errorBudgetBurnFast, long: '1h', short: '5m', factor: 14.4 },
  { alert: ALERTS.errorBudgetBurnSlow, long: '6h', short: '30m', factor: 6 },
] as const;

const SECONDS_PER_DAY = 86_400;

/** A number as PromQL and people read it: no floating-point noise (14.4 * 0.001 is 0.0144, not 0.014400000000000001). */
function plain(value: number): string {
  return String(Number(value.toPrecision(12)));
}

/** A label matcher's value as a PromQL string literal (JSON's escapes are PromQL's). */
function quoted(value: string): string {
  return JSON.stringify(value);
}

/** Prometheus templates: the alert's labels and value. */
const TARGET = '{{ $labels.instance }}';
const JOB = '{{ $labels.job }}';

/** What the rules read of the spec: the locations and the quorum are optional (a spec from before them has neither). */
export type AlertRulesSpec = Pick<Spec, 'jobs' | 'modules' | 'exporter'> & { readonly locations?: Spec['locations']; readonly alerts?: Partial<Spec['alerts']> };

/**
 * With two or more locations the rules are written for the Prometheus (or ruler) that receives every location's
 * series, each with its `location` label: EndpointDown counts the locations that see a target fail, one location's
 * failure is EndpointDownFromLocation (a warning naming it), and a location that stopped sending is
 * ProbeLocationSilent. With one location or none, the rules are those of a single Prometheus.
 */
export function renderAlertRules(spec: AlertRulesSpec): RuleFile {
  const locations = spec.locations ?? [];
  const quorum: Quorum | undefined = locations.length >= 2 ? { locations, failing: spec.alerts?.failingLocations ?? majority(locations.length) } : undefined;
  const interval = spec.alerts?.evaluationInterval;
  const groups: RuleGroup[] = [
    ...spec.jobs.map((job) => ({ name: `probekit:${job.name}`, rules: jobRules(job, spec.modules, spec.exporter.externalUrl, quorum) })),
    ...(quorum ? [locationGroup(quorum, spec.alerts?.thresholds?.downFor ?? DEFAULTS.alerts.thresholds.downFor)] : []),
    exporterGroup(spec.exporter.externalUrl),
  ];
  return { groups: interval === undefined ? groups : groups.map((group) => ({ name: group.name, interval, rules: group.rules })) };
}

/** The rule file's text. */
export function renderAlertRulesYaml(spec: AlertRulesSpec): string {
  return stringify(renderAlertRules(spec), { lineWidth: 0 });
}

/** The alert's module: the series' `module` label, which every target group carries (its own module, or the job's). */
const MODULE = `{{ $labels.${MODULE_LABEL} }}`;

/** Every location, and how many of them must see a target fail. */
interface Quorum {
  readonly locations: readonly string[];
  readonly failing: number;
}

/**
 * The labels an alert about a target keeps when the locations' series are counted together: the target's own
 * (job, instance, module, the job's and its targets' labels, and for a discovered target its namespace and
 * object), not the location's.
 */
function targetLabels(job: Job): string[] {
  const names = new Set(['job', 'instance', MODULE_LABEL, ...Object.keys(job.labels), ...job.targets.flatMap((target) => Object.keys(target.labels)), ...discoveredTargetLabels(job)]);
  names.delete(LOCATION_LABEL);
  return [...names];
}

function jobRules(job: Job, modules: Readonly<Record<string, SpecModule>>, externalUrl: string, quorum?: Quorum): AlertRule[] {
  const selector = `{job=${quoted(job.name)}}`;
  const series = (metric: string): string => `${metric}${selector}`;
  const module = modules[job.module];
  const debugUrl = probeDebugUrl(literal(externalUrl), { module: `{{ $labels.${MODULE_LABEL} | urlquery }}`, target: '{{ $labels.instance | urlquery }}' });
  const annotations = (summary: string, description: string): Record<string, string> => ({ summary, description, debug_url: debugUrl });
  // The expressions keep the series' job label; the rules say it too, which is what tells one job's rules from
  // another's of the same alert (promtool refuses two rules of one name with the same labels).
  const labels = (severity: string): Record<string, string> => ({ severity, job: literal(job.name) });
  const { certificateWarningDays, certificateCriticalDays } = job.alerts;
  const [downFor, slowerThan, slowFor] = [job.alerts.downFor, job.alerts.slowerThan, job.alerts.slowFor].map(literal);
  const slowSeconds = parseDuration(job.alerts.slowerThan)! / 1000;
  const daysLeft = `(${series(PROBE_METRICS.certificateExpiry)} - time()) / ${SECONDS_PER_DAY}`;

  const rules: AlertRule[] = quorum
    ? locatedDownRules(job, quorum, series(PROBE_METRICS.success), labels, annotations, downFor)
    : [
        {
          alert: ALERTS.endpointDown,
          expr: `${series(PROBE_METRICS.success)} == 0`,
          for: job.alerts.downFor,
          labels: labels('critical'),
          annotations: annotations(`${TARGET} is down`, `Every probe of ${TARGET} (job ${JOB}, module ${MODULE}) has failed for ${downFor}.`),
        },
      ];
  if (module?.prober === 'http') {
    rules.push({
      alert: ALERTS.httpStatus,
      expr: jobHttpStatusExpression(job, modules),
      for: job.alerts.downFor,
      labels: labels('warning'),
      annotations: annotations(`${TARGET} answers HTTP {{ $value }}`, `${TARGET} (job ${JOB}) has answered with a status outside 2xx and 3xx for ${downFor}.`),
    });
  }
  rules.push(
    {
      alert: ALERTS.slow,
      expr: `${series(PROBE_METRICS.duration)} > ${plain(slowSeconds)}`,
      for: job.alerts.slowFor,
      labels: labels('warning'),
      annotations: annotations(`${TARGET} is slow: its probe took {{ $value | humanizeDuration }}`, `Every probe of ${TARGET} (job ${JOB}) has taken longer than ${slowerThan} for ${slowFor}.`),
    },
    // No `for`: a certificate's expiry does not flap, one probe tells it.
    {
      alert: ALERTS.certificateExpiringSoon,
      expr: `${daysLeft} < ${plain(certificateWarningDays)} >= ${plain(certificateCriticalDays)}`,
      labels: labels('warning'),
      annotations: annotations(
        `The TLS certificate of ${TARGET} expires in {{ printf "%.1f" $value }} days`,
        `A certificate ${TARGET} (job ${JOB}) presents expires in fewer than ${plain(certificateWarningDays)} days; renew it.`,
      ),
    },
    {
      alert: ALERTS.certificateExpiringCritical,
      expr: `${daysLeft} < ${plain(certificateCriticalDays)} >= 0`,
      labels: labels('critical'),
      annotations: annotations(
        `The TLS certificate of ${TARGET} expires in {{ printf "%.1f" $value }} days`,
        `A certificate ${TARGET} (job ${JOB}) presents expires in fewer than ${plain(certificateCriticalDays)} days; renew it now.`,
      ),
    },
    {
      // Only a module that skips verification still completes the handshake, and reports the expiry, once the
      // certificate has expired; a verifying module fails the probe instead, and EndpointDown tells.
      alert: ALERTS.certificateExpired,
      expr: `(time() - ${series(PROBE_METRICS.certificateExpiry)}) / ${SECONDS_PER_DAY} > 0`,
      labels: labels('critical'),
      annotations: annotations(`The TLS certificate of ${TARGET} expired {{ printf "%.1f" $value }} days ago`, `${TARGET} (job ${JOB}) presents an expired certificate; renew it.`),
    },
  );
  if (job.slo !== undefined) rules.push(...objectiveRules(job.slo, series(PROBE_METRICS.success), labels, annotations, quorum && { ...quorum, by: targetLabels(job) }));
  return rules;
}

/**
 * EndpointDown once per target when at least `quorum.failing` locations see it fail, or every location still
 * sending does (a silent location is no vote for up); each location's failure on its own is a warning that names it
 * (Alertmanager's file inhibits it while the target's EndpointDown fires). Both hold for downFor, evaluation after
 * evaluation: a target that flaps resets them.
 */
function locatedDownRules(
  job: Job,
  quorum: Quorum,
  success: string,
  labels: (severity: string) => Record<string, string>,
  annotations: (summary: string, description: string) => Record<string, string>,
  downFor: string,
): AlertRule[] {
  const by = `by (${targetLabels(job).join(', ')})`;
  const failing = `count ${by} (${success} == 0)`;
  const locations = quorum.locations.length;
  return [
    {
      alert: ALERTS.endpointDown,
      expr: `${failing} >= ${quorum.failing} or ${failing} == count ${by} (${success})`,
      for: job.alerts.downFor,
      labels: labels('critical'),
      annotations: annotations(
        `${TARGET} is down from {{ $value }} of ${locations} locations`,
        `Every probe of ${TARGET} (job ${JOB}, module ${MODULE}) from {{ $value }} of the ${locations} locations has failed for ${downFor}; it pages from ${quorum.failing} (or from every location still sending).`,
      ),
    },
    {
      alert: ALERTS.downFromLocation,
      expr: `${success} == 0`,
      for: job.alerts.downFor,
      labels: labels('warning'),
      annotations: annotations(
        `${TARGET} fails from ${LOCATION}`,
        `Every probe of ${TARGET} (job ${JOB}) from location ${LOCATION} has failed for ${downFor}; fewer than ${quorum.failing} of the ${locations} locations see it fail, so it does not page: look at ${LOCATION}'s network.`,
      ),
    },
  ];
}

const LOCATION = `{{ $labels.${LOCATION_LABEL} }}`;

/** A location name as a literal in a PromQL regexp (names hold lower-case letters, digits, -, _ and .). */
function locationPattern(locations: readonly string[]): string {
  return quoted(locations.map(regexpQuoted).join('|'));
}

/**
 * ProbeLocationSilent: a location that sent probe results within LOCATION_MEMORY (or is already silent) and has sent
 * none since, for downFor. A location that never sent (a fresh start, one not deployed yet) is not known to be silent,
 * and stays so. Its missing series are no vote either way in EndpointDown.
 */
function locationGroup(quorum: Quorum, downFor: string): RuleGroup {
  const matcher = `{${LOCATION_LABEL}=~${locationPattern(quorum.locations)}}`;
  const every = quorum.locations.map((name) => `label_replace(vector(1), ${quoted(LOCATION_LABEL)}, ${quoted(name)}, "", "")`).join(' or ');
  const sending = `group by (${LOCATION_LABEL}) (${PROBE_METRICS.success}${matcher})`;
  const known = `group by (${LOCATION_LABEL}) (present_over_time(${PROBE_METRICS.success}${matcher}[${LOCATION_MEMORY}])) or group by (${LOCATION_LABEL}) (ALERTS{alertname=${quoted(ALERTS.locationSilent)}})`;
  return {
    name: 'probekit:locations',
    rules: [
      {
        alert: ALERTS.locationSilent,
        expr: `((${every}) unless on (${LOCATION_LABEL}) ${sending}) and on (${LOCATION_LABEL}) (${known})`,
        for: downFor,
        labels: { severity: 'warning' },
        annotations: {
          summary: `Location ${LOCATION} sends no probe results`,
          description: `No probe result from location ${LOCATION} has arrived for ${literal(downFor)}: its agent, its exporter or its remote write stopped. Its targets are watched from the other locations only; it counts neither as up nor as down.`,
        },
      },
    ],
  };
}

/**
 * Status codes outside 2xx and 3xx, leaving out 0 (no answer at all: EndpointDown tells) and the codes the module
 * itself declares valid (a module that expects 401 from a protected endpoint).
 */
function httpStatusExpression(statusCode: string, validCodes: readonly number[]): string {
  const outside = `${statusCode} > 0 < 200 or ${statusCode} >= 400`;
  const expected = validCodes.filter((code) => code < 200 || code >= 400);
  if (expected.length === 0) return outside;
  return `(${outside}) unless (${expected.map((code) => `${statusCode} == ${code}`).join(' or ')})`;
}

/**
 * The HTTP status rule of a job whose targets may use several modules, each with its own valid codes (a target
 * that answers 401 by design): one expression per set of codes, over the modules that declare it.
 */
function jobHttpStatusExpression(job: Job, modules: Readonly<Record<string, SpecModule>>): string {
  const byCodes = new Map<string, { codes: readonly number[]; modules: string[] }>();
  for (const name of new Set(job.targets.map((target) => target.module))) {
    const codes = modules[name]?.http?.valid_status_codes ?? [];
    const key = JSON.stringify(codes.filter((code) => code < 200 || code >= 400));
    const entry = byCodes.get(key) ?? { codes, modules: [] };
    entry.modules.push(name);
    byCodes.set(key, entry);
  }
  const metric = PROBE_METRICS.httpStatusCode;
  if (byCodes.size <= 1) return httpStatusExpression(`${metric}{job=${quoted(job.name)}}`, [...byCodes.values()][0]?.codes ?? []);
  return [...byCodes.values()]
    .map(({ codes, modules: names }) => {
      const matcher = names.length === 1 ? `${MODULE_LABEL}=${quoted(names[0])}` : `${MODULE_LABEL}=~${quoted(names.map(regexpQuoted).join('|'))}`;
      return `(${httpStatusExpression(`${metric}{job=${quoted(job.name)}, ${matcher}}`, codes)})`;
    })
    .join(' or ');
}

/** A module's name as a literal in a PromQL regexp: its dots escaped (names hold letters, digits, _, - and .). */
function regexpQuoted(name: string): string {
  return name.replace(/[.]/g, '\\.');
}

/**
 * With locations, a ratio is the one the quorum's locations see: the failing-th highest of the locations' ratios,
 * PromQL's quantile at (locations - failing) / (locations - 1), which falls on a location exactly.
 */
function objectiveRules(
  slo: number,
  success: string,
  labels: (severity: string) => Record<string, string>,
  annotations: (summary: string, description: string) => Record<string, string>,
  quorum?: Quorum & { readonly by: readonly string[] },
): AlertRule[] {
  const budget = (100 - slo) / 100;
  const acrossLocations = (ratio: string): string =>
    quorum ? `quantile by (${quorum.by.join(', ')}) (${plain((quorum.locations.length - quorum.failing) / (quorum.locations.length - 1))}, ${ratio})` : ratio;
  const failedRatio = (window: string): string => (quorum ? `(${acrossLocations(`1 - avg_over_time(${success}[${window}])`)})` : `(1 - avg_over_time(${success}[${window}]))`);
  const burns = BURN_RATE_WINDOWS.map(({ alert, long, short, factor }): AlertRule => {
    const threshold = plain(factor * budget);
    return {
      alert,
      expr: `${failedRatio(long)} > ${threshold} and ${failedRatio(short)} > ${threshold}`,
      labels: { ...labels('critical'), long_window: long, short_window: short },
      annotations: annotations(
        `${TARGET} is spending its error budget ${plain(factor)} times too fast`,
        `More than ${plain(factor * budget * 100)}% of the probes of ${TARGET} (job ${JOB}) failed over the last ${long} and ${short}; at this rate the ${OBJECTIVE_WINDOW} budget of ${plain(budget * 100)}% (objective ${plain(slo)}%) is gone in ${plain(Number((OBJECTIVE_WINDOW_DAYS / factor).toFixed(1)))} days.`,
      ),
    };
  });
  return [
    ...burns,
    {
      alert: ALERTS.uptimeBelowObjective,
      expr: `${quorum ? `1 - ${failedRatio(OBJECTIVE_WINDOW)}` : `avg_over_time(${success}[${OBJECTIVE_WINDOW}])`} < ${plain(slo / 100)}`,
      labels: labels('warning'),
      annotations: annotations(
        `${TARGET} is below its objective: {{ $value | humanizePercentage }} of probes succeeded over ${OBJECTIVE_WINDOW}`,
        `The objective of ${TARGET} (job ${JOB}) is ${plain(slo)}% of probes succeeding over ${OBJECTIVE_WINDOW}; its error budget is spent.`,
      ),
    },
  ];
}

function exporterGroup(externalUrl: string): RuleGroup {
  return {
    name: 'probekit:exporter',
    rules: [
      {
        alert: ALERTS.configReloadFailed,
        expr: `${CONFIG_RELOAD_SUCCESSFUL}{job=${quoted(EXPORTER_JOB_NAME)}} == 0`,
        labels: { severity: 'warning' },
        annotations: {
          summary: `The exporter at ${TARGET} failed to reload its config`,
          description: `The exporter at ${TARGET} (job ${JOB}) refused its new config file and keeps probing with the previous one; its log names every problem (or run it with --config.check).`,
          debug_url: statusPageUrl(literal(externalUrl)),
        },
      },
    ],
  };
}
