/**
 * Time as the skills take it: Elasticsearch date math (`now-15m`, `now/d`, `2026-11-19||+1d`) and absolute times
 * (`2026-11-20T08:00:00Z`, `2026-11-20T08:00`, `2026-11-19`), with an optional time zone (IANA name or offset) for
 * times written without one, for rounding (`now/d` is midnight there) and for days and histogram buckets. The
 * expressions go to Elasticsearch as written, which evaluates them; they are also resolved here, on this machine's
 * clock, to check them and to show the window an answer covers.
 */

const UNITS = 'yMwdhHms';
const ABSOLUTE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;
const OPERATION = new RegExp(`^(?:[+-]\\d+[${UNITS}]|\\/[${UNITS}])`);

export const TIME_HELP = 'a time: date math such as now-15m, now/d or 2026-11-19||+1d, or an absolute time such as 2026-11-20T08:00:00Z or 2026-11-19';
export const TIME_ZONE_HELP = 'a time zone: an IANA name such as Europe/Zurich, an offset such as +01:00, or UTC';

/** Whether `zone` names a time zone Elasticsearch and this machine both know. */
export function isTimeZone(zone: string): boolean {
  if (zone === 'Z' || zone === 'UTC' || /^[+-]\d{2}:\d{2}$/.test(zone)) return true;
  // Elasticsearch (java.time) takes region names; Intl knows the same database.
  if (!/^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `instant`, in minutes. */
function offsetMinutes(zone: string, instant: number): number {
  if (zone === 'Z' || zone === 'UTC') return 0;
  const fixed = /^([+-])(\d{2}):(\d{2})$/.exec(zone);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  const name = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(new Date(instant)).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3] ?? 0)) : 0;
}

type Fields = [year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number];

function fieldsAt(instant: number, zone: string): Fields {
  const d = new Date(instant + offsetMinutes(zone, instant) * 60_000);
  return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()];
}

/** The instant of a wall-clock time in `zone`; month and day may overflow, as Date.UTC allows. */
function instantOf(fields: Fields, zone: string): number {
  const naive = Date.UTC(...fields);
  const guess = naive - offsetMinutes(zone, naive) * 60_000;
  return naive - offsetMinutes(zone, guess) * 60_000;
}

function absolute(text: string, zone: string, roundUp: boolean): number | undefined {
  const m = ABSOLUTE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  const timeGiven = h !== undefined;
  const fields: Fields = [
    Number(y),
    Number(mo) - 1,
    Number(d),
    timeGiven ? Number(h) : roundUp ? 23 : 0,
    timeGiven ? Number(mi) : roundUp ? 59 : 0,
    s !== undefined ? Number(s) : timeGiven || !roundUp ? 0 : 59,
    frac !== undefined ? Number(frac.slice(0, 3).padEnd(3, '0')) : timeGiven || !roundUp ? 0 : 999,
  ];
  if (fields[1] > 11 || fields[2] < 1 || fields[2] > 31 || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) return undefined;
  return instantOf(fields, offset === undefined ? zone : offset === 'Z' ? 'Z' : offset);
}

function move(instant: number, amount: number, unit: string, zone: string): number {
  const fixed = { h: 3_600_000, H: 3_600_000, m: 60_000, s: 1000 }[unit];
  if (fixed !== undefined) return instant + amount * fixed;
  const f = fieldsAt(instant, zone);
  if (unit === 'y') f[0] += amount;
  else if (unit === 'M') f[1] += amount;
  else f[2] += amount * (unit === 'w' ? 7 : 1);
  return instantOf(f, zone);
}

function round(instant: number, unit: string, zone: string, up: boolean): number {
  const f = fieldsAt(instant, zone);
  const keep = 'yMdhms'.indexOf(unit === 'H' ? 'h' : unit === 'w' ? 'd' : unit) + 1;
  const start: Fields = [f[0], keep > 1 ? f[1] : 0, keep > 2 ? f[2] : 1, keep > 3 ? f[3] : 0, keep > 4 ? f[4] : 0, keep > 5 ? f[5] : 0, 0];
  if (unit === 'w') start[2] -= (new Date(Date.UTC(f[0], f[1], f[2])).getUTCDay() + 6) % 7;
  const from = instantOf(start, zone);
  return up ? move(from, 1, unit, zone) - 1 : from;
}

/**
 * The instant an expression stands for, or undefined when it is none. `roundUp` resolves it as an inclusive upper
 * bound would be (`now/d` to the day's last millisecond); the skills use it exclusively as `lt` bounds, so no.
 */
export function resolveTime(text: string, now: number, zone = 'UTC', roundUp = false): number | undefined {
  let instant: number | undefined;
  let rest: string;
  if (text.startsWith('now')) {
    instant = now;
    rest = text.slice(3);
  } else {
    const at = text.indexOf('||');
    instant = absolute(at < 0 ? text : text.slice(0, at), zone, roundUp && at < 0);
    rest = at < 0 ? '' : text.slice(at + 2);
    if (at >= 0 && rest === '') return undefined;
  }
  while (instant !== undefined && rest !== '') {
    const op = OPERATION.exec(rest)?.[0];
    if (op === undefined) return undefined;
    const unit = op.at(-1)!;
    instant = op[0] === '/' ? round(instant, unit, zone, roundUp) : move(instant, Number(op.slice(0, -1)), unit, zone);
    rest = rest.slice(op.length);
  }
  return instant;
}

/** An instant written in `zone` (ISO 8601 with its offset; `Z` for UTC), to the millisecond. */
export function formatInstant(instant: number, zone = 'UTC'): string {
  const offset = offsetMinutes(zone, instant);
  const text = new Date(instant + offset * 60_000).toISOString().slice(0, 23);
  if (offset === 0) return `${text}Z`;
  const abs = Math.abs(offset);
  return `${text}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
