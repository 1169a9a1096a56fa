/**
 * Dates as Elasticsearch reads and writes them, for the contract server: `strict_date_optional_time` with missing
 * parts filled from the start or (rounding up) the end of what is missing, epoch milliseconds, date math (`now-15m`,
 * `now/d`, `2026-11-19||+1d`) with the range query's rounding rules, time zones (`Z`, `+01:00`, IANA names) for
 * parsing, rounding and calendar arithmetic, and the default output format with the zone's offset.
 *
 * This is written apart from assistant/src/time.ts on purpose: the server must not share the client's mistakes.
 */

export class DateProblem extends Error {}

interface Wall {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  milli: number;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `instant`, in milliseconds. */
export function zoneOffsetMs(zone: string, instant: number): number {
  if (zone === 'Z' || zone === 'UTC' || zone === 'utc') return 0;
  const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 3_600_000 + Number(fixed[3]) * 60_000);
  let format = zoneFormats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new DateProblem(`Unknown time-zone ID: ${zone}`);
    }
    zoneFormats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((part) => [part.type, part.value]));
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return asUtc - (instant - (((instant % 1000) + 1000) % 1000));
}

function toWall(instant: number, zone: string): Wall {
  const shifted = new Date(instant + zoneOffsetMs(zone, instant));
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hour: shifted.getUTCHours(),
    minute: shifted.getUTCMinutes(),
    second: shifted.getUTCSeconds(),
    milli: shifted.getUTCMilliseconds(),
  };
}

/** The instant a wall-clock time in `zone` names (the later offset wins in a gap, as java.time resolves it). */
function fromWall(wall: Wall, zone: string): number {
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.milli);
  const first = naive - zoneOffsetMs(zone, naive);
  return naive - zoneOffsetMs(zone, first);
}

const DATE_TEXT = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A date written in `strict_date_optional_time` (or epoch milliseconds), read in `zone` unless it names its own
 * offset. `roundUp` fills what is missing with its end (`2026-11-19` is 23:59:59.999 of that day), as Elasticsearch
 * does for the upper bound of `lte` and the lower bound of `gt`.
 */
export function parseDate(text: string | number, zone = 'Z', roundUp = false): number {
  if (typeof text === 'number') return text;
  if (/^-?\d{5,}$/.test(text)) return Number(text);
  const match = DATE_TEXT.exec(text.trim());
  if (!match) throw new DateProblem(`failed to parse date field [${text}] with format [strict_date_optional_time||epoch_millis]`);
  const [, y, mo, d, h, mi, s, fraction, offset] = match;
  const wall: Wall = {
    year: Number(y),
    month: mo === undefined ? (roundUp ? 12 : 1) : Number(mo),
    day: d === undefined ? 1 : Number(d),
    hour: h === undefined ? (roundUp ? 23 : 0) : Number(h),
    minute: mi === undefined ? (roundUp ? 59 : 0) : Number(mi),
    second: s === undefined ? (roundUp ? 59 : 0) : Number(s),
    milli: fraction === undefined ? (roundUp ? 999 : 0) : Number(fraction.padEnd(3, '0').slice(0, 3)),
  };
  if (d === undefined && roundUp) wall.day = new Date(Date.UTC(wall.year, wall.month, 0)).getUTCDate();
  if (wall.month < 1 || wall.month > 12 || wall.day < 1 || wall.day > 31 || wall.hour > 23 || wall.minute > 59 || wall.second > 59) {
    throw new DateProblem(`failed to parse date field [${text}] with format [strict_date_optional_time||epoch_millis]`);
  }
  return fromWall(wall, offset === undefined ? zone : offset === 'Z' ? 'Z' : offset.length === 3 ? `${offset}:00` : offset);
}

const UNITS = new Set(['y', 'M', 'w', 'd', 'h', 'H', 'm', 's']);

