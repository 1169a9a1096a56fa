/**
 * The aggregations the contract server computes, for real, over every matching document: terms, date_histogram
 * (fixed and calendar intervals, time zones, extended bounds in date math), filters (with the other bucket), filter,
 * top_hits, min, max, cardinality and value_count. Like the queries, they are parsed once for the request (unknown
 * types and keys refused) and checked per index (a text field fails that index's shard, as Elasticsearch's field
 * data does).
 */
import { addUnits, formatDate, parseDateMath, startOfUnit, zoneOffsetMs } from './dates';
import { ContractError, isObject, ShardError } from './errors';
import { DATE_TYPES, docValues, TEXT_TYPES, typeIn, type IndexMapping, type StoredDoc } from './fields';
import { bindQuery, comparableValue, parseQuery, type Query } from './query';
import { fielddataReason, parseSort, sortDocs, type SortSpec } from './sort';

interface Common {
  readonly name: string;
  readonly sub: AggSpec[];
}

export type AggSpec = Common &
  (
    | { readonly kind: 'terms'; readonly field: string; readonly size: number; readonly minDocCount: number }
    | {
        readonly kind: 'date_histogram';
        readonly field: string;
        readonly interval: { readonly fixedMs: number } | { readonly calendar: string };
        readonly timeZone: string;
        readonly minDocCount: number;
        readonly bounds?: { readonly min: string | number; readonly max: string | number };
      }
    | { readonly kind: 'filters'; readonly filters: [string, Query][]; readonly keyed: boolean; readonly otherKey?: string }
    | { readonly kind: 'filter'; readonly query: Query }
    | { readonly kind: 'top_hits'; readonly size: number; readonly sort?: SortSpec[]; readonly source: boolean; readonly fields?: string[] }
    | { readonly kind: 'min' | 'max' | 'cardinality' | 'value_count'; readonly field: string }
  );

const BUCKETING = new Set(['terms', 'date_histogram', 'filters', 'filter']);
const KNOWN_UNIMPLEMENTED = new Set([
  'avg',
  'sum',
  'stats',
  'extended_stats',
  'percentiles',
  'histogram',
  'range',
  'date_range',
  'composite',
  'multi_terms',
  'significant_terms',
  'sampler',
  'random_sampler',
  'auto_date_histogram',
  'rare_terms',
  'missing',
  'nested',
]);

function unknownField(kind: string, key: string): ContractError {
  return new ContractError(400, 'x_content_parse_exception', `[1:2] [${kind}] unknown field [${key}]`);
}

function allowKeys(kind: string, body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key)) throw unknownField(kind, key);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const CALENDAR: Record<string, string> = { '1m': 'm', minute: 'm', '1h': 'h', hour: 'h', '1d': 'd', day: 'd', '1w': 'w', week: 'w', '1M': 'M', month: 'M', '1y': 'y', year: 'y' };

