/**
 * The assistant's built-in skills, what it may ask of the logs: the indices and data streams with their mappings,
 * targeted logs, counts, summaries and analytics, and the logs behind a failing probe (./probe-failures.ts). Every
 * answer says whether it is complete (shards that failed and why, timeouts, sampling), stays within a size the
 * caller can raise, and marks log text as data. Unknown input fields are refused, with the fields a skill takes.
 */
import { z } from 'zod';
import { cutMessage, DEFAULT_ANSWER_CHARS, DEFAULT_MESSAGE_CHARS, fitToBudget, LOG_DATA_NOTICE, MAX_ANSWER_CHARS, MAX_MESSAGE_CHARS } from './answers';
import { LOG_FIELD_ROLES, type LogLayout } from './log-fields';
import { compareLevels, LOG_LEVELS, normalizeLevel } from './log-patterns';
import {
  byLevel,
  checkWhere,
  CompletenessBuilder,
  dataStreamOf,
  DEFAULT_LOG_INDEX,
  lineFields,
  logQuery,
  searchLayouts,
  totalOf,
  unmatchableFilterNotes,
  type LogFilters,
  type LogTarget,
  type TermsAgg,
  type TimeWindow,
} from './log-search';
import { defineSkill, SkillInputError, type Skill, type SkillContext } from './skill';

export { DEFAULT_LOG_INDEX };
import { MAX_PATTERNS, summarize } from './summarize';
import { formatInstant, isTimeZone, resolveTime, TIME_HELP, TIME_ZONE_HELP } from './time';
import { probeFailureLogs } from './probe-failures';

export const MAX_FETCH = 500;

const scalar = z.union([z.string().min(1), z.number(), z.boolean()]);

const timeInput = (what: string) =>
  z
    .string()
    .refine((text) => resolveTime(text, Date.now()) !== undefined, { error: `must be ${TIME_HELP}` })
    .optional()
    .describe(`${what}: Elasticsearch date math (now-15m, now/d, now-1d/d) or an absolute time (2026-11-20T08:00:00Z, 2026-11-19)`);

/** The input fields every log skill takes: where to look, when, and the filters. */
export const LOG_INPUT = {
  index: z.string().min(1).optional().describe(`Index, data stream or pattern, comma-separated for several; default ${DEFAULT_LOG_INDEX}`),
  level: z.enum(LOG_LEVELS).optional().describe('Log level; its usual spellings (WARNING, Err, ...) match too'),
  service: z.string().min(1).optional().describe('Service name (service.name, or its equivalent in the index)'),
  pod: z.string().min(1).optional().describe("Kubernetes pod name; end it with * for a prefix, e.g. a deployment's pods checkout-7d9f8b6c4-*"),
  namespace: z.string().min(1).optional().describe('Kubernetes namespace'),
  container: z.string().min(1).optional().describe('Container name'),
  host: z.string().min(1).optional().describe('Host or node name'),
  traceId: z.string().min(1).optional().describe('Trace id'),
  where: z
    .record(z.string().min(1), z.union([scalar, z.array(scalar).min(1)]))
    .optional()
    .describe('Any other exact field and its value (or a list of values), e.g. {"http.response.status_code": 503}; checked against the mappings'),
  from: timeInput('Start of the window (inclusive)'),
  to: timeInput('End of the window (exclusive)'),
  timeZone: z
    .string()
    .refine(isTimeZone, { error: `must be ${TIME_ZONE_HELP}` })
    .optional()
    .describe('Time zone for times written without one, for rounding (now/d) and for days and buckets, e.g. Europe/Zurich; default UTC'),
};

const date = z.iso.date({ error: 'must be a date written YYYY-MM-DD, e.g. 2026-11-19' }).optional().describe('A whole day, YYYY-MM-DD, in the time zone (default UTC); instead of from/to');
const maxMessageChars = z.number().int().min(20).max(MAX_MESSAGE_CHARS).default(DEFAULT_MESSAGE_CHARS).describe('Messages longer than this are cut; their full length is stated');
const maxAnswerChars = z
  .number()
  .int()
  .min(1000)
  .max(MAX_ANSWER_CHARS)
  .default(DEFAULT_ANSWER_CHARS)
  .describe('Size of the answer in characters at most; its longest list is shortened to fit, and says so');

type LogInput = { [K in keyof typeof LOG_INPUT]?: z.infer<(typeof LOG_INPUT)[K]> } & { text?: string; date?: string };

interface Window extends TimeWindow {
  readonly resolvedFrom?: string;
  readonly resolvedTo?: string;
}

