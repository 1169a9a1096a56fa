/**
 * How the skills read logs: an index pattern resolved to its indices grouped by layout (each index's own field
 * names, from its mapping), one request per layout with that layout's names, on exactly that layout's indices, and
 * the answers merged. Every answer says whether it is complete: shards that failed and why, shards that timed out.
 * A pattern that matches nothing is an empty, complete answer that says so.
 */
import { errors, type Client } from '@elastic/elasticsearch';
import { groupLayouts, KEYWORD_TYPES, LOG_FIELD_ROLES, TEXT_TYPES, flattenMapping, type LogFieldRole, type LogFields, type LogLayout } from './log-fields';
import { LOG_INDEX_PATTERNS } from './api-key';
import { compareLevels, LEVEL_SPELLINGS, normalizeLevel, type LogLevel } from './log-patterns';
import { SkillInputError } from './skill-errors';

/** Where logs are looked for when a call names no index: the read-only key's patterns. */
export const DEFAULT_LOG_INDEX = LOG_INDEX_PATTERNS.join(',');

export interface TermsAgg {
  buckets: { key: string | number; doc_count: number }[];
  sum_other_doc_count?: number;
}

/** Bucket counts with level spellings merged (WARNING and warn are one level), in level order. */
export function byLevel(buckets: TermsAgg['buckets']): Record<string, number> {
  const merged = new Map<string, number>();
  for (const bucket of buckets) {
    const key = normalizeLevel(String(bucket.key));
    merged.set(key, (merged.get(key) ?? 0) + bucket.doc_count);
  }
  return Object.fromEntries([...merged.entries()].sort(([a], [b]) => compareLevels(a, b)));
}

export interface LogTarget {
  /** The index expression as the caller gave it. */
  readonly expression: string;
  readonly layouts: readonly LogLayout[];
  /** Every field of the target's indices, with the types it has in them. */
  readonly fieldTypes: ReadonlyMap<string, ReadonlySet<string>>;
}

const BACKING_INDEX = /^\.ds-(.+)-\d{4}\.\d{2}\.\d{2}-\d{6}$/;

/** The data stream a backing index belongs to, by Elasticsearch's naming of backing indices. */
export function dataStreamOf(index: string): string | undefined {
  return BACKING_INDEX.exec(index)?.[1];
}

/** Reads the mappings of every index `expression` names and groups the indices by layout. */
export async function resolveLogTarget(client: Client, expression: string, explicit: Partial<LogFields>): Promise<LogTarget> {
  const answer = await client.indices.getMapping({ index: expression, allow_no_indices: true });
  const properties: Record<string, Record<string, unknown>> = {};
  const fieldTypes = new Map<string, Set<string>>();
  for (const [index, entry] of Object.entries(answer)) {
    const props = (entry.mappings?.properties ?? {}) as Record<string, unknown>;
    properties[index] = props;
    for (const field of flattenMapping(props)) {
      const types = fieldTypes.get(field.name) ?? new Set<string>();
      types.add(field.type);
      fieldTypes.set(field.name, types);
    }
  }
  return { expression, layouts: groupLayouts(properties, explicit), fieldTypes };
}

/**
 * The index expression for one layout's request: the caller's own when the target has one layout; otherwise the
 * layout's indices, a data stream by its name when all its backing indices are in the layout.
 */
function layoutExpression(target: LogTarget, layout: LogLayout): string {
  if (target.layouts.length === 1) return target.expression;
  const allBacking = new Map<string, number>();
  for (const other of target.layouts)
    for (const index of other.indices) {
      const stream = dataStreamOf(index);
      if (stream !== undefined) allBacking.set(stream, (allBacking.get(stream) ?? 0) + 1);
    }
  const mine = new Map<string, number>();
  for (const index of layout.indices) {
    const stream = dataStreamOf(index);
    if (stream !== undefined) mine.set(stream, (mine.get(stream) ?? 0) + 1);
  }
  const names = new Set<string>();
  for (const index of layout.indices) {
    const stream = dataStreamOf(index);
    names.add(stream !== undefined && mine.get(stream) === allBacking.get(stream) ? stream : index);
  }
  return [...names].join(',');
}

export interface ShardFailure {
  readonly reason: string;
  readonly indices: readonly string[];
}

/** Whether an answer covers everything it was asked about, and if not, why not. */
export interface Completeness {
  readonly complete: boolean;
  readonly shards: { readonly total: number; readonly successful: number; readonly failed: number };
  readonly failures?: readonly ShardFailure[];
  readonly timedOut?: true;
  readonly notes?: readonly string[];
}

interface ShardsSection {
  total: number;
  successful: number;
  failed: number;
  failures?: { index?: string | null; reason?: { type?: string; reason?: string } }[];
}

interface SearchAnswer {
  timed_out: boolean;
  _shards: ShardsSection;
  hits: { total?: number | { value: number }; hits: unknown[] };
  aggregations?: Record<string, unknown>;
}

export interface LayoutAnswer<A> {
  readonly layout: LogLayout;
  readonly answer: A;
}

