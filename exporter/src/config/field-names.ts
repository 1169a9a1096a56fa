/**
 * Names of fields a schema accepts, and the likeliest one a misspelt name meant: the "did you mean" of
 * every message about an unknown field, in the exporter's config and in the spec alike.
 */
import type { z } from 'zod';

export type FieldPath = ReadonlyArray<PropertyKey>;

/** The field names an object schema accepts at `path`, following optionals, defaults, unions and pipes. */
export function fieldsAt(schema: z.ZodType, path: FieldPath): string[] {
  const found = new Set<string>();
  const visit = (node: unknown, rest: FieldPath): void => {
    const def = (node as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
    if (!def) return;
    switch (def.type) {
      case 'object': {
        const shape = def.shape as Record<string, unknown>;
        if (rest.length === 0) Object.keys(shape).forEach((key) => found.add(key));
        else visit(shape[String(rest[0])], rest.slice(1));
        return;
      }
      case 'record':
        if (rest.length > 0) visit(def.valueType, rest.slice(1));
        return;
      case 'array':
        if (rest.length > 0) visit(def.element, rest.slice(1));
        return;
      case 'union':
        (def.options as unknown[]).forEach((option) => visit(option, rest));
        return;
      case 'pipe':
        visit(def.in, rest);
        visit(def.out, rest);
        return;
      default:
        if ('innerType' in def) visit(def.innerType, rest);
    }
  };
  visit(schema, path);
  return [...found];
}

/** The known name closest to `name`, when it is close enough to be a likely typo. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