/** The window an input asks for: `date`, or `from`/`to`; checked for order on this machine's clock. */
export function windowOf(input: LogInput): Window {
  const zone = input.timeZone;
  let from = input.from;
  let to = input.to;
  if (input.date !== undefined) {
    if (from !== undefined || to !== undefined) throw new SkillInputError([{ path: ['input', 'date'], message: 'give either a date or a from/to window, not both' }]);
    from = input.date;
    to = `${input.date}||+1d`;
  }
  const now = Date.now();
  const start = from === undefined ? undefined : resolveTime(from, now, zone ?? 'UTC');
  const end = to === undefined ? undefined : resolveTime(to, now, zone ?? 'UTC');
  if (start !== undefined && end !== undefined && start >= end) {
    throw new SkillInputError([{ path: ['input', 'to'], message: 'the window ends before it starts; give a "to" after "from"' }]);
  }
  return {
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(zone === undefined ? {} : { timeZone: zone }),
    ...(start === undefined ? {} : { resolvedFrom: formatInstant(start, zone) }),
    ...(end === undefined ? {} : { resolvedTo: formatInstant(end, zone) }),
  };
}

export function filtersOf(input: LogInput): LogFilters {
  const { level, service, pod, namespace, container, host, traceId, where, text } = input;
  return Object.fromEntries(Object.entries({ level, service, pod, namespace, container, host, traceId, where, text }).filter(([, v]) => v !== undefined)) as LogFilters;
}

/** The target, checked filters and window of a log call, with a completeness that already holds their notes. */
export async function prepareLogCall(context: SkillContext, input: LogInput) {
  const index = input.index ?? DEFAULT_LOG_INDEX;
  const window = windowOf(input);
  const filters = filtersOf(input);
  const target = await context.logTarget(index);
  checkWhere(target, filters.where);
  const completeness = new CompletenessBuilder();
  unmatchableFilterNotes(target, filters, completeness);
  return { index, window, filters, target, completeness };
}

function windowAnswer(window: Window): Record<string, unknown> {
  return Object.keys(window).length === 0 ? {} : { window };
}

interface AggAnswer {
  timed_out: boolean;
  _shards: { total: number; successful: number; failed: number };
  hits: { total?: { value: number }; hits: unknown[] };
  aggregations?: { result?: unknown };
}

/** Only aggregations: the count of matching lines per layout and the one aggregation, named `result`. */
async function aggregate<A>(
  context: SkillContext,
  target: LogTarget,
  filters: LogFilters,
  window: TimeWindow,
  completeness: CompletenessBuilder,
  aggregation: (layout: LogLayout) => Record<string, unknown>,
) {
  const answers = await searchLayouts<AggAnswer>(
    context.client,
    target,
    (layout) => ({ size: 0, track_total_hits: true, query: logQuery(layout.fields, layout.messageIsText, filters, window), aggs: { result: aggregation(layout) } }),
    completeness,
  );
  return {
    total: answers.reduce((sum, { answer }) => sum + totalOf(answer), 0),
    results: answers.map(({ layout, answer }) => ({ layout, result: answer.aggregations?.result as A | undefined })),
  };
}

