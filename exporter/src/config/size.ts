/**
 * body_size_limit as upstream reads it (Go's units.Base2Bytes, handed the scalar as written): an optional sign,
 * then numbers with optional fractions, each followed by its unit, summed: `1.5MB`, `512KiB`, `1MB512KB`, `-1B`.
 * Every unit is a power of 1024; `B`, `KB` ... `EB` or `B`, `KiB` ... `EiB`, the two spellings not mixed in one
 * value (upstream tries each set on the whole text). `0` alone needs no unit. Anything else is refused, as
 * upstream refuses it: a number without a unit (`1000`, `-1`), a bare `K`, `kB`, a space before the unit.
 */

/** The two unit sets upstream tries, each on the whole value: Go's bytesUnitMap, then its oldBytesUnitMap. */
const UNIT_SETS: ReadonlyArray<Readonly<Record<string, number>>> = ['iB', 'B'].map((suffix) => {
  const powers: Record<string, number> = { B: 0 };
  for (const [power, prefix] of ['K', 'M', 'G', 'T', 'P', 'E'].entries()) powers[`${prefix}${suffix}`] = power + 1;
  return powers;
});

/** One element: digits, an optional fraction, and the unit up to the next digit or period (Go reads it so). */
const ELEMENT = /([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/y;

function parseWith(text: string, powers: Readonly<Record<string, number>>): number | undefined {
  let total = 0;
  for (let position = 0; position < text.length;) {
    ELEMENT.lastIndex = position;
    const [whole, integer, fraction, unit] = ELEMENT.exec(text) ?? ['', '', undefined, ''];
    const power = powers[unit];
    if (integer === '' && !fraction) return undefined;
    if (power === undefined) return undefined;
    total += Number(`${integer || '0'}.${fraction || '0'}`) * 1024 ** power;
    position += whole.length;
  }
  return total;
}

/** Bytes (negative: no limit, as 0), or undefined when upstream refuses the value. */
export function parseByteSize(value: number | string): number | undefined {
  const text = String(value);
  const sign = /^[-+]/.test(text) ? text[0] : '';
  const rest = text.slice(sign.length);
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  const total = UNIT_SETS.map((powers) => parseWith(rest, powers)).find((bytes) => bytes !== undefined);
  // Go keeps whole bytes.
  return total === undefined ? undefined : (sign === '-' ? -1 : 1) * Math.trunc(total) + 0;
}

/** What to tell someone whose body_size_limit upstream would refuse: what is wrong, and what to write. */
export function byteSizeProblem(value: number | string): string {
  const text = String(value).trim();
  if (/^[-+]?[0-9]+$/.test(text)) {
    const fix = text.startsWith('-') ? 'write 0 for no limit' : `write ${text}B for bytes, or a size in KB, MB or GB`;
    return `${text} has no unit, which upstream refuses; ${fix}`;
  }
  return 'must be a size with a unit, such as 512KB, 1.5MiB or 1024B (units B, KB to EB or KiB to EiB, powers of 1024, one spelling per value); 0 means no limit';
}
