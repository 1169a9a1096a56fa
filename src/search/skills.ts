/**
 * The assistant's built-in skills, what it may ask of the logs: the indices and their mappings, targeted logs, counts, summaries and
 * analytics. Each is one Elasticsearch request (two when an index pattern's log fields are first detected).
 */
import { z } from 'zod';
import { flattenMapping, detectLogFields, type LogFields } from './log-fields';
import { LEVEL_SPELLINGS, LOG_LEVELS, messagePattern, normalizeLevel } from './log-patterns';
import { defineSkill, SkillInputError, type Skill, type SkillContext } from './skill';

/** Where logs are looked for when a call names no index: ECS data streams (`logs-<dataset>-<namespace>`). */
export const DEFAULT_LOG_INDEX = 'logs-*';
export const MAX_FETCH = 500;
export const MAX_SUMMARIZE = 5000;

const index = z.string().min(1).optional().describe(`Index name or pattern, comma-separated for several; default ${DEFAULT_LOG_INDEX}`);
const level = z.enum(LOG_LEVELS).optional().describe('Log level; its usual spellings (WARNING, Err, ...) match too');
const pod = z.string().min(1).optional().describe('Kubernetes pod name');
const namespace = z.string().min(1).optional().describe('Kubernetes namespace');
const DATE_TIME = 'must be an ISO 8601 date and time, e.g. 2026-11-20T08:00:00Z';
const from = z.iso.datetime({ offset: true, error: DATE_TIME }).optional().describe('Start of the window, ISO 8601 (inclusive), e.g. 2026-11-20T08:00:00Z');
const to = z.iso.datetime({ offset: true, error: DATE_TIME }).optional().describe('End of the window, ISO 8601 (exclusive)');

const filters = { index, level, pod, namespace, from, to };
type Filters = { index?: string; level?: string; pod?: string; namespace?: string; from?: string; to?: string; text?: string };

function windowOf(input: { from?: string; to?: string; date?: string }): { from?: string; to?: string } {
  if (input.date !== undefined) {
    if (input.from !== undefined || input.to !== undefined) throw new SkillInputError([{ path: ['input', 'date'], message: 'give either a date or a from/to window, not both' }]);
    const start = Date.parse(`${input.date}T00:00:00Z`);
    return { from: new Date(start).toISOString(), to: new Date(start + 86_400_000).toISOString() };
  }
  if (input.from !== undefined && input.to !== undefined && Date.parse(input.from) >= Date.parse(input.to)) {
    throw new SkillInputError([{ path: ['input', 'to'], message: 'the window ends before it starts; give a "to" after "from"' }]);
  }
  return { ...(input.from === undefined ? {} : { from: input.from }), ...(input.to === undefined ? {} : { to: input.to }) };
}

/** The bool filter of a log query; exact fields are matched as keywords, free text against the message. */
function logQuery(fields: LogFields, input: Filters): Record<string, unknown> {
  const filter: Record<string, unknown>[] = [];
  if (input.level !== undefined) {
    const spellings = LEVEL_SPELLINGS[input.level as keyof typeof LEVEL_SPELLINGS];
    filter.push({ bool: { should: spellings.map((value) => ({ term: { [fields.level]: { value, case_insensitive: true } } })), minimum_should_match: 1 } });
  }
  if (input.pod !== undefined) filter.push({ term: { [fields.pod]: input.pod } });
  if (input.namespace !== undefined) filter.push({ term: { [fields.namespace]: input.namespace } });
  if (input.from !== undefined || input.to !== undefined) {
    filter.push({ range: { [fields.timestamp]: { ...(input.from ? { gte: input.from } : {}), ...(input.to ? { lt: input.to } : {}), format: 'strict_date_optional_time' } } });
  }
  const must = input.text === undefined ? [] : [{ match: { [fields.message]: { query: input.text, operator: 'and' } } }];
  return { bool: { filter, ...(must.length ? { must } : {}) } };
}

interface LogLine {
  readonly timestamp: string | null;
  readonly level: string | null;
  readonly message: string | null;
  readonly pod: string | null;
  readonly namespace: string | null;
  readonly index: string;
}

interface SearchHitWithFields {
  _index: string;
  fields?: Record<string, unknown[]>;
}

function requestedFields(fields: LogFields): string[] {
  return [fields.timestamp, fields.level, fields.message, fields.pod, fields.namespace];
}

function toLine(hit: SearchHitWithFields, fields: LogFields): LogLine {
  const first = (name: string) => {
    const value = hit.fields?.[name]?.[0];
    return value === undefined || value === null ? null : String(value);
  };
  return {
    timestamp: first(fields.timestamp),
    level: first(fields.level),
    message: first(fields.message),
    pod: first(fields.pod),
    namespace: first(fields.namespace),
    index: hit._index,
  };
}

function totalOf(total: number | { value: number } | undefined): number {
  return typeof total === 'number' ? total : (total?.value ?? 0);
}

