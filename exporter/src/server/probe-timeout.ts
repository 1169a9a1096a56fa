/**
 * How long a probe may run, as upstream computes it from the module's timeout, the scrape's timeout header
 * and --timeout-offset. Apart from the probe handler so that the command line reads its default without
 * loading the probe path.
 */

/** Upstream's probe timeout when neither the module nor the scrape says one. */
const DEFAULT_SCRAPE_TIMEOUT_SECONDS = 120;

/** Upstream's default for --timeout-offset: the probe ends this long before the scrape times out. */
export const DEFAULT_TIMEOUT_OFFSET_SECONDS = 0.5;

/** Digits with Go's underscores: only between two digits. */
const DECIMAL_DIGITS = '\\d(?:_?\\d)*';
const HEX_DIGITS = '[0-9A-Fa-f](?:_?[0-9A-Fa-f])*';
const GO_DECIMAL_FLOAT = new RegExp(`^[+-]?(?:${DECIMAL_DIGITS}(?:\\.(?:${DECIMAL_DIGITS})?)?|\\.${DECIMAL_DIGITS})(?:[eE][+-]?${DECIMAL_DIGITS})?$`);
const GO_HEX_FLOAT = new RegExp(`^([+-]?)0[xX]_?(${HEX_DIGITS})?(?:\\.(${HEX_DIGITS})?)?[pP]([+-]?${DECIMAL_DIGITS})$`);

/**
 * `text` read as Go's strconv.ParseFloat reads it (what upstream parses the scrape timeout header with):
 * decimal or hexadecimal with a binary exponent (0x1p-2), underscores between digits, inf, infinity and nan
 * in any case. Throws as it fails: a syntax error, or a finite number too large for a double.
 */
export function parseGoFloat(text: string): number {
  const special = /^([+-]?)(inf|infinity)$/i.exec(text);
  if (special) return special[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  let value: number | undefined;
  if (GO_DECIMAL_FLOAT.test(text)) value = Number(text.replaceAll('_', ''));
  const hex = GO_HEX_FLOAT.exec(text);
  if (hex && (hex[2] !== undefined || hex[3] !== undefined)) {
    const [whole, fraction] = [(hex[2] ?? '').replaceAll('_', ''), (hex[3] ?? '').replaceAll('_', '')];
    const mantissa = Number.parseInt(`${whole}${fraction}` || '0', 16);
    value = (hex[1] === '-' ? -1 : 1) * mantissa * 2 ** (Number(hex[4].replaceAll('_', '')) - 4 * fraction.length);
  }
  if (value === undefined) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
  if (!Number.isFinite(value)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/**
 * Seconds the probe may take, as upstream computes it: the scrape timeout (120 s when absent or 0) less
 * the offset, unless the module's own timeout is smaller (or that difference is negative).
 */
export function probeTimeoutSeconds(moduleTimeoutMs: number | undefined, scrapeTimeoutHeader: string | undefined, offsetSeconds: number): number {
  let scrapeSeconds = 0;
  if (scrapeTimeoutHeader !== undefined && scrapeTimeoutHeader !== '') scrapeSeconds = parseGoFloat(scrapeTimeoutHeader.trim());
  if (scrapeSeconds === 0) scrapeSeconds = DEFAULT_SCRAPE_TIMEOUT_SECONDS;
  const available = scrapeSeconds - offsetSeconds;
  const moduleSeconds = (moduleTimeoutMs ?? 0) / 1000;
  const seconds = (moduleSeconds > 0 && moduleSeconds < available) || available < 0 ? moduleSeconds : available;
  // NaN, or infinity without a module timeout: Go turns it into a negative duration, a probe out of time at once.
  return Number.isFinite(seconds) ? seconds : 0;
}
