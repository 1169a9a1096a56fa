/**
 * Log levels as people write them, and messages reduced to their pattern: the parts that change from one line to
 * the next (times, UUIDs, IPs, hex, ids, numbers) masked, so that lines from one statement group together.
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

/** Ordered: the wider shapes first, so that a timestamp is not read as numbers nor a UUID as hex. */
const HEX4 = '[0-9a-f]{1,4}';
const MASKS: readonly [RegExp, string][] = [
  [/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g, '<ip>'],
  // IPv6, full or with "::" (not a bare "::" as in std::vector, nor a clock time).
  [new RegExp(`(?<![\\w:])(?:(?:${HEX4}:){7}${HEX4}|(?=[0-9a-f:]*[0-9a-f])(?:${HEX4}(?::${HEX4})*)?::(?:${HEX4}(?::${HEX4})*)?)(?![\\w:])`, 'gi'), '<ip>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Names with generated parts, as Kubernetes gives pods (checkout-7d9f8b6c4-x2x9k) and request ids (req-7f3a).
  [/\b(?=[\w-]*\d)(?=[\w-]*[a-z])[a-z0-9]+(?:[-_][a-z0-9]+)+\b/gi, '<id>'],
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\b(?=\w*\d)(?=\w*[a-z])\w{6,}\b/gi, '<id>'],
  // Numbers with a unit keep it ("35ms" -> "<num>ms"): the unit is part of the statement, the value is not.
  [/(?<![\w.])\d+(?:\.\d+)?/g, '<num>'],
];

export function messagePattern(message: string): string {
  return MASKS.reduce((text, [pattern, mask]) => text.replace(pattern, mask), message)
    .replace(/\s+/g, ' ')
    .trim();
}