export const listIndices = defineSkill({
  name: 'list_indices',
  description: 'List the data streams (by name, with their backing index count, documents, size and time range) and the other indices (health, status, documents, size) that match a pattern.',
  input: z.object({ pattern: z.string().min(1).default('*').describe('Index or data stream pattern, e.g. logs-*'), maxAnswerChars }).strict(),
  async handler(input, { client }) {
    const [rows, streams] = await Promise.all([
      client.cat.indices({ index: input.pattern, format: 'json', bytes: 'b', h: ['index', 'health', 'status', 'docs.count', 'store.size'], s: 'index' }),
      client.indices.getDataStream({ name: input.pattern }).then(
        (answer) => answer.data_streams,
        (error: unknown) => {
          // A plain index name is no data stream: Elasticsearch answers 404, which means "none" here.
          if ((error as { statusCode?: number }).statusCode === 404) return [];
          throw error;
        },
      ),
    ]);
    const rowOf = new Map(rows.map((row) => [row.index ?? '', row]));
    const backing = new Set(streams.flatMap((stream) => stream.indices.map((index) => index.index_name)));
    const ranges = new Map<string, { first: string | null; last: string | null }>();
    const completeness = new CompletenessBuilder();
    // Time ranges: one search per timestamp field (all `@timestamp` as a rule), min and max per backing index.
    const byField = new Map<string, string[]>();
    for (const stream of streams) byField.set(stream.timestamp_field.name, [...(byField.get(stream.timestamp_field.name) ?? []), stream.name]);
    for (const [field, names] of byField) {
      const answer = (await client.search({
        index: names.join(','),
        size: 0,
        aggs: { byIndex: { terms: { field: '_index', size: 10_000 }, aggs: { first: { min: { field } }, last: { max: { field } } } } },
      })) as unknown as AggAnswer & { aggregations?: { byIndex?: { buckets: { key: string; first: { value: number | null }; last: { value: number | null } }[] } } };
      completeness.add(answer);
      for (const bucket of answer.aggregations?.byIndex?.buckets ?? []) {
        const stream = dataStreamOf(bucket.key) ?? bucket.key;
        const range = ranges.get(stream) ?? { first: null, last: null };
        const first = bucket.first.value === null ? null : new Date(bucket.first.value).toISOString();
        const last = bucket.last.value === null ? null : new Date(bucket.last.value).toISOString();
        if (first !== null && (range.first === null || first < range.first)) range.first = first;
        if (last !== null && (range.last === null || last > range.last)) range.last = last;
        ranges.set(stream, range);
      }
    }
    const worst = (healths: (string | undefined)[]) => (healths.includes('red') ? 'red' : healths.includes('yellow') ? 'yellow' : 'green');
    const answer = {
      pattern: input.pattern,
      dataStreams: streams
        .map((stream) => {
          const members = stream.indices.map((index) => rowOf.get(index.index_name)).filter((row) => row !== undefined);
          return {
            name: stream.name,
            backingIndices: stream.indices.length,
            health: worst(members.map((row) => row.health)),
            docsCount: members.reduce((sum, row) => sum + Number(row['docs.count'] ?? 0), 0),
            sizeBytes: members.reduce((sum, row) => sum + Number(row['store.size'] ?? 0), 0),
            firstTimestamp: ranges.get(stream.name)?.first ?? null,
            lastTimestamp: ranges.get(stream.name)?.last ?? null,
          };
        })
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
      indices: rows
        .filter((row) => !backing.has(row.index ?? ''))
        .map((row) => ({ index: row.index, health: row.health, status: row.status, docsCount: Number(row['docs.count'] ?? 0), sizeBytes: Number(row['store.size'] ?? 0) })),
      ...completeness.build(),
    };
    return fitToBudget(answer, 'indices', input.maxAnswerChars, 'narrow the pattern, or raise maxAnswerChars');
  },
});

interface FieldCapsType {
  type: string;
  metadata_field?: boolean;
  indices?: string[];
}

export const getMappings = defineSkill({
  name: 'get_mappings',
  description:
    "Get the fields (name and type, once for all the indices of a pattern, with type conflicts and where a field is missing) and, per layout, which fields hold the logs' time, level, message, pod, namespace, service, container, host and trace id.",
  input: z
    .object({
      index: z.string().min(1).describe('Index, data stream or pattern'),
      fields: z.string().min(1).default('*').describe('Which fields to list: a name or a pattern such as kubernetes.*'),
      maxAnswerChars,
    })
    .strict(),
  async handler(input, context) {
    const [caps, target] = await Promise.all([
      // `fields` in the query string: 7.17 takes it only there (the client's fieldCaps puts it in the body, as 8.x allows).
      context.client.transport.request<{ indices: string[]; fields: Record<string, Record<string, FieldCapsType>> }>({
        method: 'GET',
        path: `/${encodeURIComponent(input.index)}/_field_caps`,
        querystring: { fields: input.fields, include_unmapped: true, allow_no_indices: true },
      }),
      context.logTarget(input.index),
    ]);
    const indices = caps.indices;
    const fields: Record<string, unknown>[] = [];
    for (const [name, types] of Object.entries(caps.fields).sort(([a], [b]) => (a < b ? -1 : 1))) {
      // An object is no field to query; where a name is an object in one index and a field in another, the
      // object's indices count as missing the field.
      const mapped = Object.values(types).filter((t) => t.type !== 'unmapped' && t.type !== 'object' && !t.metadata_field);
      if (mapped.length === 0) continue;
      const unmapped = indices.length - mapped.reduce((sum, t) => sum + (t.indices?.length ?? indices.length), 0);
      fields.push({
        name,
        ...(mapped.length === 1 ? { type: mapped[0]!.type } : { types: Object.fromEntries(mapped.map((t) => [t.type, t.indices ?? []])) }),
        ...(unmapped > 0 ? { missingIn: unmapped } : {}),
      });
    }
    const dataStreams = [...new Set(indices.map(dataStreamOf).filter((name) => name !== undefined))].sort();
    const answer = {
      index: input.index,
      indices: indices.length,
      ...(dataStreams.length > 0 ? { dataStreams } : {}),
      layouts: target.layouts.map((layout) => ({
        indices: layout.indices.length,
        sample: layout.indices.slice(0, 3),
        logFields: Object.fromEntries(LOG_FIELD_ROLES.filter((role) => !layout.missing.includes(role)).map((role) => [role, layout.fields[role]])),
        ...(layout.missing.length > 0 ? { notFound: layout.missing } : {}),
      })),
      fields,
    };
    return fitToBudget(answer, 'fields', input.maxAnswerChars, 'ask for fewer with "fields" (e.g. kubernetes.*) or raise maxAnswerChars');
  },
});

