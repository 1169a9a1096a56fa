/**
 * Turning schema issues into one line each, naming the field and the fix. Shared by the spec and
 * anything else that validates user input with zod.
 */
import type { z } from 'zod';
import { closestName, fieldsAt, formatPath, type FieldPath } from '@probekit/exporter';

export { formatPath, type FieldPath };

/** One line per issue: `path: what is wrong; how to fix it`. */
export function describeIssues(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], prefix: FieldPath = []): string[] {
  return issues.flatMap((issue) => {
    const path: FieldPath = [...prefix, ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))];
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
