/**
 * Spec to Alertmanager's routing of probekit's alerts: `<chart>.alertmanager.yaml` (Alertmanager's own file) and,
 * for the Prometheus Operator, an AlertmanagerConfig (`monitoring.coreos.com/v1alpha1`) with the same routes.
 *
 * Each receiver takes the severities it names (critical, by default); the receiver named `default` takes what no
 * other takes. A maintenance window mutes the routes of its jobs (or targets) while it is on: the rules keep firing
 * in Prometheus, Alertmanager sends nothing for them. Routes are made per job (and per target a window names), each
 * muted by every window that covers it, so that overlapping windows all apply. With two or more locations a
 * target's EndpointDown inhibits its EndpointDownFromLocation warnings.
 */
import { stringify } from 'yaml';
import { DEFAULTS, kubernetesObjectName, type MaintenanceWindow, type Spec, type WeekDay } from '../model';
import { WEEK_DAYS } from '../model/spec';
import { ALERTS } from './alert-rules';

export const ALERTMANAGER_CONFIG_API_VERSION = 'monitoring.coreos.com/v1alpha1';

/** The parts of the spec the routing reads. */
export type RoutingSpec = Pick<Spec, 'jobs' | 'maintenance' | 'locations'> & { readonly alerts: Pick<Spec['alerts'], 'routing'> };

/** Labels every alert is grouped by: one notification per alert and target, whichever locations see it. */
export const GROUP_BY = ['alertname', 'job', 'instance'] as const;

interface Matcher {
  readonly name: string;
  readonly value: string;
  readonly type: '=' | '=~';
}

interface Route {
  readonly receiver?: string;
  readonly matchers: readonly Matcher[];
  readonly muted?: readonly string[];
  readonly continue?: boolean;
  readonly routes?: readonly Route[];
}

/** One span of a window: on these week days, or on one date (UTC), from start to end (HH:MM, end 24:00 at most). */
interface TimeSpan {
  readonly weekdays?: readonly WeekDay[];
  readonly date?: { readonly year: number; readonly month: number; readonly days: readonly [number, number] };
  readonly start: string;
  readonly end: string;
  readonly location?: string;
}

interface Routing {
  readonly route: Route;
  readonly receivers: Spec['alerts']['routing']['receivers'];
  readonly intervals: ReadonlyArray<{ readonly name: string; readonly spans: readonly TimeSpan[] }>;
  readonly inhibitDownFromLocation: boolean;
}