export function parseAggregations(json: unknown, methodOf = ''): AggSpec[] {
  if (!isObject(json)) throw new ContractError(400, 'parsing_exception', `Aggregation definition for [${methodOf}] starts with a [${typeof json}], expected a [START_OBJECT].`);
  return Object.entries(json).map(([name, definition]) => {
    if (!isObject(definition)) throw new ContractError(400, 'parsing_exception', `Aggregation definition for [${name}] starts with a [VALUE], expected a [START_OBJECT].`);
    const { aggs, aggregations, ...rest } = definition;
    const kinds = Object.keys(rest);
    if (kinds.length !== 1) throw new ContractError(400, 'parsing_exception', `Found two aggregation type definitions in [${name}]: [${kinds.join('] and [')}]`);
    const kind = kinds[0]!;
    const body = rest[kind];
    const sub = aggs ?? aggregations;
    const subSpecs = sub === undefined ? [] : parseAggregations(sub, name);
    if (subSpecs.length > 0 && !BUCKETING.has(kind)) throw new ContractError(400, 'aggregation_initialization_exception', `Aggregator [${name}] of type [${kind}] cannot accept sub-aggregations`);
    // A cluster on the basic licence, as the skills assume: categorize_text is a Platinum feature (MachineLearning.java).
    if (kind === 'categorize_text') {
      throw new ContractError(403, 'security_exception', 'current license is non-compliant for [categorize-text-agg]', { 'license.expired.feature': 'categorize-text-agg' });
    }
    if (KNOWN_UNIMPLEMENTED.has(kind)) throw new ContractError(500, 'contract_server_not_implemented', `the contract server does not implement the [${kind}] aggregation`);
    if (!isObject(body)) throw new ContractError(400, 'parsing_exception', `Unknown key for a ${Array.isArray(body) ? 'START_ARRAY' : 'VALUE'} in [${name}]: [${kind}].`);
    const common = { name, sub: subSpecs };
    switch (kind) {
      case 'terms':
        allowKeys(kind, body, ['field', 'size', 'min_doc_count', 'shard_size']);
        return { ...common, kind, field: requireField(kind, body), size: Number(body.size ?? 10), minDocCount: Number(body.min_doc_count ?? 1) };
      case 'date_histogram': {
        allowKeys(kind, body, ['field', 'fixed_interval', 'calendar_interval', 'time_zone', 'min_doc_count', 'extended_bounds', 'format']);
        if (body.format !== undefined) throw new ContractError(500, 'contract_server_not_implemented', 'the contract server prints date_histogram keys in the default format only');
        const fixed = body.fixed_interval;
        const calendar = body.calendar_interval;
        if ((fixed === undefined) === (calendar === undefined)) {
          throw new ContractError(
            400,
            'illegal_argument_exception',
            fixed === undefined ? 'Invalid interval specified, must be non-null and non-empty' : 'Cannot use [fixed_interval] with [calendar_interval] configuration option.',
          );
        }
        let interval: { fixedMs: number } | { calendar: string };
        if (fixed !== undefined) {
          const match = /^(\d+)(ms|s|m|h|d)$/.exec(String(fixed));
          if (!match) {
            throw new ContractError(
              400,
              'illegal_argument_exception',
              `failed to parse setting [date_histogram.fixedInterval] with value [${String(fixed)}] as a time value: unit is missing or unrecognized`,
            );
          }
          interval = { fixedMs: Number(match[1]) * UNIT_MS[match[2]!]! };
        } else {
          const unit = CALENDAR[String(calendar)];
          if (unit === undefined) throw new ContractError(400, 'illegal_argument_exception', `The supplied interval [${String(calendar)}] could not be parsed as a calendar interval.`);
          interval = { calendar: unit };
        }
        const bounds = body.extended_bounds;
        if (bounds !== undefined && !(isObject(bounds) && bounds.min !== undefined && bounds.max !== undefined)) throw unknownField('extended_bounds', 'min or max missing');
        return {
          ...common,
          kind,
          field: requireField(kind, body),
          interval,
          timeZone: typeof body.time_zone === 'string' ? body.time_zone : 'Z',
          minDocCount: Number(body.min_doc_count ?? 0),
          ...(bounds === undefined ? {} : { bounds: bounds as { min: string | number; max: string | number } }),
        };
      }
      case 'filters': {
        allowKeys(kind, body, ['filters', 'other_bucket', 'other_bucket_key']);
        const filters = body.filters;
        const keyed = isObject(filters);
        const entries: [string, Query][] = keyed ? Object.entries(filters).map(([key, q]) => [key, parseQuery(q)]) : (filters as unknown[]).map((q, i) => [String(i), parseQuery(q)]);
        const other = body.other_bucket === true || body.other_bucket_key !== undefined;
        return { ...common, kind, filters: entries, keyed, ...(other ? { otherKey: String(body.other_bucket_key ?? '_other_') } : {}) };
      }
      case 'filter':
        return { ...common, kind, query: parseQuery(body) };
      case 'top_hits':
        allowKeys(kind, body, ['size', 'sort', '_source', 'fields', 'from']);
        return {
          ...common,
          kind,
          size: Number(body.size ?? 3),
          ...(body.sort === undefined ? {} : { sort: parseSort(body.sort) }),
          source: body._source !== false,
          ...(Array.isArray(body.fields) ? { fields: body.fields.map((f) => (typeof f === 'string' ? f : String((f as { field: string }).field))) } : {}),
        };
      case 'min':
      case 'max':
      case 'cardinality':
      case 'value_count':
        allowKeys(kind, body, ['field', ...(kind === 'cardinality' ? ['precision_threshold'] : [])]);
        return { ...common, kind, field: requireField(kind, body) };
      default:
        throw new ContractError(400, 'parsing_exception', `Unknown aggregation type [${kind}]`);
    }
  });
}