interface HitsAnswer {
  timed_out: boolean;
  _shards: { total: number; successful: number; failed: number };
  hits: { total?: { value: number }; hits: { _index: string; fields?: Record<string, unknown[]>; sort?: unknown[] }[] };
}

type SortKey = [number | string, string, number];

function compareKeys(a: SortKey, b: SortKey): number {
  if (a[0] !== b[0]) return a[0] > b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return a[2] - b[2];
}

function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): SortKey {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(key) && key.length === 3 && typeof key[1] === 'string' && typeof key[2] === 'number') return key as SortKey;
  } catch {
    // reported below
  }
  throw new SkillInputError([{ path: ['input', 'cursor'], message: 'not a cursor of fetch_logs; pass nextCursor from the previous answer as it was' }]);
}

export const fetchLogs = defineSkill({
  name: 'fetch_logs',
  description:
    'Fetch log lines, newest first, filtered by level, time window, service, pod (or pod prefix), namespace, container, host, trace id, any keyword field and free text in the message; pages with a cursor.',
  input: z
    .object({
      ...LOG_INPUT,
      text: z.string().min(1).optional().describe('Words that must all appear in the message'),
      limit: z.number().int().min(1).max(MAX_FETCH).default(50).describe(`How many lines at most (1-${MAX_FETCH})`),
      cursor: z.string().min(1).optional().describe('nextCursor of the previous answer, for the lines after it'),
      maxMessageChars,
      maxAnswerChars,
    })
    .strict(),
  async handler(input, context) {
    const { index, window, filters, target, completeness } = await prepareLogCall(context, input);
    const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    const answers = await searchLayouts<HitsAnswer>(
      context.client,
      target,
      (layout) => ({
        size: input.limit,
        track_total_hits: true,
        _source: false,
        fields: lineFields(layout),
        query: logQuery(layout.fields, layout.messageIsText, filters, window),
        // Newest first; ties broken by index and position in it, so that the cursor names one line exactly.
        sort: [{ [layout.fields.timestamp]: { order: 'desc', unmapped_type: 'date' } }, { _index: { order: 'asc' } }, { _doc: { order: 'asc' } }],
        ...(after ? { search_after: after } : {}),
      }),
      completeness,
    );
    const lines = answers
      .flatMap(({ layout, answer }) => answer.hits.hits.map((hit) => ({ layout, hit, key: hit.sort as SortKey })))
      .sort((a, b) => compareKeys(a.key, b.key))
      .slice(0, input.limit);
    const total = answers.reduce((sum, { answer }) => sum + totalOf(answer), 0);
    const logs = lines.map(({ layout, hit }) => {
      const value = (role: (typeof LOG_FIELD_ROLES)[number]) => {
        if (layout.missing.includes(role)) return undefined;
        const found = hit.fields?.[layout.fields[role]]?.[0];
        return found === undefined || found === null ? undefined : String(found);
      };
      const timestamp = value('timestamp');
      const message = cutMessage(value('message') ?? '', input.maxMessageChars);
      const line: Record<string, unknown> = {
        timestamp: timestamp === undefined ? null : window.timeZone ? formatInstant(Date.parse(timestamp), window.timeZone) : timestamp,
        level: value('level') ?? null,
        message: message.message,
        ...(message.messageChars === undefined ? {} : { messageChars: message.messageChars }),
      };
      for (const role of ['service', 'pod', 'namespace', 'container', 'host', 'traceId'] as const) {
        const found = value(role);
        if (found !== undefined) line[role] = found;
      }
      line.index = hit._index;
      return line;
    });
    const base = { index, ...windowAnswer(window), total, ...completeness.build(), dataNotice: LOG_DATA_NOTICE, logs };
    // Room for the cursor, added after the list is fitted.
    const fitted = fitToBudget(base, 'logs', input.maxAnswerChars - 200, 'fetch the rest with nextCursor, or raise maxAnswerChars');
    const returned = (fitted.logs as unknown[]).length;
    // Without a cursor the total says whether more lines follow; after one, a full page may have more behind it.
    const more = returned < lines.length || (after === undefined ? total > returned : lines.length === input.limit);
    return { ...fitted, returned, ...(more && returned > 0 ? { nextCursor: encodeCursor(lines[returned - 1]!.key) } : {}) };
  },
});

