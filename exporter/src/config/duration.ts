/**
 * Prometheus durations: `1h30m`, `5s`, `250ms`, `0`. Units y, w, d, h, m, s, ms, each at most once and
 * in that order, as Prometheus's own parser accepts them.
 */
const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['y', 365 * 24 * 3600 * 1000],
  ['w', 7 * 24 * 3600 * 1000],
  ['d', 24 * 3600 * 1000],
  ['h', 3600 * 1000],
  ['m', 60 * 1000],
  ['s', 1000],
  ['ms', 1],
];

const DURATION_PATTERN = new RegExp(`^${UNITS.map(([unit]) => `(?:(\\d+)${unit})?`).join('')}$`);

/** Milliseconds in a Prometheus duration, or undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  const match = DURATION_PATTERN.exec(text);
  if (!match) return undefined;
  let total = 0;
  UNITS.forEach(([, factor], index) => {
    const amount = match[index + 1];
    if (amount !== undefined) total += Number(amount) * factor;
  });
  return total;
}

export const DURATION_HINT = 'a Prometheus duration such as 5s, 1m30s or 500ms';

/** Milliseconds back to the shortest Prometheus duration text, as Prometheus prints them. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds === 0) return '0s';
  let rest = milliseconds;
  let text = '';
  for (const [unit, factor] of UNITS) {
    const amount = Math.floor(rest / factor);
    if (amount > 0) {
      text += `${amount}${unit}`;
      rest -= amount * factor;
    }
  }
  return text;
}

/** Go's time.ParseDuration units, in nanoseconds. */
const GO_UNITS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, '\u00b5s': 1e3, '\u03bcs': 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };

/** The longest duration Go's int64 nanoseconds hold. */
const GO_MAX_NANOSECONDS = 2 ** 63 - 1;

const GO_ELEMENT = /([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/y;

/**
 * Milliseconds in a Go duration, or undefined when the text is not one: how upstream reads a module's
 * `timeout` (time.ParseDuration). A sign, then numbers with optional fractions each followed by a unit of
 * ns, us (µs), ms, s, m or h, in any order: `5s`, `1.5s`, `1m30s`, `500ms`, `-1s`; or `0` alone. Counted
 * in whole nanoseconds as Go counts, so `256.648s` is exactly 256648 ms.
 */
export function parseGoDuration(text: string): number | undefined {
  const negative = text.startsWith('-');
  const rest = /^[-+]/.test(text) ? text.slice(1) : text;
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let nanoseconds = 0;
  let position = 0;
  while (position < rest.length) {
    GO_ELEMENT.lastIndex = position;
    const [whole, integer, fraction, unit] = GO_ELEMENT.exec(rest) ?? ['', '', undefined, ''];
    const factor = GO_UNITS[unit];
    if (whole === '' || (integer === '' && !fraction) || factor === undefined) return undefined;
    // As Go: the fraction's digits as a whole number, times the unit over their scale, truncated.
    const digits = (fraction ?? '').slice(0, 15);
    nanoseconds += Number(integer || '0') * factor + (digits === '' ? 0 : Math.trunc(Number(digits) * (factor / 10 ** digits.length)));
    position += whole.length;
  }
  if (nanoseconds > GO_MAX_NANOSECONDS) return undefined;
  return (negative ? -nanoseconds : nanoseconds) / 1e6 + 0;
}

export const GO_DURATION_HINT = 'a duration such as 5s, 1.5s, 1m30s or 500ms';