function requireField(kind: string, body: Record<string, unknown>): string {
  if (typeof body.field !== 'string') throw new ContractError(500, 'contract_server_not_implemented', `the contract server computes [${kind}] on a field only (no script)`);
  return body.field;
}

/** What fails on one index: a text field where values per document are needed. */
export function checkAggregationsOn(specs: readonly AggSpec[], mapping: IndexMapping, index: string, major: number, now: number): void {
  for (const spec of specs) {
    if (spec.kind === 'filter') bindQuery(spec.query, mapping, now);
    if (spec.kind === 'filters') for (const [, query] of spec.filters) bindQuery(query, mapping, now);
    if ('field' in spec) {
      const type = typeIn(mapping, spec.field);
      if (type !== undefined && TEXT_TYPES.has(type)) throw new ShardError('illegal_argument_exception', fielddataReason(spec.field, index, major));
    }
    if (spec.kind === 'top_hits' && spec.sort) for (const s of spec.sort) if (s.field !== '_doc' && s.field !== '_score') checkSortField(s, mapping, index, major);
    checkAggregationsOn(spec.sub, mapping, index, major, now);
  }
}

function checkSortField(sort: SortSpec, mapping: IndexMapping, index: string, major: number): void {
  const type = typeIn(mapping, sort.field);
  if (type !== undefined && TEXT_TYPES.has(type)) throw new ShardError('illegal_argument_exception', fielddataReason(sort.field, index, major));
}

export interface AggContext {
  readonly now: number;
  /** Whether a document matches a query (of a filters or filter aggregation), the query bound once per index. */
  readonly matches: (query: Query, doc: StoredDoc) => boolean;
  readonly hit: (doc: StoredDoc, fields: readonly string[] | undefined, source: boolean, sortValues?: unknown[]) => Record<string, unknown>;
}

function dateKeyed(docs: readonly StoredDoc[], field: string): boolean {
  return docs.some((doc) => {
    const type = typeIn(doc.mapping, field);
    return type !== undefined && DATE_TYPES.has(type);
  });
}

function numericValues(docs: readonly StoredDoc[], field: string, now: number): number[] {
  const out: number[] = [];
  for (const doc of docs) for (const raw of docValues(doc, field)) out.push(Number(comparableValue(typeIn(doc.mapping, field), raw, now)));
  return out;
}

export function computeAggregations(docs: readonly StoredDoc[], specs: readonly AggSpec[], context: AggContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of specs) out[spec.name] = computeOne(docs, spec, context);
  return out;
}

function withSub(bucket: Record<string, unknown>, docs: readonly StoredDoc[], spec: AggSpec, context: AggContext): Record<string, unknown> {
  return spec.sub.length === 0 ? bucket : { ...bucket, ...computeAggregations(docs, spec.sub, context) };
}

