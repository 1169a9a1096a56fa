/**
 * Turning schema issues into one line each, naming the field and the fix. Shared by the spec and
 * anything else that validates user input with zod.
 */
import type { z } from 'zod';

export type FieldPath = ReadonlyArray<PropertyKey>;

/** `jobs[0].targets`, `modules.http_2xx.http.method`. */
export function formatPath(path: FieldPath): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const text = String(segment);
      const plain = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(text);
      const quoted = plain ? text : JSON.stringify(text);
      return index === 0 ? quoted : plain ? `.${text}` : `[${quoted}]`;
    })
    .join('');
}

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

/** One line per issue: `path: what is wrong; how to fix it`. */
export function describeIssues(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix: FieldPath = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = fieldsAt(schema, issue.path);
      return issue.keys.map((key) => {
        const suggestion = closestName(key, known);
        const fix = suggestion ? `did you mean "${suggestion}"?` : `remove it; the fields here are: ${known.join(', ')}`;
        return `${formatPath([...path, key])}: unknown field; ${fix}`;
      });
    }
    if (issue.code === 'invalid_union') {
      // Report the branch that got furthest, not zod's generic "invalid input".
      const branches = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
      const deepest = [...branches].sort((a, b) => depth(b) - depth(a))[0];
      if (deepest && deepest.length > 0) {
        const nested = deepest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
        return describeIssues(schema, nested, prefix).slice(0, 1);
      }
    }
    const where = path.length > 0 ? formatPath(path) : '(top level)';
    return [`${where}: ${issue.message}`];
  });
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length + (issue.code === 'unrecognized_keys' ? 1 : 0)));
}
