/**
 * The spec's alerting settings across its parts: locations (this deployment's, and every one that probes the jobs),
 * how many must see a target fail, maintenance windows (their jobs and targets must be the spec's), Alertmanager's
 * receivers and timings, and `downFor` against the scrape interval. Problems name the field as written and the fix.
 */
import { closestName, DURATION_HINT, formatDuration, parseDuration, type FieldPath, type Problem } from '@probekit/exporter';
import { DEFAULTS, type AlertRouting, type AlertsInput, type Job, type MaintenanceWindow, type MaintenanceWindowInput, type Receiver } from './spec';

/** The label every series of a located deployment carries. */
export const LOCATION_LABEL = DEFAULTS.locationLabel;

export interface AlertingFields {
  readonly location?: string;
  readonly locations?: readonly string[];
  readonly maintenance?: readonly MaintenanceWindowInput[];
  readonly alerts?: AlertsInput;
  /** Whether an AlertmanagerConfig will be made, whose time intervals have no time zone. */
  readonly alertmanagerConfig: boolean;
}

export interface AlertingSettings {
  readonly location?: string;
  readonly locations: readonly string[];
  readonly failingLocations?: number;
  readonly evaluationInterval?: string;
  readonly routing: AlertRouting;
  readonly maintenance: readonly MaintenanceWindow[];
}

/** The majority of `count` locations: 2 of 3, 3 of 4. */
export function majority(count: number): number {
  return Math.floor(count / 2) + 1;
}

/** Locations, quorum, routing and windows checked against each other and the jobs; problems go to `problems`. */
export function alertingSettings(fields: AlertingFields, jobs: ReadonlyArray<readonly [number, Job]>, problems: Problem[]): AlertingSettings {
  const { location, alerts = {} } = fields;
  const locations = fields.locations ?? (location === undefined ? [] : [location]);
  locations.forEach((name, index) => {
    const first = locations.indexOf(name);
    if (first !== index) problems.push({ path: ['locations', index], message: `"${name}" is already locations[${first}]; list each location once` });
  });
  if (location !== undefined && !locations.includes(location)) {
    problems.push({ path: ['location'], message: `"${location}" is not one of locations (${locations.join(', ')}); add it to locations, or name one of them` });
  }
  const { failingLocations } = alerts;
  if (failingLocations !== undefined && locations.length < 2) {
    problems.push({
      path: ['alerts', 'failingLocations'],
      message: `counts locations that see a target fail, and the spec lists ${locations.length === 0 ? 'none' : 'one'}; list two or more under locations, or remove failingLocations`,
    });
  } else if (failingLocations !== undefined && failingLocations > locations.length) {
    problems.push({ path: ['alerts', 'failingLocations'], message: `is ${failingLocations}, more than the ${locations.length} locations; at most ${locations.length}` });
  }
  for (const field of ['evaluationInterval', 'groupWait', 'groupInterval', 'repeatInterval'] as const) {
    const text = alerts[field];
    if (text !== undefined && !(parseDuration(text)! > 0)) problems.push({ path: ['alerts', field], message: `"${text}" must be ${DURATION_HINT}, more than 0` });
  }
  if (locations.length >= 2 || location !== undefined) problems.push(...locationLabelProblems(jobs, location));
  return {
    ...(location === undefined ? {} : { location }),
    locations,
    ...(locations.length >= 2 ? { failingLocations: failingLocations ?? majority(locations.length) } : {}),
    ...(alerts.evaluationInterval === undefined ? {} : { evaluationInterval: alerts.evaluationInterval }),
    routing: routing(alerts, problems),
    maintenance: maintenanceWindows(fields.maintenance ?? [], jobs, fields.alertmanagerConfig, problems),
  };
}

/** A job's or a target's own `location` label would say another place than the series' location. */
function locationLabelProblems(jobs: ReadonlyArray<readonly [number, Job]>, location: string | undefined): Problem[] {
  const why = `is set by probekit to the location that probes (${location === undefined ? "the spec's location" : `location: ${location}`}), which the rules count`;
  return jobs.flatMap(([index, job]): Problem[] => [
    ...(LOCATION_LABEL in job.labels ? [{ path: ['jobs', index, 'labels', LOCATION_LABEL], message: `${why}; remove it, or name the label otherwise` }] : []),
    ...job.targets.flatMap((target, at) =>
      LOCATION_LABEL in target.labels ? [{ path: ['jobs', index, 'targets', at, 'labels', LOCATION_LABEL], message: `${why}; remove it, or name the label otherwise` }] : [],
    ),
  ]);
}

function routing(alerts: AlertsInput, problems: Problem[]): AlertRouting {
  const written = alerts.receivers ?? [];
  const seen = new Map<string, number>();
  written.forEach(({ name }, index) => {
    const first = seen.get(name);
    if (first === undefined) seen.set(name, index);
    else problems.push({ path: ['alerts', 'receivers', index, 'name'], message: `"${name}" is already alerts.receivers[${first}].name; name each receiver once` });
  });
  const receivers: Receiver[] = written.map((receiver) => ({
    name: receiver.name,
    severities: receiver.severities ?? (receiver.name === DEFAULTS.alertmanager.receiver ? [] : DEFAULTS.alertmanager.severities),
    ...(receiver.webhookUrl === undefined ? {} : { webhookUrl: receiver.webhookUrl }),
  }));
  // Alertmanager's root route needs a receiver: the one named default takes what no other does, and delivers nothing unless given a webhook.
  if (!receivers.some((receiver) => receiver.name === DEFAULTS.alertmanager.receiver)) receivers.unshift({ name: DEFAULTS.alertmanager.receiver, severities: [] });
  return {
    receivers,
    groupWait: alerts.groupWait ?? DEFAULTS.alertmanager.groupWait,
    groupInterval: alerts.groupInterval ?? DEFAULTS.alertmanager.groupInterval,
    repeatInterval: alerts.repeatInterval ?? DEFAULTS.alertmanager.repeatInterval,
  };
}