type Window = { from?: string; to?: string };

/** One search over the logs an input selects; `shape` adds what the skill wants back (hits, aggregations). */
async function queryLogs(context: SkillContext, input: Filters & { date?: string }, shape: (fields: LogFields, window: Window) => Record<string, unknown>) {
  const target = input.index ?? DEFAULT_LOG_INDEX;
  const fields = await context.logFields(target);
  const window = windowOf(input);
  const answer = await context.client.search({ index: target, query: logQuery(fields, { ...input, ...window }), track_total_hits: true, ...shape(fields, window) });
  return { target, fields, window, total: totalOf(answer.hits.total), answer };
}

/** Newest first; the `fields` option returns values however the documents nest them, `.keyword` sub-fields included. */
async function searchLogs(context: SkillContext, input: Filters, size: number) {
  const { answer, ...found } = await queryLogs(context, input, (fields) => ({ sort: [{ [fields.timestamp]: { order: 'desc' } }], size, _source: false, fields: requestedFields(fields) }));
  return { ...found, lines: answer.hits.hits.map((hit) => toLine(hit as SearchHitWithFields, found.fields)) };
}

/** Only aggregations: the count of matching lines and the one aggregation, named `result`. */
async function aggregateLogs<A>(context: SkillContext, input: Filters & { date?: string }, aggregation: (fields: LogFields, window: Window) => Record<string, unknown>) {
  const { answer, ...found } = await queryLogs(context, input, (fields, window) => ({ size: 0, aggs: { result: aggregation(fields, window) } }));
  return { ...found, result: answer.aggregations?.result as unknown as A };
}

interface TermsBuckets {
  buckets: { key: string | number; doc_count: number }[];
  sum_other_doc_count?: number;
}

/** Bucket counts with level spellings merged (WARNING and warn are one level), ordered by level then by name. */
function byLevel(buckets: TermsBuckets['buckets']): Record<string, number> {
  const merged = new Map<string, number>();
  for (const bucket of buckets) {
    const key = normalizeLevel(String(bucket.key));
    merged.set(key, (merged.get(key) ?? 0) + bucket.doc_count);
  }
  const rank = (level: string) => {
    const at = (LOG_LEVELS as readonly string[]).indexOf(level);
    return at < 0 ? LOG_LEVELS.length : at;
  };
  return Object.fromEntries([...merged.entries()].sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1)));
}

export const listIndices = defineSkill({
  name: 'list_indices',
  description: 'List the indices of the search engine with their health, status, document count and size in bytes.',
  input: z.object({ pattern: z.string().min(1).default('*').describe('Index name pattern, e.g. logs-*') }),
  async handler(input, { client }) {
    const rows = await client.cat.indices({ index: input.pattern, format: 'json', bytes: 'b', h: ['index', 'health', 'status', 'docs.count', 'store.size'], s: 'index' });
    return {
      indices: rows.map((row) => ({
        index: row.index,
        health: row.health,
        status: row.status,
        docsCount: Number(row['docs.count'] ?? 0),
        sizeBytes: Number(row['store.size'] ?? 0),
      })),
    };
  },
});

export const getMappings = defineSkill({
  name: 'get_mappings',
  description: "Get the fields (name and type) of an index or pattern from its mappings, and which fields hold the logs' time, level, message, pod, namespace and service.",
  input: z.object({ index: z.string().min(1).describe('Index name or pattern') }),
  async handler(input, { client }) {
    const answer = await client.indices.getMapping({ index: input.index });
    return {
      indices: Object.entries(answer)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, entry]) => {
          const properties = (entry.mappings.properties ?? {}) as Record<string, unknown>;
          return { index: name, fields: flattenMapping(properties), logFields: detectLogFields([properties]) };
        }),
    };
  },
});

export const fetchLogs = defineSkill({
  name: 'fetch_logs',
  description: 'Fetch log lines, newest first, filtered by level, time window, pod, namespace and free text in the message.',
  input: z.object({
    ...filters,
    text: z.string().min(1).optional().describe('Words that must all appear in the message'),
    limit: z.number().int().min(1).max(MAX_FETCH).default(50).describe(`How many lines at most (1-${MAX_FETCH})`),
  }),
  async handler(input, context) {
    const { target, window, total, lines } = await searchLogs(context, input, input.limit);
    return { index: target, ...window, total, returned: lines.length, logs: lines };
  },
});

export const countLogs = defineSkill({
  name: 'count_logs',
  description: 'Count log lines on a date (UTC) or in a time window, optionally of one level, pod or namespace, with the count per level.',
  input: z.object({
    ...filters,
    date: z.iso.date({ error: 'must be a date written YYYY-MM-DD, e.g. 2026-11-19' }).optional().describe('A whole day in UTC, YYYY-MM-DD; instead of from/to'),
  }),
  async handler(input, context) {
    const { target, window, total, result } = await aggregateLogs<TermsBuckets>(context, input, (fields) => ({ terms: { field: fields.level, size: 50 } }));
    return { index: target, ...window, ...(input.level ? { level: input.level } : {}), total, byLevel: byLevel(result.buckets) };
  },
});