/**
 * Collects shard counts, failures (by reason, with the indices that gave it), timeouts and notes. A skill may send
 * several requests to the same indices; their shards are counted once, by what the requests were sent to, and a
 * shard counts as failed when it failed in any of them.
 */
export class CompletenessBuilder {
  private readonly shardsBy = new Map<string, { total: number; failed: number }>();
  private timedOut = false;
  private readonly failures = new Map<string, Set<string>>();
  private readonly notes: string[] = [];

  add(answer: { timed_out?: boolean; _shards?: ShardsSection }, sentTo = ''): void {
    const shards = answer._shards;
    if (shards) {
      const seen = this.shardsBy.get(sentTo);
      this.shardsBy.set(sentTo, { total: Math.max(seen?.total ?? 0, shards.total), failed: Math.max(seen?.failed ?? 0, shards.failed) });
      for (const failure of shards.failures ?? []) this.failure(`${failure.reason?.type ?? 'failure'}: ${failure.reason?.reason ?? ''}`.trim(), failure.index ?? 'unknown');
    }
    if (answer.timed_out) this.timedOut = true;
  }

  /** A whole layout's request failed: its indices count as failed shards. */
  addFailedLayout(layout: LogLayout, reason: string, sentTo: string): void {
    this.shardsBy.set(sentTo, { total: layout.indices.length, failed: layout.indices.length });
    for (const index of layout.indices) this.failure(reason, index);
  }

  private get counts(): { total: number; failed: number } {
    let total = 0;
    let failed = 0;
    for (const shards of this.shardsBy.values()) {
      total += shards.total;
      failed += shards.failed;
    }
    return { total, failed };
  }

  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  private failure(reason: string, index: string): void {
    const indices = this.failures.get(reason) ?? new Set<string>();
    indices.add(index);
    this.failures.set(reason, indices);
  }

  /** Whether anything is missing from the answers so far (before `sampled` and other notes of the skill). */
  get partial(): boolean {
    return this.counts.failed > 0 || this.timedOut;
  }

  build(extraIncomplete = false): Completeness {
    const { total, failed } = this.counts;
    return {
      complete: !this.partial && !extraIncomplete,
      shards: { total, successful: total - failed, failed },
      ...(this.failures.size > 0 ? { failures: [...this.failures].map(([reason, indices]) => ({ reason, indices: [...indices].sort() })) } : {}),
      ...(this.timedOut ? { timedOut: true as const } : {}),
      ...(this.notes.length > 0 ? { notes: [...this.notes] } : {}),
    };
  }
}

function failureReason(error: unknown): string | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const body = error.body as { error?: { type?: string; root_cause?: { type?: string; reason?: string }[] } } | undefined;
  if (body?.error?.type !== 'search_phase_execution_exception') return undefined;
  const cause = body.error.root_cause?.[0];
  return `${cause?.type ?? 'failure'}: ${cause?.reason ?? ''}`.trim();
}

/**
 * One search per layout, with the body each layout's field names make, merged into one completeness. A layout
 * whose every shard failed counts as failed shards while another layout answers; when all fail, the first
 * failure is thrown, for the skill to report.
 */
export async function searchLayouts<A extends SearchAnswer>(
  client: Client,
  target: LogTarget,
  body: (layout: LogLayout) => Record<string, unknown>,
  completeness: CompletenessBuilder,
): Promise<LayoutAnswer<A>[]> {
  if (target.layouts.length === 0) {
    completeness.note(`${target.expression} matches no index or data stream; nothing was searched`);
    return [];
  }
  const expressions = target.layouts.map((layout) => layoutExpression(target, layout));
  const settled = await Promise.allSettled(
    target.layouts.map(async (layout, i) => {
      const expression = expressions[i]!;
      const answer = (await client.search({
        index: expression,
        allow_no_indices: true,
        ...(target.layouts.length > 1 ? { ignore_unavailable: true } : {}),
        ...body(layout),
      })) as unknown as A;
      return { layout, answer };
    }),
  );
  const answered: LayoutAnswer<A>[] = [];
  let firstError: unknown;
  for (const [i, outcome] of settled.entries()) {
    if (outcome.status === 'fulfilled') {
      completeness.add(outcome.value.answer, expressions[i]);
      answered.push(outcome.value);
      continue;
    }
    const reason = failureReason(outcome.reason);
    firstError ??= outcome.reason;
    if (reason !== undefined) completeness.addFailedLayout(target.layouts[i]!, reason, expressions[i]!);
  }
  if (answered.length === 0 && firstError !== undefined) throw firstError;
  if (firstError !== undefined && completeness.build().failures === undefined) throw firstError;
  return answered;
}

export function totalOf(answer: { hits: { total?: number | { value: number } } }): number {
  const total = answer.hits.total;
  return typeof total === 'number' ? total : (total?.value ?? 0);
}