export const countLogs = defineSkill({
  name: 'count_logs',
  description: 'Count log lines on a date or in a time window (date math such as now-1h works), filtered as fetch_logs is, with the count per level.',
  input: z.object({ ...LOG_INPUT, date }).strict(),
  async handler(input, context) {
    const { index, window, filters, target, completeness } = await prepareLogCall(context, input);
    const { total, results } = await aggregate<TermsAgg>(context, target, filters, window, completeness, (layout) => ({ terms: { field: layout.fields.level, size: 50 } }));
    return {
      index,
      ...windowAnswer(window),
      ...(input.level ? { level: input.level } : {}),
      total,
      byLevel: byLevel(results.flatMap(({ result }) => result?.buckets ?? [])),
      ...completeness.build(),
    };
  },
});

export const summarizeLogs = defineSkill({
  name: 'summarize_logs',
  description:
    'Summarize log lines (e.g. the errors of one pod in one namespace) into message patterns with numbers, ids, hex, UUIDs, IPs and times masked: exact count, first and last seen and levels of each over the whole window, and its newest line.',
  input: z
    .object({
      ...LOG_INPUT,
      date,
      text: z.string().min(1).optional().describe('Words that must all appear in the message'),
      top: z.number().int().min(1).max(MAX_PATTERNS).default(20).describe('How many patterns to return, most frequent first'),
      maxMessageChars,
      maxAnswerChars,
    })
    .strict(),
  async handler(input, context) {
    const { index, window, filters, target, completeness } = await prepareLogCall(context, input);
    const summary = await summarize(context, target, filters, window, { maxMessageChars: input.maxMessageChars, ...(window.timeZone ? { timeZone: window.timeZone } : {}) }, completeness);
    const answer = {
      index,
      ...windowAnswer(window),
      total: summary.total,
      distinctPatterns: summary.patterns.length,
      unclassified: summary.unclassified,
      ...completeness.build(summary.unclassified > 0),
      dataNotice: LOG_DATA_NOTICE,
      patterns: summary.patterns.slice(0, input.top),
    };
    return fitToBudget(answer, 'patterns', input.maxAnswerChars, 'ask for fewer with "top", or raise maxAnswerChars');
  },
});

/** `1d`, `1h`, `1M`: calendar units (days follow the time zone, with its daylight saving); `5m`, `90m`, `2d`: fixed. */
const INTERVAL = /^([1-9]\d*)(ms|s|m|h|d|w|M|q|y)$/;