export const summarizeLogs = defineSkill({
  name: 'summarize_logs',
  description: 'Summarize log lines (e.g. of one pod in one namespace) into message patterns, with numbers, ids, hex, UUIDs, IPs and times masked: count, first and last seen, and a sample of each.',
  input: z.object({
    ...filters,
    maxLogs: z.number().int().min(1).max(MAX_SUMMARIZE).default(1000).describe(`How many of the newest lines to read (1-${MAX_SUMMARIZE})`),
    top: z.number().int().min(1).max(200).default(20).describe('How many patterns to return, most frequent first'),
  }),
  async handler(input, context) {
    const { target, window, total, lines } = await searchLogs(context, input, input.maxLogs);
    const groups = new Map<string, { pattern: string; count: number; firstSeen: string | null; lastSeen: string | null; sample: string; levels: Set<string> }>();
    // Lines arrive newest first, so the first of a group is its last seen and the latest overwrite is its first seen.
    for (const line of lines) {
      const message = line.message ?? '';
      const pattern = messagePattern(message);
      const group = groups.get(pattern);
      if (group === undefined) {
        groups.set(pattern, { pattern, count: 1, firstSeen: line.timestamp, lastSeen: line.timestamp, sample: message, levels: new Set(line.level ? [normalizeLevel(line.level)] : []) });
      } else {
        group.count += 1;
        group.firstSeen = line.timestamp;
        if (line.level) group.levels.add(normalizeLevel(line.level));
      }
    }
    const patterns = [...groups.values()]
      .sort((a, b) => b.count - a.count || (a.firstSeen ?? '').localeCompare(b.firstSeen ?? '') || a.pattern.localeCompare(b.pattern))
      .slice(0, input.top)
      .map((group) => ({ ...group, levels: [...group.levels].sort() }));
    return { index: target, ...window, total, analysed: lines.length, distinctPatterns: groups.size, patterns };
  },
});

const INTERVAL = /^[1-9]\d*(ms|s|m|h|d)$/;

export const logHistogram = defineSkill({
  name: 'log_histogram',
  description: 'Count log lines over time: a date histogram with a fixed interval (e.g. 5m, 1h, 1d), optionally of one level, pod or namespace.',
  input: z.object({
    ...filters,
    interval: z.string().regex(INTERVAL, 'an interval is a number and a unit: ms, s, m, h or d (e.g. 1h)').default('1h'),
  }),
  async handler(input, context) {
    const { target, window, total, result } = await aggregateLogs<{ buckets: { key_as_string: string; doc_count: number }[] }>(context, input, (fields, window) => ({
      date_histogram: {
        field: fields.timestamp,
        fixed_interval: input.interval,
        min_doc_count: 0,
        // With a window, empty buckets at its edges are shown too, so that "no errors between 8 and 9" is visible.
        ...(window.from !== undefined && window.to !== undefined ? { extended_bounds: { min: Date.parse(window.from), max: Date.parse(window.to) - 1 } } : {}),
      },
    }));
    return { index: target, ...window, interval: input.interval, total, buckets: result.buckets.map((b) => ({ start: b.key_as_string, count: b.doc_count })) };
  },
});

export const countByField = defineSkill({
  name: 'count_by_field',
  description: 'Count log lines by level, pod, namespace or service, most frequent first, optionally in a window and filtered.',
  input: z.object({
    ...filters,
    by: z.enum(['level', 'pod', 'namespace', 'service']).describe('What to count by'),
    size: z.number().int().min(1).max(500).default(10).describe('How many values to return'),
  }),
  async handler(input, context) {
    const { target, fields, window, total, result } = await aggregateLogs<TermsBuckets>(context, input, (fields) => ({
      terms: { field: fields[input.by], size: input.by === 'level' ? 50 : input.size },
    }));
    // Level spellings merge only after the engine counted them, so levels are re-ordered here: most frequent first,
    // ties in level order (a stable sort of the level-ordered counts).
    const counted =
      input.by === 'level'
        ? Object.entries(byLevel(result.buckets))
            .map(([value, count]) => ({ value, count }))
            .sort((a, b) => b.count - a.count)
        : result.buckets.map((b) => ({ value: String(b.key), count: b.doc_count }));
    const shown = counted.slice(0, input.size);
    const other = (result.sum_other_doc_count ?? 0) + counted.slice(input.size).reduce((sum, b) => sum + b.count, 0);
    return { index: target, ...window, by: input.by, field: fields[input.by], total, buckets: shown, otherCount: other };
  },
});

/** The built-in skills, in the order an assistant is shown them. */
export const BUILT_IN_SKILLS: readonly Skill[] = [listIndices, getMappings, fetchLogs, countLogs, summarizeLogs, logHistogram, countByField] as unknown as Skill[];