/** What a call may filter logs by: the roles, the message's words, and any exact field of the mappings. */
export interface LogFilters {
  readonly level?: LogLevel;
  readonly service?: string;
  /** A pod's name, or a prefix ending in `*` for a deployment's pods (`checkout-7d9f8b6c4-*`). */
  readonly pod?: string;
  readonly namespace?: string;
  readonly container?: string;
  readonly host?: string;
  readonly traceId?: string;
  readonly text?: string;
  readonly where?: Readonly<Record<string, string | number | boolean | readonly (string | number | boolean)[]>>;
}

/** The roles a call can filter by exactly, in the order their filters are built. */
export const FILTER_ROLES = ['service', 'namespace', 'container', 'host', 'traceId'] as const satisfies readonly LogFieldRole[];

export interface TimeWindow {
  readonly from?: string;
  readonly to?: string;
  readonly timeZone?: string;
}

const EXACT_TYPES = new Set([...KEYWORD_TYPES, 'long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'unsigned_long', 'boolean', 'ip', 'date', 'date_nanos']);

/**
 * Checks `where` against the target's mappings: each field must be one that matches exactly (keyword, number,
 * boolean, ip, date) in some index; a text field is refused with its keyword sub-field named when there is one.
 */
export function checkWhere(target: LogTarget, where: LogFilters['where']): void {
  const problems: { path: string[]; message: string }[] = [];
  for (const field of Object.keys(where ?? {})) {
    const types = target.fieldTypes.get(field);
    if (types !== undefined && [...types].some((type) => EXACT_TYPES.has(type))) continue;
    const exact = [...target.fieldTypes].filter(([, t]) => [...t].some((type) => EXACT_TYPES.has(type))).map(([name]) => name);
    let fix: string;
    if (types !== undefined && [...types].some((type) => TEXT_TYPES.has(type))) {
      fix = exact.includes(`${field}.keyword`) ? `it is analysed text; use "${field}.keyword"` : 'it is analysed text; search its words with "text" instead';
    } else {
      const near = exact.filter((name) => name.includes(field) || field.includes(name.split('.').at(-1)!)).slice(0, 5);
      fix = `no index of ${target.expression} has this field${near.length > 0 ? `; similar fields: ${near.join(', ')}` : ''} (get_mappings lists them)`;
    }
    problems.push({ path: ['input', 'where', field], message: fix });
  }
  if (problems.length > 0) throw new SkillInputError(problems);
}

/** Notes for filters on roles that no index of the target has a field for: they cannot match. */
export function unmatchableFilterNotes(target: LogTarget, filters: LogFilters, completeness: CompletenessBuilder): void {
  for (const role of [...FILTER_ROLES, 'pod', 'level'] as const) {
    if (filters[role] === undefined || target.layouts.length === 0) continue;
    if (target.layouts.every((layout) => layout.missing.includes(role))) {
      completeness.note(`no index of ${target.expression} has a field for ${role}, so the ${role} filter matches nothing; name the field with --fields, or filter with "where"`);
    }
  }
}

/** The bool query of a log search for one layout. */
export function logQuery(fields: LogFields, messageIsText: boolean, filters: LogFilters, window: TimeWindow, extra: readonly Record<string, unknown>[] = []): Record<string, unknown> {
  const filter: Record<string, unknown>[] = [];
  if (filters.level !== undefined) {
    filter.push({ bool: { should: LEVEL_SPELLINGS[filters.level].map((value) => ({ term: { [fields.level]: { value, case_insensitive: true } } })), minimum_should_match: 1 } });
  }
  if (filters.pod !== undefined) {
    filter.push(filters.pod.endsWith('*') ? { prefix: { [fields.pod]: { value: filters.pod.slice(0, -1) } } } : { term: { [fields.pod]: filters.pod } });
  }
  for (const role of FILTER_ROLES) {
    const value = filters[role];
    if (value !== undefined) filter.push({ term: { [fields[role]]: value } });
  }
  for (const [field, value] of Object.entries(filters.where ?? {})) filter.push(Array.isArray(value) ? { terms: { [field]: value } } : { term: { [field]: value } });
  if (window.from !== undefined || window.to !== undefined) {
    filter.push({
      range: {
        [fields.timestamp]: {
          ...(window.from !== undefined ? { gte: window.from } : {}),
          ...(window.to !== undefined ? { lt: window.to } : {}),
          ...(window.timeZone !== undefined ? { time_zone: window.timeZone } : {}),
        },
      },
    });
  }
  if (filters.text !== undefined) {
    filter.push(
      messageIsText
        ? { match: { [fields.message]: { query: filters.text, operator: 'and' } } }
        : { wildcard: { [fields.message]: { value: `*${filters.text.replace(/[\\*?]/g, '\\$&')}*`, case_insensitive: true } } },
    );
  }
  filter.push(...extra);
  return { bool: { filter } };
}

/** Fields a log line is read with, the roles found in the layout. */
export function lineFields(layout: LogLayout): string[] {
  return [...new Set(LOG_FIELD_ROLES.filter((role) => !layout.missing.includes(role)).map((role) => layout.fields[role]))];
}