function computeOne(docs: readonly StoredDoc[], spec: AggSpec, context: AggContext): unknown {
  switch (spec.kind) {
    case 'terms': {
      const isDate = dateKeyed(docs, spec.field);
      const groups = new Map<string | number, StoredDoc[]>();
      for (const doc of docs) {
        const type = typeIn(doc.mapping, spec.field);
        const keys = new Set(docValues(doc, spec.field).map((v) => (isDate || typeof v === 'number' ? Number(comparableValue(type, v, context.now)) : String(v))));
        for (const key of keys) {
          const group = groups.get(key);
          if (group) group.push(doc);
          else groups.set(key, [doc]);
        }
      }
      const ordered = [...groups.entries()].filter(([, group]) => group.length >= spec.minDocCount).sort(([ka, a], [kb, b]) => b.length - a.length || (ka < kb ? -1 : ka > kb ? 1 : 0));
      return {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: ordered.slice(spec.size).reduce((sum, [, group]) => sum + group.length, 0),
        buckets: ordered.slice(0, spec.size).map(([key, group]) => withSub({ key, ...(isDate ? { key_as_string: formatDate(key as number) } : {}), doc_count: group.length }, group, spec, context)),
      };
    }
    case 'date_histogram': {
      const zone = spec.timeZone;
      zoneOffsetMs(zone, 0);
      const floor =
        'fixedMs' in spec.interval
          ? (() => {
              const step = spec.interval.fixedMs;
              // Fixed intervals are counted on the zone's wall clock, as Elasticsearch's time-interval rounding does.
              return (t: number) => {
                const local = t + zoneOffsetMs(zone, t);
                const keyLocal = Math.floor(local / step) * step;
                return keyLocal - zoneOffsetMs(zone, keyLocal - zoneOffsetMs(zone, t));
              };
            })()
          : (t: number) => startOfUnit(t, (spec.interval as { calendar: string }).calendar, zone);
      const next =
        'fixedMs' in spec.interval
          ? (key: number) => floor(key + (spec.interval as { fixedMs: number }).fixedMs)
          : (key: number) => addUnits(key, 1, (spec.interval as { calendar: string }).calendar, zone);
      const keyed = new Map<number, StoredDoc[]>();
      for (const doc of docs) {
        const type = typeIn(doc.mapping, spec.field);
        for (const raw of docValues(doc, spec.field)) {
          const key = floor(Number(comparableValue(type, raw, context.now)));
          const group = keyed.get(key);
          if (group) group.push(doc);
          else keyed.set(key, [doc]);
        }
      }
      const keys = [...keyed.keys()];
      if (spec.bounds) {
        keys.push(floor(parseDateMath(spec.bounds.min, context.now, zone, false)));
        keys.push(floor(parseDateMath(spec.bounds.max, context.now, zone, false)));
      }
      const buckets: Record<string, unknown>[] = [];
      if (keys.length > 0) {
        const last = keys.reduce((a, b) => Math.max(a, b));
        const emptyToo = spec.minDocCount === 0;
        const listed = emptyToo ? [] : [...keyed.keys()].sort((a, b) => a - b);
        const walk = emptyToo
          ? (function* () {
              for (let key = keys.reduce((a, b) => Math.min(a, b)); key <= last; key = next(key)) yield key;
            })()
          : listed;
        for (const key of walk) {
          const group = keyed.get(key) ?? [];
          if (group.length >= spec.minDocCount) buckets.push(withSub({ key_as_string: formatDate(key, zone), key, doc_count: group.length }, group, spec, context));
        }
      }
      return { buckets };
    }
    case 'filters': {
      const matchedAny = new Set<StoredDoc>();
      const computed = spec.filters.map(([key, query]) => {
        const inBucket = docs.filter((doc) => context.matches(query, doc));
        for (const doc of inBucket) matchedAny.add(doc);
        return [key, withSub({ doc_count: inBucket.length }, inBucket, spec, context)] as const;
      });
      if (spec.otherKey !== undefined) {
        const rest = docs.filter((doc) => !matchedAny.has(doc));
        computed.push([spec.otherKey, withSub({ doc_count: rest.length }, rest, spec, context)]);
      }
      return { buckets: spec.keyed ? Object.fromEntries(computed) : computed.map(([, bucket]) => bucket) };
    }
    case 'filter': {
      const inBucket = docs.filter((doc) => context.matches(spec.query, doc));
      return withSub({ doc_count: inBucket.length }, inBucket, spec, context);
    }
    case 'top_hits': {
      const sorted = sortDocs(docs, spec.sort, context.now).slice(0, spec.size);
      return {
        hits: {
          total: { value: docs.length, relation: 'eq' },
          max_score: spec.sort ? null : docs.length > 0 ? 1 : null,
          hits: sorted.map(({ doc, sortValues }) => context.hit(doc, spec.fields, spec.source, spec.sort ? sortValues : undefined)),
        },
      };
    }
    case 'min':
    case 'max': {
      const values = numericValues(docs, spec.field, context.now);
      if (values.length === 0) return { value: null };
      const value = values.reduce((best, v) => (spec.kind === 'min' ? Math.min(best, v) : Math.max(best, v)));
      return { value, ...(dateKeyed(docs, spec.field) ? { value_as_string: formatDate(value) } : {}) };
    }
    case 'cardinality':
      return { value: new Set(docs.flatMap((doc) => docValues(doc, spec.field).map(String))).size };
    case 'value_count':
      return { value: docs.reduce((sum, doc) => sum + docValues(doc, spec.field).length, 0) };
  }
}