/** Moves `instant` by `amount` of `unit`; years, months, weeks and days follow the calendar of `zone`. */
export function addUnits(instant: number, amount: number, unit: string, zone: string): number {
  switch (unit) {
    case 's':
      return instant + amount * 1000;
    case 'm':
      return instant + amount * 60_000;
    case 'h':
    case 'H':
      return instant + amount * 3_600_000;
    default: {
      const wall = toWall(instant, zone);
      if (unit === 'y') wall.year += amount;
      else if (unit === 'M') {
        const months = wall.year * 12 + (wall.month - 1) + amount;
        wall.year = Math.floor(months / 12);
        wall.month = (months % 12) + 1;
      } else wall.day += amount * (unit === 'w' ? 7 : 1);
      const normal = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.milli));
      return fromWall(
        {
          year: normal.getUTCFullYear(),
          month: normal.getUTCMonth() + 1,
          day: normal.getUTCDate(),
          hour: normal.getUTCHours(),
          minute: normal.getUTCMinutes(),
          second: normal.getUTCSeconds(),
          milli: normal.getUTCMilliseconds(),
        },
        zone,
      );
    }
  }
}

/** The first instant of the `unit` (of `zone`'s calendar) that holds `instant`. Weeks start on Monday. */
export function startOfUnit(instant: number, unit: string, zone: string): number {
  const wall = toWall(instant, zone);
  const zeroFrom = { y: 1, M: 2, w: 3, d: 3, h: 4, H: 4, m: 5, s: 6 }[unit];
  if (zeroFrom === undefined) throw new DateProblem(`unit [${unit}] not supported for date math`);
  if (zeroFrom <= 1) wall.month = 1;
  if (zeroFrom <= 2) wall.day = 1;
  if (zeroFrom <= 3) wall.hour = 0;
  if (zeroFrom <= 4) wall.minute = 0;
  if (zeroFrom <= 5) wall.second = 0;
  wall.milli = 0;
  const start = fromWall(wall, zone);
  if (unit !== 'w') return start;
  const weekday = (new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay() + 6) % 7;
  return addUnits(start, -weekday, 'd', zone);
}

/**
 * Date math: an anchor (`now`, or a date followed by `||`) and operations (`+1d`, `-15m`, `/d`). With `roundUp`
 * a rounding goes to the last millisecond of its unit, as for `lte` and `gt`.
 */
export function parseDateMath(text: string | number, now: number, zone = 'Z', roundUp = false): number {
  if (typeof text === 'number') return text;
  let anchor: number;
  let operations: string;
  if (text.startsWith('now')) {
    anchor = now;
    operations = text.slice(3);
  } else {
    const at = text.indexOf('||');
    if (at < 0) return parseDate(text, zone, roundUp);
    anchor = parseDate(text.slice(0, at), zone, false);
    operations = text.slice(at + 2);
  }
  let instant = anchor;
  let rest = operations;
  while (rest.length > 0) {
    const op = /^([+-]\d*|\/)([yMwdhHms])/.exec(rest);
    if (!op || !UNITS.has(op[2]!)) throw new DateProblem(`operator not supported for date math [${text}]`);
    const unit = op[2]!;
    if (op[1] === '/') {
      instant = startOfUnit(instant, unit, zone);
      if (roundUp) instant = addUnits(instant, 1, unit, zone) - 1;
    } else {
      const digits = op[1]!.slice(1);
      instant = addUnits(instant, (op[1]![0] === '-' ? -1 : 1) * (digits === '' ? 1 : Number(digits)), unit, zone);
    }
    rest = rest.slice(op[0].length);
  }
  return instant;
}

/** `strict_date_optional_time` as Elasticsearch prints it: milliseconds, and `Z` or the zone's offset. */
export function formatDate(instant: number, zone = 'Z'): string {
  const offset = zoneOffsetMs(zone, instant);
  const text = new Date(instant + offset).toISOString().slice(0, 23);
  if (offset === 0) return `${text}Z`;
  const minutes = Math.abs(offset) / 60_000;
  return `${text}${offset < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}