/** A value as Alertmanager's regexp matches it literally (RE2, anchored). */
function regexpLiteral(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

function severityMatcher(severities: readonly string[]): Matcher {
  return severities.length === 1 ? { name: 'severity', value: severities[0], type: '=' } : { name: 'severity', value: severities.map(regexpLiteral).join('|'), type: '=~' };
}

/** The routing as data, shared by the file and the AlertmanagerConfig. */
function routing(spec: RoutingSpec): Routing {
  const { receivers } = spec.alerts.routing;
  const severityRoutes = (muted?: readonly string[]): Route[] =>
    receivers
      .filter((receiver) => receiver.severities.length > 0)
      .map((receiver) => ({ receiver: receiver.name, matchers: [severityMatcher(receiver.severities)], ...(muted && { muted }), continue: true }));
  const windowRoutes: Route[] = [];
  for (const job of spec.jobs) {
    const covering = spec.maintenance.filter((window) => window.jobs.includes(job.name));
    if (covering.length === 0) continue;
    const whole = covering.filter((window) => window.targets === undefined).map((window) => window.name);
    const targets = [...new Set(covering.flatMap((window) => window.targets ?? []))].filter((target) => job.targets.some((candidate) => candidate.target === target));
    for (const target of targets) {
      const muted = [...whole, ...covering.filter((window) => window.targets?.includes(target)).map((window) => window.name)];
      const matchers: Matcher[] = [
        { name: 'job', value: job.name, type: '=' },
        { name: 'instance', value: target, type: '=' },
      ];
      windowRoutes.push({ matchers, muted, routes: severityRoutes(muted) });
    }
    if (whole.length > 0) windowRoutes.push({ matchers: [{ name: 'job', value: job.name, type: '=' }], muted: whole, routes: severityRoutes(whole) });
  }
  return {
    route: { receiver: DEFAULTS.alertmanager.receiver, matchers: [], routes: [...windowRoutes, ...severityRoutes()] },
    receivers,
    intervals: spec.maintenance.map((window) => ({ name: window.name, spans: windowSpans(window) })),
    inhibitDownFromLocation: spec.locations.length >= 2,
  };
}

const nextDay = (day: WeekDay): WeekDay => WEEK_DAYS[(WEEK_DAYS.indexOf(day) + 1) % WEEK_DAYS.length];
const twoDigits = (value: number): string => String(value).padStart(2, '0');

/** A window as spans of time: a weekly one ending before it starts runs into the next day; a one-off one is split at UTC midnights. */
export function windowSpans(window: MaintenanceWindow): TimeSpan[] {
  if (window.weekly) {
    const { days, from, to, timezone } = window.weekly;
    if (to > from) return [{ weekdays: days, start: from, end: to, location: timezone }];
    const spans: TimeSpan[] = [{ weekdays: days, start: from, end: '24:00', location: timezone }];
    if (to !== '00:00') spans.push({ weekdays: days.map(nextDay), start: '00:00', end: to, location: timezone });
    return spans;
  }
  const spans: TimeSpan[] = [];
  const end = Date.parse(window.once!.to);
  for (let start = Date.parse(window.once!.from); start < end;) {
    const day = new Date(start);
    const midnight = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
    const until = Math.min(end, midnight);
    const clock = (time: number): string => (time === midnight ? '24:00' : `${twoDigits(new Date(time).getUTCHours())}:${twoDigits(new Date(time).getUTCMinutes())}`);
    const span: TimeSpan = { date: { year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, days: [day.getUTCDate(), day.getUTCDate()] }, start: clock(start), end: clock(until) };
    // Whole days in a row of one month are one span.
    const last = spans.at(-1);
    if (last?.date && span.start === '00:00' && span.end === '24:00' && last.start === '00:00' && last.end === '24:00' && last.date.month === span.date!.month && last.date.year === span.date!.year) {
      spans[spans.length - 1] = { ...last, date: { ...last.date, days: [last.date.days[0], span.date!.days[1]] } };
    } else spans.push(span);
    start = until;
  }
  return spans;
}

/** When a window is on, in words: `every sunday, 02:00 to 04:00 Europe/Zurich`, or `from <RFC 3339> to <RFC 3339>`. */
export function windowSchedule(window: MaintenanceWindow): string {
  return window.weekly ? `every ${window.weekly.days.join(', ')}, ${window.weekly.from} to ${window.weekly.to} ${window.weekly.timezone}` : `from ${window.once!.from} to ${window.once!.to}`;
}

/** The week day and wall-clock time (HH:MM) at `at` in `zone`, as Alertmanager reads a span's location. */
function wallClock(at: Date, zone: string): { weekday: WeekDay; year: number; month: number; day: number; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'long', year: 'numeric', month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return { weekday: parts.weekday!.toLowerCase() as WeekDay, year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), time: `${parts.hour}:${parts.minute}` };
}

/** Whether `window` is on at `at`: one of its spans holds that moment, as Alertmanager's time intervals read them. */
export function windowIsOn(window: MaintenanceWindow, at: Date): boolean {
  return windowSpans(window).some((span) => {
    const clock = wallClock(at, span.location ?? DEFAULTS.alertmanager.timezone);
    if (clock.time < span.start || clock.time >= span.end) return false;
    if (span.weekdays) return span.weekdays.includes(clock.weekday);
    const { year, month, days } = span.date!;
    return clock.year === year && clock.month === month && clock.day >= days[0] && clock.day <= days[1];
  });
}

/** A matcher as Alertmanager's file writes it: `name="value"`, the value quoted with its quotes and backslashes escaped. */
function matcherText(matcher: Matcher): string {
  return `${matcher.name}${matcher.type}${JSON.stringify(matcher.value)}`;
}

interface FileRoute {
  receiver?: string;
  matchers?: string[];
  mute_time_intervals?: readonly string[];
  continue?: boolean;
  routes?: FileRoute[];
}

function fileRoute(route: Route): FileRoute {
  return {
    ...(route.receiver && { receiver: route.receiver }),
    ...(route.matchers.length > 0 && { matchers: route.matchers.map(matcherText) }),
    ...(route.muted && { mute_time_intervals: route.muted }),
    ...(route.continue && { continue: true }),
    ...(route.routes && route.routes.length > 0 && { routes: route.routes.map(fileRoute) }),
  };
}

function fileSpan(span: TimeSpan): Record<string, unknown> {
  return {
    times: [{ start_time: span.start, end_time: span.end }],
    ...(span.weekdays && { weekdays: span.weekdays }),
    ...(span.date && {
      days_of_month: [span.date.days[0] === span.date.days[1] ? String(span.date.days[0]) : `${span.date.days[0]}:${span.date.days[1]}`],
      months: [String(span.date.month)],
      years: [String(span.date.year)],
    }),
    location: span.location ?? DEFAULTS.alertmanager.timezone,
  };
}

