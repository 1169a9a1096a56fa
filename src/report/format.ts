/** How the Markdown and HTML reports write figures: one way for both. */

/** 99.95%: two decimals, never rounded up to 100% nor down to 0% when it is not. */
export function percent(value: number, decimals = 2): string {
  const factor = 10 ** decimals;
  let rounded = Math.round(value * factor) / factor;
  if (rounded >= 100 && value < 100) rounded = 100 - 1 / factor;
  if (rounded <= 0 && value > 0) rounded = 1 / factor;
  return `${rounded.toFixed(decimals)}%`;
}

/** 3d 4h, 1h 2m, 4m 30s, 12s: the two largest units. */
export function duration(seconds: number): string {
  const units: ReadonlyArray<readonly [string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  if (seconds > 0 && seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  const whole = Math.round(seconds);
  const first = units.findIndex(([, size]) => whole >= size);
  if (first < 0) return '0s';
  const [unit, size] = units[first]!;
  const amount = Math.floor(whole / size);
  const next = units[first + 1];
  const more = next === undefined ? 0 : Math.floor((whole - amount * size) / next[1]);
  return more > 0 ? `${amount}${unit} ${more}${next![0]}` : `${amount}${unit}`;
}

/** 12 ms, 1.25 s: a probe's time. */
export function probeTime(seconds: number): string {
  return seconds < 1 ? `${(seconds * 1000).toFixed(seconds < 0.01 ? 1 : 0)} ms` : `${seconds.toFixed(2)} s`;
}

/** 2026-11-27 19:40:12 UTC from an ISO time. */
export function when(isoTime: string): string {
  return `${isoTime.slice(0, 10)} ${isoTime.slice(11, 19)} UTC`;
}

/** 27 Nov 2026 19:40 UTC: a window's edge, with its seconds when it does not fall on a whole minute (19:40:12). */
export function day(isoTime: string): string {
  const date = new Date(isoTime);
  const month = date.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
  const time = date.getUTCSeconds() === 0 ? isoTime.slice(11, 16) : isoTime.slice(11, 19);
  return `${date.getUTCDate()} ${month} ${date.getUTCFullYear()} ${time} UTC`;
}

/** 43 days, 1 day, expired 2 days ago. */
export function certificate(daysLeft: number): string {
  if (daysLeft < 0) return `expired ${-daysLeft} day${daysLeft === -1 ? '' : 's'} ago`;
  return `${daysLeft} day${daysLeft === 1 ? '' : 's'}`;
}