/** Whether `zone` is an IANA time zone this machine (and so, most likely, Alertmanager's tz database) knows. */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return !/^[+-]/.test(zone);
  } catch {
    return false;
  }
}

const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT', 'Etc/Zulu', 'Zulu', 'Universal', 'Etc/Universal']);

function maintenanceWindows(input: readonly MaintenanceWindowInput[], jobs: ReadonlyArray<readonly [number, Job]>, alertmanagerConfig: boolean, problems: Problem[]): MaintenanceWindow[] {
  const jobNames = jobs.map(([, job]) => job.name);
  const names = new Map<string, number>();
  return input.map((window, index): MaintenanceWindow => {
    const at = (...rest: Array<string | number>): FieldPath => ['maintenance', index, ...rest];
    const first = names.get(window.name);
    if (first === undefined) names.set(window.name, index);
    else problems.push({ path: at('name'), message: `"${window.name}" is already maintenance[${first}].name; name each window once` });
    window.jobs.forEach((name, position) => {
      if (jobNames.includes(name)) return;
      const suggestion = closestName(name, jobNames);
      problems.push({ path: at('jobs', position), message: `"${name}" is not a job of the spec; ${suggestion ? `did you mean "${suggestion}"? ` : ''}name one of: ${jobNames.join(', ')}` });
    });
    const targets = new Set(jobs.filter(([, job]) => window.jobs.includes(job.name)).flatMap(([, job]) => job.targets.map((target) => target.target)));
    (window.targets ?? []).forEach((target, position) => {
      if (!targets.has(target))
        problems.push({ path: at('targets', position), message: `"${target}" is not a target of ${window.jobs.join(', ')}; list it as that job lists it, or add its job to jobs` });
    });
    const { weekly, once } = window;
    if ((weekly === undefined) === (once === undefined)) {
      problems.push({ path: at(), message: 'give one of weekly: { days, from, to, timezone } (every week) or once: { from, to } (RFC 3339 times)' });
    }
    const timezone = weekly?.timezone ?? DEFAULTS.alertmanager.timezone;
    if (weekly !== undefined) {
      if (weekly.from === weekly.to) problems.push({ path: at('weekly', 'to'), message: `is ${weekly.to}, as from is: the window would be empty; give the time it ends` });
      if (!isTimeZone(timezone)) problems.push({ path: at('weekly', 'timezone'), message: `"${timezone}" is not an IANA time zone; write one such as Europe/Zurich, America/New_York or UTC` });
      else if (alertmanagerConfig && !UTC_ZONES.has(timezone)) {
        problems.push({
          path: at('weekly', 'timezone'),
          message: `is ${timezone}, but the Operator's AlertmanagerConfig (v1alpha1) has no time zone: its windows are UTC; write the window in UTC (timezone: UTC), or set operator.alertmanagerConfig: false and load <chart>.alertmanager.yaml, which keeps the zone`,
        });
      }
    }
    if (once !== undefined) {
      const [from, to] = [Date.parse(once.from), Date.parse(once.to)];
      for (const field of ['from', 'to'] as const) {
        if (Date.parse(once[field]) % 60_000 !== 0)
          problems.push({ path: at('once', field), message: `"${once[field]}" is not on a minute; Alertmanager's windows are in whole minutes, so drop the seconds` });
      }
      if (from >= to) problems.push({ path: at('once', 'to'), message: `${once.to} is not after from (${once.from}); give the time the window ends` });
    }
    return {
      name: window.name,
      jobs: window.jobs,
      ...(window.targets === undefined ? {} : { targets: window.targets }),
      ...(weekly === undefined ? {} : { weekly: { days: weekly.days, from: weekly.from, to: weekly.to, timezone } }),
      ...(once === undefined ? {} : { once }),
    };
  });
}

/**
 * `downFor` is the one knob of flap damping: it holds ⌊downFor / interval⌋ consecutive failed probes. Shorter than two
 * scrape intervals, one failed probe would page. `writtenAt` is where the job's downFor is written (its own alerts, the
 * spec's thresholds), or undefined for the default, whose fix is the interval.
 */
export function downForProblems(job: Job, index: number, writtenAt: FieldPath | undefined): Problem[] {
  const downFor = parseDuration(job.alerts.downFor);
  if (downFor === undefined) return [];
  const intervals: Array<[number, FieldPath, string]> = [[parseDuration(job.scrapeInterval) ?? 0, ['jobs', index, 'scrapeInterval'], job.scrapeInterval]];
  job.targets.forEach((target, at) => {
    if (target.scrapeInterval !== job.scrapeInterval) intervals.push([parseDuration(target.scrapeInterval) ?? 0, ['jobs', index, 'targets', at, 'scrapeInterval'], target.scrapeInterval]);
  });
  const [longest, intervalPath, intervalText] = intervals.reduce((a, b) => (b[0] > a[0] ? b : a));
  if (longest === 0 || downFor >= 2 * longest) return [];
  const least = formatDuration(2 * longest);
  const shorter = `shorter than two scrape intervals of job "${job.name}" (2 × ${intervalText} = ${least}), so one failed probe would fire EndpointDown`;
  return [
    writtenAt === undefined
      ? {
          path: intervalPath,
          message: `is ${intervalText}: the default downFor ${job.alerts.downFor} is ${shorter}; scrape at most every ${formatDuration(downFor / 2)}, or set alerts.downFor to at least ${least}`,
        }
      : { path: writtenAt, message: `is ${job.alerts.downFor}, ${shorter}; raise downFor to at least ${least}, or scrape more often` },
  ];
}
