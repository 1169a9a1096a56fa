/**
 * Problems as data: what is wrong (a message that names the fix) and where (the path of the field, as the
 * user wrote it). The exporter's config, probekit's spec, the Pulumi stack configuration and the skills'
 * inputs all report through this one type, and print through `formatProblem` at their edge.
 */
import type { z } from 'zod';

export type FieldPath = ReadonlyArray<string | number>;

export interface Problem {
  /** The field the problem is about; empty for the document as a whole. */
  readonly path: FieldPath;
  /** What is wrong and how to fix it, in words; never a library's raw text. */
  readonly message: string;
}

/** `jobs[0].targets`, `modules.http_2xx.http.method`, `modules["my module"]`. */
export function formatPath(path: FieldPath): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const plain = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment);
      if (index === 0) return plain ? segment : JSON.stringify(segment);
      return plain ? `.${segment}` : `[${JSON.stringify(segment)}]`;
    })
    .join('');
}

/** Where a problem was found, put before it: a file (with its line when known), a command, a config key. */
export interface ProblemSource {
  readonly source?: string;
  readonly line?: number;
}

/** One line: `source:line: path: message`, each part present when known. */
export function formatProblem(problem: Problem, where: ProblemSource = {}): string {
  const origin = where.source === undefined ? '' : `${where.source}${where.line === undefined ? '' : `:${where.line}`}: `;
  const field = problem.path.length > 0 ? `${formatPath(problem.path)}: ` : '';
  return `${origin}${field}${problem.message}`;
}

/** Problems that stop a load, a synth or a command; `message` holds them one per line. */
export class ProblemsError extends Error {
  constructor(
    readonly problems: readonly Problem[],
    readonly source?: string,
  ) {
    super(problems.map((problem) => formatProblem(problem, { source })).join('\n'));
    this.name = 'ProblemsError';
  }
}

/** The field names an object schema accepts at `path`, following optionals, defaults, unions and pipes. */
export function fieldsAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  const found = new Set<string>();
  const visit = (node: unknown, rest: ReadonlyArray<PropertyKey>): void => {
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
