/**
 * Log levels as people write them, and messages reduced to their pattern: the parts that change from one line to
 * the next (times, UUIDs, IPs, hex, ids, numbers) masked, so that lines from one statement group together; and a
 * pattern turned back into a query that finds its lines in Elasticsearch, so that its lines are counted there.
 */

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Spellings met in the wild for each level; matched case-insensitively. */
export const LEVEL_SPELLINGS: Readonly<Record<LogLevel, readonly string[]>> = {
  trace: ['trace'],
  debug: ['debug'],
  info: ['info', 'information', 'notice'],
  warn: ['warn', 'warning'],
  error: ['error', 'err'],
  fatal: ['fatal', 'critical', 'crit', 'panic', 'emergency', 'alert'],
};

/** The level a stored value stands for, or the value lower-cased when it is none of the known ones. */
export function normalizeLevel(value: string): string {
  const lower = value.toLowerCase();
  for (const level of LOG_LEVELS) if (LEVEL_SPELLINGS[level].includes(lower)) return level;
  return lower;
}

/** Level names in their order of severity, then unknown ones by name. */
export function compareLevels(a: string, b: string): number {
  const rank = (level: string) => {
    const at = (LOG_LEVELS as readonly string[]).indexOf(level);
    return at < 0 ? LOG_LEVELS.length : at;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

const PLACEHOLDERS = ['time', 'uuid', 'ip', 'hex', 'id', 'num'] as const;
const PLACEHOLDER = new RegExp(`<(?:${PLACEHOLDERS.join('|')})>`, 'g');

/**
 * Ordered: the wider shapes first, so that a timestamp is not read as numbers nor a UUID as hex, and a number
 * with its unit before the id rules, so that "950ms" and "1450ms" are one statement, not a number and an id.
 */
const HEX4 = '[0-9a-f]{1,4}';
const UNITS = 'ns|us|µs|ms|s|m|h|d|kb|mb|gb|tb|kib|mib|gib|b|x|%';
const MASKS: readonly [RegExp, string][] = [
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, '<ip>'],
  // IPv6, full or with "::" (not a bare "::" as in std::vector, nor a clock time).
  [new RegExp(`(?<![\\w:])(?:(?:${HEX4}:){7}${HEX4}|(?=[0-9a-f:]*[0-9a-f])(?:${HEX4}(?::${HEX4})*)?::(?:${HEX4}(?::${HEX4})*)?)(?![\\w:])`, 'gi'), '<ip>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Numbers with a unit keep it ("35ms" -> "<num>ms"): the unit is part of the statement, the value is not.
  [new RegExp(`(?<![\\w.])\\d+(?:\\.\\d+)?(${UNITS})(?![\\w%])`, 'gi'), '<num>$1'],
  // Names with generated parts, as Kubernetes gives pods (checkout-7d9f8b6c4-x2x9k) and request ids (req-7f3a).
  [/\b(?=[\w-]*\d)(?=[\w-]*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)+\b/gi, '<id>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\b(?=\w*\d)(?=\w*[a-z])\w{6,}\b/gi, '<id>'],
  [/(?<![\w.])\d+(?:\.\d+)?/g, '<num>'],
];

export function messagePattern(message: string): string {
  return MASKS.reduce((text, [pattern, mask]) => text.replace(pattern, mask), message)
    .replace(/\s+/g, ' ')
    .trim();
}

/** What the standard analyzer makes of text, near enough to tell whether a piece holds any word. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);
}

/**
 * The constant pieces of a pattern, as an analysed text field can match them: the text between placeholders, less
 * the part of a word glued to a placeholder ("<num>ms": in "950ms" the analyzer sees one token, not "ms").
 */
export function patternPhrases(pattern: string): string[] {
  const pieces = pattern.split(PLACEHOLDER);
  return pieces
    .map((piece, i) => {
      let text = piece;
      if (i > 0) text = text.replace(/^[\p{L}\p{N}_]+/u, '');
      if (i < pieces.length - 1) text = text.replace(/[\p{L}\p{N}_]+$/u, '');
      return text.trim();
    })
    .filter((text) => words(text).length > 0);
}

/** How specific a pattern is: the number of constant words; the more specific claims its lines first. */
export function patternWeight(pattern: string): number {
  return patternPhrases(pattern).reduce((sum, phrase) => sum + words(phrase).length, 0);
}

/**
 * A query for the lines of a pattern, or undefined when the pattern holds no constant word to look for. On an
 * analysed message every constant piece must occur as a phrase; on a keyword message the whole value must match,
 * each placeholder standing for anything.
 */
export function patternQuery(pattern: string, field: string, messageIsText: boolean): Record<string, unknown> | undefined {
  if (!messageIsText) {
    if (words(pattern.replace(PLACEHOLDER, ' ')).length === 0) return undefined;
    const value = pattern
      .split(PLACEHOLDER)
      .map((piece) => piece.replace(/[\\*?]/g, '\\$&'))
      .join('*');
    return { wildcard: { [field]: { value } } };
  }
  const phrases = patternPhrases(pattern);
  if (phrases.length === 0) return undefined;
  return { bool: { filter: phrases.map((phrase) => ({ match_phrase: { [field]: phrase } })) } };
}
