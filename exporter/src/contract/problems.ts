/**
 * Problems as data: what is wrong (a message that names the fix) and where (the path of the field, as the
 * user wrote it). The exporter's config, probekit's spec, the Pulumi stack configuration and the skills'
 * inputs all report through this one type, and print through `formatProblem` at their edge.
 */
export type FieldPath = ReadonlyArray<string | number>;

export interface Problem {
  /** The field the problem is about; empty for the document as a whole. */
  readonly path: FieldPath;
  /** What is wrong and how to fix it, in words; never a library's raw text. */
  readonly message: string;
  /** The line of the field in the file the input was read from (or of its nearest parent there), when known. */
  readonly line?: number;
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

/**
 * One line: `source:line: path: message` (`line N: path: message` without a source), each part present when known;
 * the line is the problem's own unless `where` gives one.
 */
export function formatProblem(problem: Problem, where: ProblemSource = {}): string {
  const line = where.line ?? problem.line;
  const at = line === undefined ? '' : where.source === undefined ? `line ${line}: ` : `:${line}`;
  const origin = where.source === undefined ? at : `${where.source}${at}: `;
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

  /**
   * These problems named after `source` unless they name a file already: what a check past parsing finds (a form's
   * own refusals) belongs to the file the checked input was read from.
   */
  namedAfter(source: string): ProblemsError {
    return this.source === undefined ? new ProblemsError(this.problems, source) : this;
  }
}

/**
 * A zod 4 schema, by the one part of it read here: its definition tree (`_zod.def`). It is read field by field, never
 * by `instanceof`, so that a schema made with another copy of zod (the library's, beside the one bundled with the
 * exporter) reads the same.
 */
export interface SchemaDefinition {
  readonly _zod: { readonly def: object };
}

/**
 * One issue of a failed schema check, as zod 4 reports it (`safeParse(...).error.issues`), by the fields read here;
 * which of the optional ones are present depends on `code`.
 */
export interface SchemaIssue {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  /** The value checked: present when the schema was run with `{ reportInput: true }`. */
  readonly input?: unknown;
  /** unrecognized_keys: the unknown fields. */
  readonly keys?: readonly string[];
  /** invalid_type: the kind of value expected (`string`, `array`, ...). */
  readonly expected?: string;
  /** invalid_value: the values allowed. */
  readonly values?: readonly unknown[];
  /** too_small, too_big: the kind of value measured (`array`, `string`, `number`), and its bound. */
  readonly origin?: string;
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly inclusive?: boolean;
  /** invalid_union: the issues of each alternative. */
  readonly errors?: ReadonlyArray<readonly SchemaIssue[]>;
  /** invalid_key, invalid_element: the issues of the key or element. */
  readonly issues?: readonly SchemaIssue[];
  readonly key?: unknown;
}

export interface SchemaProblemOptions {
  /**
   * Say what a wrong value is by its kind alone (`must be text, not a number`), never repeating it: for input that
   * may hold a secret (a password, a token, a header value). @default false
   */
  readonly withholdValues?: boolean;
}

/** The field names an object schema accepts at `path`, following optionals, defaults, unions and pipes. */
export function fieldsAt(schema: SchemaDefinition, path: ReadonlyArray<PropertyKey>): string[] {
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

function pathOf(issue: SchemaIssue): FieldPath {
  return issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
}

/** What a field expects, by the schema's name of the kind, as the end of "must be ...": `text`, `a list`. */
const EXPECTED_KINDS: Readonly<Record<string, string>> = {
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/** The kind of a value given, as the end of "not ...": `text`, `a number`, `a list`. */
const GIVEN_KINDS: Readonly<Record<string, string>> = { string: 'text', number: 'a number', bigint: 'a number', boolean: 'a boolean' };

/** What a value is, quoting short text: `the text "yes"`, `number 5`, `a list`. */
function kindOf(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

/** The kind of a value, never the value: `a number`, `text`, `a list`. */
export function kindOfValue(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return GIVEN_KINDS[typeof value] ?? typeof value;
}

function deepestBranch(branches: ReadonlyArray<readonly SchemaIssue[]>): readonly SchemaIssue[] | undefined {
  const depth = (issues: readonly SchemaIssue[]): number => Math.max(0, ...issues.map((issue) => issue.path.length + (issue.code === 'unrecognized_keys' ? 1 : 0)));
  return [...branches].sort((a, b) => depth(b) - depth(a))[0];
}

/**
 * The problems of a failed schema check, one per field, in our words: an unknown field names the one it
 * likely meant, a missing one says it is required, a wrong kind says what is expected. Messages the schema
 * itself gives (refinements, regex checks) are kept as written. `prefix` is where the value sits.
 * Parse with `{ reportInput: true }` so that messages can say what was given.
 */
export function schemaProblems(schema: SchemaDefinition, issues: readonly SchemaIssue[], prefix: FieldPath = [], options: SchemaProblemOptions = {}): Problem[] {
  const withhold = options.withholdValues === true;
  return issues.flatMap((issue): Problem[] => {
    const relative = pathOf(issue);
    const path = [...prefix, ...relative];
    const given = issue.input;
    switch (issue.code) {
      case 'unrecognized_keys': {
        const known = fieldsAt(schema, relative);
        return (issue.keys ?? []).map((key) => {
          const suggestion = closestName(key, known);
          const fix = suggestion ? `did you mean "${suggestion}"?` : known.length > 0 ? `remove it; the fields here are ${known.join(', ')}` : 'remove it';
          return { path: [...path, key], message: `unknown field; ${fix}` };
        });
      }
      case 'invalid_union': {
        // The branch that got furthest says what is wrong; zod's own text only says "invalid input".
        const deepest = deepestBranch(issue.errors ?? []);
        if (deepest && deepest.length > 0) {
          const nested = deepest.map((inner): SchemaIssue => ({ ...inner, path: [...issue.path, ...inner.path] }));
          return schemaProblems(schema, nested, prefix, options).slice(0, 1);
        }
        return [{ path, message: issue.message }];
      }
      case 'invalid_type': {
        const expected = issue.expected ?? 'something else';
        if (given === undefined) return [{ path, message: 'is required' }];
        return [{ path, message: `must be ${EXPECTED_KINDS[expected] ?? expected}, not ${withhold ? kindOfValue(given) : kindOf(given)}` }];
      }
      case 'invalid_value': {
        const values = issue.values ?? [];
        if (values.length === 1) return [{ path, message: `must be ${JSON.stringify(values[0])}` }];
        return [{ path, message: `${given === undefined || withhold ? 'must be' : `${kindOf(given)} is not allowed; use`} one of ${values.map((value) => String(value)).join(', ')}` }];
      }
      case 'too_small':
        if (issue.origin === 'array') return [{ path, message: `must list at least ${String(issue.minimum)} ${Number(issue.minimum) === 1 ? 'entry' : 'entries'}` }];
        if (issue.origin === 'string') return [{ path, message: Number(issue.minimum) === 1 ? 'must not be empty' : `must be at least ${String(issue.minimum)} characters long` }];
        return [{ path, message: `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}` }];
      case 'too_big':
        if (issue.origin === 'array') return [{ path, message: `must list at most ${String(issue.maximum)} entries` }];
        if (issue.origin === 'string') return [{ path, message: `must be at most ${String(issue.maximum)} characters long` }];
        return [{ path, message: `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}` }];
      case 'invalid_key': {
        const inner = schemaProblems(
          schema,
          (issue.issues ?? []).map((nested): SchemaIssue => ({ ...nested, path: [] })),
          [],
          options,
        )[0];
        // The path ends in the key itself; what is wrong is its name, not its value.
        return [{ path, message: `name ${inner?.message ?? 'is not allowed here'}` }];
      }
      case 'invalid_element':
        return [{ path, message: `entry ${JSON.stringify(String(issue.key))} is not allowed` }];
      default:
        return [{ path, message: issue.message }];
    }
  });
}
