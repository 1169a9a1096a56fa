/**
 * A regular expression that is cheap to write and costly to run, and texts it is costly on: some 70 KB of
 * alternatives `<n>.*<n>y` (each alternative stays alive past its number, so RE2's automaton keeps thousands of
 * states at once and its cache of them thrashes), over digits with `q`s strewn in (whose numbers start and
 * restart alternatives everywhere). re2js takes some 25 ns a character an instruction on it: 16 KB of such text
 * is 20 to 30 s of one thread on this machine, a 200-character text a few milliseconds. Nothing in it matches.
 * For the tests that hold a probe's checks to its deadline, and the benchmark.
 */

/** Alternatives of about 11 characters each: 6,400 of them are 70 KB. */
export const COSTLY_REGEXP = `(?:${Array.from({ length: 6400 }, (_, index) => `${index}.*${index}y`).join('|')})`;

/** `length` characters of digits and `q`s, the same ones every run (a fixed linear congruential sequence). */
export function costlyText(length: number, seed = 1): string {
  let state = seed;
  const next = (): number => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  let text = '';
  while (text.length < length) text += (next() < 0.3 ? 'q' : '') + Math.floor(next() * 10);
  return text.slice(0, length);
}