/** Alertmanager's configuration file (`<chart>.alertmanager.yaml`), as data. */
export function renderAlertmanagerConfig(spec: RoutingSpec): Record<string, unknown> {
  const { route, receivers, intervals, inhibitDownFromLocation } = routing(spec);
  const { groupWait, groupInterval, repeatInterval } = spec.alerts.routing;
  return {
    route: { ...fileRoute(route), group_by: [...GROUP_BY], group_wait: groupWait, group_interval: groupInterval, repeat_interval: repeatInterval },
    ...(inhibitDownFromLocation && {
      inhibit_rules: [
        {
          source_matchers: [matcherText({ name: 'alertname', value: ALERTS.endpointDown, type: '=' })],
          target_matchers: [matcherText({ name: 'alertname', value: ALERTS.downFromLocation, type: '=' })],
          equal: ['job', 'instance'],
        },
      ],
    }),
    receivers: receivers.map((receiver) => ({ name: receiver.name, ...(receiver.webhookUrl && { webhook_configs: [{ url: receiver.webhookUrl, send_resolved: true }] }) })),
    ...(intervals.length > 0 && { time_intervals: intervals.map((interval) => ({ name: interval.name, time_intervals: interval.spans.map(fileSpan) })) }),
  };
}

/** The file's text, with a header that says what it is. */
export function renderAlertmanagerConfigYaml(spec: RoutingSpec): string {
  return `# Alertmanager's configuration for probekit's alerts (written by probekit; see the README's alerting section).\n${stringify(renderAlertmanagerConfig(spec), { lineWidth: 0, aliasDuplicateObjects: false, version: '1.1' })}`;
}

/** Whether the spec says anything of Alertmanager: receivers, windows, or locations whose warnings EndpointDown inhibits. */
export function routesAlerts(spec: Pick<Spec, 'maintenance' | 'locations'> & { readonly alerts: Pick<Spec['alerts'], 'routing'> }): boolean {
  return (
    spec.maintenance.length > 0 || spec.locations.length >= 2 || spec.alerts.routing.receivers.some((receiver) => receiver.name !== DEFAULTS.alertmanager.receiver || receiver.webhookUrl !== undefined)
  );
}

export interface AlertmanagerConfigObject {
  readonly apiVersion: typeof ALERTMANAGER_CONFIG_API_VERSION;
  readonly kind: 'AlertmanagerConfig';
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Readonly<Record<string, string>> };
  readonly spec: Record<string, unknown>;
}

function crdMatcher(matcher: Matcher): { name: string; value: string; matchType: '=' | '=~' } {
  return { name: matcher.name, value: matcher.value, matchType: matcher.type };
}

function crdRoute(route: Route): Record<string, unknown> {
  return {
    ...(route.receiver && { receiver: route.receiver }),
    ...(route.matchers.length > 0 && { matchers: route.matchers.map(crdMatcher) }),
    ...(route.muted && { muteTimeIntervals: route.muted }),
    ...(route.continue && { continue: true }),
    ...(route.routes && route.routes.length > 0 && { routes: route.routes.map(crdRoute) }),
  };
}

/**
 * The same routing for the Prometheus Operator. Its time intervals have no time zone (UTC; the spec refuses another
 * zone when this object is made), and the Operator adds a `namespace` matcher to its top route: the alerts must carry
 * the object's namespace (docs/alerting.md says how).
 */
export function renderAlertmanagerConfigObject(name: string, spec: RoutingSpec, meta: { readonly namespace: string; readonly labels: Readonly<Record<string, string>> }): AlertmanagerConfigObject {
  const { route, receivers, intervals, inhibitDownFromLocation } = routing(spec);
  const { groupWait, groupInterval, repeatInterval } = spec.alerts.routing;
  return {
    apiVersion: ALERTMANAGER_CONFIG_API_VERSION,
    kind: 'AlertmanagerConfig',
    metadata: { name: kubernetesObjectName(name), namespace: meta.namespace, labels: { ...meta.labels } },
    spec: {
      route: { ...crdRoute(route), groupBy: [...GROUP_BY], groupWait, groupInterval, repeatInterval },
      receivers: receivers.map((receiver) => ({ name: receiver.name, ...(receiver.webhookUrl && { webhookConfigs: [{ url: receiver.webhookUrl, sendResolved: true }] }) })),
      ...(inhibitDownFromLocation && {
        inhibitRules: [
          {
            sourceMatch: [crdMatcher({ name: 'alertname', value: ALERTS.endpointDown, type: '=' })],
            targetMatch: [crdMatcher({ name: 'alertname', value: ALERTS.downFromLocation, type: '=' })],
            equal: ['job', 'instance'],
          },
        ],
      }),
      ...(intervals.length > 0 && {
        muteTimeIntervals: intervals.map((interval) => ({
          name: interval.name,
          timeIntervals: interval.spans.map((span) => ({
            times: [{ startTime: span.start, endTime: span.end }],
            ...(span.weekdays && { weekdays: span.weekdays }),
            ...(span.date && { daysOfMonth: [{ start: span.date.days[0], end: span.date.days[1] }], months: [String(span.date.month)], years: [String(span.date.year)] }),
          })),
        })),
      }),
    },
  };
}
