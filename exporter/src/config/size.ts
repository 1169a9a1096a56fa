/**
 * body_size_limit as upstream reads it: bytes, or a number with a unit where every unit is a power of
 * 1024 (`KB` and `KiB` alike, as Go's units.Base2Bytes). Zero or negative means no limit.
 */
const UNIT_POWERS: Record<string, number> = { B: 0, K: 1, M: 2, G: 3, T: 4, P: 5, E: 6 };

export function parseByteSize(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  const match = /^(-?\d+)\s*(?:([KMGTPE])(?:i?B)?|B)?$/.exec(value.trim());
  if (!match) return undefined;
  const power = match[2] ? UNIT_POWERS[match[2]] : 0;
  return Number(match[1]) * 1024 ** power;
}