export const logHistogram = defineSkill({
  name: 'log_histogram',
  description: 'Count log lines over time: a date histogram with an interval (1m, 1h, 1d, 1w, 1M follow the calendar of the time zone; 5m, 30m, 6h, 2d are fixed), filtered as fetch_logs is.',
  input: z
    .object({
      ...LOG_INPUT,
      date,
      interval: z
        .string()
        .regex(INTERVAL, 'an interval is a number and a unit: ms, s, m, h, d, or 1w, 1M, 1q, 1y (e.g. 1h)')
        .refine((interval) => !/^([2-9]|\d\d+)(w|M|q|y)$/.test(interval), { error: 'weeks, months, quarters and years come one at a time: 1w, 1M, 1q, 1y' })
        .default('1h'),
      maxAnswerChars,
    })
    .strict(),
  async handler(input, context) {
    const { index, window, filters, target, completeness } = await prepareLogCall(context, input);
    const [, amount, unit] = INTERVAL.exec(input.interval)!;
    const calendar = amount === '1' && unit !== 'ms' && unit !== 's';
    const now = Date.now();
    const zone = window.timeZone ?? 'UTC';
    const start = window.from === undefined ? undefined : resolveTime(window.from, now, zone);
    const end = window.to === undefined ? undefined : resolveTime(window.to, now, zone);
    const { total, results } = await aggregate<{ buckets: { key: number; key_as_string: string; doc_count: number }[] }>(context, target, filters, window, completeness, (layout) => ({
      date_histogram: {
        field: layout.fields.timestamp,
        ...(calendar ? { calendar_interval: input.interval } : { fixed_interval: input.interval }),
        ...(window.timeZone ? { time_zone: window.timeZone } : {}),
        min_doc_count: 0,
        // With a window, empty buckets at its edges are shown too, so that "no errors between 8 and 9" is visible.
        ...(start !== undefined && end !== undefined ? { extended_bounds: { min: start, max: end - 1 } } : {}),
      },
    }));
    const merged = new Map<number, { start: string; count: number }>();
    for (const { result } of results) {
      for (const bucket of result?.buckets ?? []) {
        const entry = merged.get(bucket.key) ?? { start: bucket.key_as_string, count: 0 };
        entry.count += bucket.doc_count;
        merged.set(bucket.key, entry);
      }
    }
    const answer = {
      index,
      ...windowAnswer(window),
      interval: input.interval,
      total,
      ...completeness.build(),
      buckets: [...merged.entries()].sort(([a], [b]) => a - b).map(([, bucket]) => bucket),
    };
    return fitToBudget(answer, 'buckets', input.maxAnswerChars, 'the first buckets are shown; take a longer interval or a shorter window, or raise maxAnswerChars');
  },
});

const COUNT_BY = ['level', 'service', 'pod', 'namespace', 'container', 'host', 'traceId'] as const;

export const countByField = defineSkill({
  name: 'count_by_field',
  description: 'Count log lines by level, service, pod, namespace, container, host or trace id, or by any keyword field, most frequent first, filtered as fetch_logs is.',
  input: z
    .object({
      ...LOG_INPUT,
      date,
      by: z.enum(COUNT_BY).optional().describe('What to count by'),
      field: z.string().min(1).optional().describe('Or any keyword field to count by, e.g. http.response.status_code'),
      size: z.number().int().min(1).max(500).default(10).describe('How many values to return'),
    })
    .strict(),
  async handler(input, context) {
    if ((input.by === undefined) === (input.field === undefined))
      throw new SkillInputError([{ path: ['input', 'by'], message: 'give either "by" (a role) or "field" (a keyword field), one of them' }]);
    const { index, window, filters, target, completeness } = await prepareLogCall(context, input);
    if (input.field !== undefined) checkWhere(target, { [input.field]: '' });
    const fieldOf = (layout: LogLayout) => (input.by === undefined ? input.field! : layout.fields[input.by]);
    const isLevel = input.by === 'level';
    const { total, results } = await aggregate<TermsAgg>(context, target, filters, window, completeness, (layout) => ({ terms: { field: fieldOf(layout), size: isLevel ? 50 : input.size } }));
    const counts = new Map<string, number>();
    let other = 0;
    for (const { result } of results) {
      other += result?.sum_other_doc_count ?? 0;
      for (const bucket of result?.buckets ?? []) {
        const key = isLevel ? normalizeLevel(String(bucket.key)) : String(bucket.key);
        counts.set(key, (counts.get(key) ?? 0) + bucket.doc_count);
      }
    }
    if (results.length > 1 && results.some(({ result }) => (result?.sum_other_doc_count ?? 0) > 0)) {
      completeness.note(`the indices have ${results.length} layouts, each counted apart: a value outside one layout's top ${input.size} is missing from its count there; raise size`);
    }
    // Most frequent first; ties in level order for levels, by value otherwise.
    const ordered = [...counts.entries()].sort(([a, x], [b, y]) => y - x || (isLevel ? compareLevels(a, b) : a < b ? -1 : a > b ? 1 : 0));
    const shown = ordered.slice(0, input.size).map(([value, count]) => ({ value, count }));
    other += ordered.slice(input.size).reduce((sum, [, count]) => sum + count, 0);
    const fields = [...new Set(target.layouts.map(fieldOf))];
    return { index, ...windowAnswer(window), by: input.by ?? input.field, fields, total, ...completeness.build(), buckets: shown, otherCount: other };
  },
});

/** The built-in skills, in the order an assistant is shown them. */
export const BUILT_IN_SKILLS: readonly Skill[] = ([listIndices, getMappings, fetchLogs, countLogs, summarizeLogs, logHistogram, countByField, probeFailureLogs] as unknown as Skill[]).map((skill) => ({
  ...skill,
  readOnly: true,
}));
