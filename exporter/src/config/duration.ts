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
