/**
 * body_size_limit as upstream reads it (Go's units.Base2Bytes): numbers with optional fractions, each
 * followed by a unit where every unit is a power of 1024 (`KB` and `KiB` alike), summed: `1.5MB`, `512KiB`,
 * `1MB512KB`, `0`. Upstream refuses a number without a unit and a bare `K`; this exporter has always read
 * those as bytes and kibibytes, and keeps doing so. Zero or negative means no limit.
 */
const UNIT_POWERS: Record<string, number> = { '': 0, B: 0 };
for (const [power, prefix] of ['K', 'M', 'G', 'T', 'P', 'E'].entries()) {
  for (const unit of [prefix, `${prefix}B`, `${prefix}iB`]) UNIT_POWERS[unit] = power + 1;
}

const ELEMENT = /([0-9]*)(?:\.([0-9]*))?\s*([A-Za-z]*)/y;

export function parseByteSize(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  const text = value.trim();
  const negative = text.startsWith('-');
  const rest = /^[-+]/.test(text) ? text.slice(1) : text;
  if (rest === '') return undefined;
  let total = 0;
  let position = 0;
  while (position < rest.length) {
    ELEMENT.lastIndex = position;
    const [whole, integer, fraction, unit] = ELEMENT.exec(rest) ?? ['', '', undefined, ''];
    const power = UNIT_POWERS[unit];
    if (whole === '' || (integer === '' && !fraction) || power === undefined) return undefined;
    // Bytes without a unit: a whole number, alone.
    if (unit === '' && (fraction !== undefined || position > 0 || whole.length < rest.length)) return undefined;
    total += Number(`${integer || '0'}.${fraction || '0'}`) * 1024 ** power;
    position += whole.length;
  }
  // Go keeps whole bytes.
  return (negative ? -1 : 1) * Math.trunc(total) + 0;
}
