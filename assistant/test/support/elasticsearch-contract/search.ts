/**
 * `_search` and `_count` for the contract server, run as Elasticsearch runs them: the body parsed once (unknown keys
 * refused), then each index (one shard each) on its own, where a shard can fail (a text field sorted or aggregated,
 * an unmapped sort field without `unmapped_type`, a failure the test injects) or time out; the answer is reduced
 * from the shards that answered and says which failed (`_shards.failures`). When every shard failed the request
 * fails as a whole (`search_phase_execution_exception`). A search over no index answers no aggregations at all.
 */
import { checkAggregationsOn, computeAggregations, parseAggregations, type AggSpec } from './aggregations';
import { formatDate } from './dates';
import { ContractError, isObject, ShardError, tokenName } from './errors';
import { DATE_TYPES, docValues, typeIn, type IndexMapping, type StoredDoc } from './fields';
import { bindQuery, parseQuery, type DocFilter, type Query } from './query';
import { checkSortOn, compareSortValues, parseSort, sortDocs, type SortSpec } from './sort';

export interface Shard {
  readonly index: string;
  readonly mapping: IndexMapping;
  readonly docs: readonly StoredDoc[];
  /** A failure injected by the test (a node gone, a circuit breaker): the shard fails with it. */
  readonly failure?: { readonly type: string; readonly reason: string };
  /** The shard hits the cluster's search timeout: it answers nothing, and the response says `timed_out`. */
  readonly timesOut?: boolean;
}

interface SearchRequest {
  readonly query: Query;
  readonly size: number;
  readonly from: number;
  readonly sort?: SortSpec[];
  readonly aggs?: AggSpec[];
  readonly trackTotalHits: number;
  readonly source: boolean;
  readonly fields?: string[];
  readonly searchAfter?: unknown[];
}

const SEARCH_KEYS = ['query', 'size', 'from', 'sort', 'aggs', 'aggregations', 'track_total_hits', '_source', 'fields', 'search_after', 'timeout', 'track_scores'];
const KNOWN_UNIMPLEMENTED = [
  'highlight',
  'collapse',
  'pit',
  'runtime_mappings',
  'post_filter',
  'suggest',
  'rescore',
  'script_fields',
  'docvalue_fields',
  'stored_fields',
  'min_score',
  'indices_boost',
  'knn',
  'explain',
  'version',
  'seq_no_primary_term',
  'terminate_after',
  'profile',
  'stats',
  'slice',
  'ext',
  'retriever',
];

function parseSearch(body: unknown): SearchRequest {
  const request = body === undefined ? {} : body;
  if (!isObject(request)) throw new ContractError(400, 'parsing_exception', 'Expected [START_OBJECT] but found [START_ARRAY]');
  for (const [key, value] of Object.entries(request)) {
    if (KNOWN_UNIMPLEMENTED.includes(key)) throw new ContractError(500, 'contract_server_not_implemented', `the contract server does not implement [${key}] in a search`);
    if (!SEARCH_KEYS.includes(key)) throw new ContractError(400, 'parsing_exception', `Unknown key for a ${tokenName(value)} in [${key}].`);
  }
  if (request.aggs !== undefined && request.aggregations !== undefined) throw new ContractError(400, 'parsing_exception', 'Found two aggregation definitions: [aggs] and [aggregations]');
  const aggs = request.aggs ?? request.aggregations;
  const source = request._source;
  if (source !== undefined && typeof source !== 'boolean') throw new ContractError(500, 'contract_server_not_implemented', 'the contract server takes `_source: true|false` only');
  const tracked = request.track_total_hits;
  const size = Number(request.size ?? 10);
  const from = Number(request.from ?? 0);
  if (size < 0) throw new ContractError(400, 'illegal_argument_exception', `[size] parameter cannot be negative, found [${size}]`);
  if (from + size > 10_000) {
    throw new ContractError(
      400,
      'illegal_argument_exception',
      `Result window is too large, from + size must be less than or equal to: [10000] but was [${from + size}]. See the scroll api for a more efficient way to request large data sets.`,
    );
  }
  const searchAfter = request.search_after;
  if (searchAfter !== undefined && !Array.isArray(searchAfter)) throw new ContractError(400, 'parsing_exception', '[search_after] must be an array');
  const sort = request.sort === undefined ? undefined : parseSort(request.sort);
  if (searchAfter !== undefined) {
    if (sort === undefined) throw new ContractError(400, 'action_request_validation_exception', 'Validation Failed: 1: [search_after] requires a [sort];');
    if (searchAfter.length !== sort.length) throw new ContractError(400, 'illegal_argument_exception', `search_after has ${searchAfter.length} value(s) but sort has ${sort.length}.`);
    if (from > 0) throw new ContractError(400, 'action_request_validation_exception', 'Validation Failed: 1: [from] parameter must be set to 0 when [search_after] is used;');
  }
  return {
    query: parseQuery(request.query),
    size,
    from,
    ...(sort ? { sort } : {}),
    ...(aggs === undefined ? {} : { aggs: parseAggregations(aggs) }),
    trackTotalHits: tracked === true ? Infinity : typeof tracked === 'number' ? tracked : tracked === false ? -1 : 10_000,
    source: source !== false,
    ...(Array.isArray(request.fields) ? { fields: request.fields.map((f) => (typeof f === 'string' ? f : String((f as { field: string }).field))) } : {}),
    ...(searchAfter ? { searchAfter } : {}),
  };
}

/** The `fields` option: values as arrays (dates in the default format), patterns expanded, absent fields left out. */
function fetchFields(doc: StoredDoc, names: readonly string[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const asked of names) {
    const expanded = asked.includes('*')
      ? doc.mapping
          .fields()
          .map((f) => f.name)
          .filter((name) =>
            new RegExp(
              `^${asked
                .split('*')
                .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
                .join('.*')}$`,
            ).test(name),
          )
      : [asked];
    for (const name of expanded) {
      const found = docValues(doc, name);
      if (found.length === 0) continue;
      const type = typeIn(doc.mapping, name);
      out[name] = type !== undefined && DATE_TYPES.has(type) ? found.map((v) => formatDate(typeof v === 'number' ? v : Date.parse(String(v)))) : found;
    }
  }
  return out;
}

export function hitOf(doc: StoredDoc, fields: readonly string[] | undefined, source: boolean, sortValues?: unknown[]): Record<string, unknown> {
  return {
    _index: doc.index,
    _id: doc.id,
    _score: sortValues ? null : 1,
    ...(source ? { _source: doc.source } : {}),
    ...(fields ? { fields: fetchFields(doc, fields) } : {}),
    ...(sortValues ? { sort: sortValues } : {}),
  };
}

interface ShardOutcome {
  readonly matched: StoredDoc[];
  readonly failures: { shard: number; index: string; node: string; reason: { type: string; reason: string } }[];
  readonly statusOfFailure: number;
  readonly timedOut: boolean;
  readonly total: number;
}

/** Each index on its own, as a shard: what matched on the shards that answered, and why the others did not. */
function runShards(shards: readonly Shard[], query: Query, now: number, check: (shard: Shard) => void): ShardOutcome {
  const matched: StoredDoc[] = [];
  const failures: ShardOutcome['failures'] = [];
  let status = 400;
  let timedOut = false;
  for (const shard of shards) {
    try {
      if (shard.failure) throw new ShardError(shard.failure.type, shard.failure.reason, 500);
      const filter: DocFilter = bindQuery(query, shard.mapping, now);
      check(shard);
      if (shard.timesOut) {
        timedOut = true;
        continue;
      }
      for (const doc of shard.docs) if (filter(doc)) matched.push(doc);
    } catch (error) {
      if (!(error instanceof ShardError)) throw error;
      status = error.status;
      failures.push({ shard: 0, index: shard.index, node: 'contract-node-1', reason: { type: error.type, reason: error.message } });
    }
  }
  return { matched, failures, statusOfFailure: status, timedOut, total: shards.length };
}

function allFailed(outcome: ShardOutcome): ContractError {
  const causes = outcome.failures.map((failure) => ({ ...failure.reason, index: failure.index }));
  return new ContractError(outcome.statusOfFailure, 'search_phase_execution_exception', 'all shards failed', {
    root_cause: causes,
    phase: 'query',
    grouped: true,
    failed_shards: outcome.failures,
    caused_by: causes[0],
  });
}

function shardsSection(outcome: ShardOutcome): Record<string, unknown> {
  return {
    total: outcome.total,
    successful: outcome.total - outcome.failures.length,
    skipped: 0,
    failed: outcome.failures.length,
    ...(outcome.failures.length > 0 ? { failures: outcome.failures } : {}),
  };
}

export function search(shards: readonly Shard[], body: unknown, now: number, major: number): Record<string, unknown> {
  const request = parseSearch(body);
  const outcome = runShards(shards, request.query, now, (shard) => {
    checkSortOn(request.sort, shard.mapping, shard.index, major);
    if (request.aggs) checkAggregationsOn(request.aggs, shard.mapping, shard.index, major, now);
  });
  if (outcome.total > 0 && outcome.failures.length === outcome.total) throw allFailed(outcome);
  let ordered = sortDocs(outcome.matched, request.sort, now);
  if (request.searchAfter && request.sort) {
    const after = request.searchAfter;
    const sort = request.sort;
    ordered = ordered.filter(({ sortValues }) => compareSortValues(sortValues, after, sort) > 0);
  }
  const page = ordered.slice(request.from, request.from + request.size);
  const count = outcome.matched.length;
  const bound = new Map<Query, Map<string, DocFilter>>();
  const matches = (query: Query, doc: StoredDoc) => {
    let perIndex = bound.get(query);
    if (perIndex === undefined) bound.set(query, (perIndex = new Map()));
    let filter = perIndex.get(doc.index);
    if (filter === undefined) perIndex.set(doc.index, (filter = bindQuery(query, doc.mapping, now)));
    return filter(doc);
  };
  return {
    took: 1,
    timed_out: outcome.timedOut,
    _shards: shardsSection(outcome),
    hits: {
      ...(request.trackTotalHits < 0 ? {} : { total: count > request.trackTotalHits ? { value: request.trackTotalHits, relation: 'gte' } : { value: count, relation: 'eq' } }),
      max_score: request.sort === undefined && count > 0 ? 1 : null,
      hits: page.map(({ doc, sortValues }) => hitOf(doc, request.fields, request.source, request.sort ? sortValues : undefined)),
    },
    ...(request.aggs && outcome.total > 0 ? { aggregations: computeAggregations(outcome.matched, request.aggs, { now, matches, hit: hitOf }) } : {}),
  };
}

export function count(shards: readonly Shard[], body: unknown, now: number): Record<string, unknown> {
  const request = body === undefined ? {} : body;
  if (!isObject(request)) throw new ContractError(400, 'parsing_exception', 'Expected [START_OBJECT]');
  for (const [key, value] of Object.entries(request)) if (key !== 'query') throw new ContractError(400, 'parsing_exception', `request does not support [${key}] (${tokenName(value)})`);
  const outcome = runShards(shards, parseQuery(request.query), now, () => undefined);
  if (outcome.total > 0 && outcome.failures.length === outcome.total) throw allFailed(outcome);
  return { count: outcome.matched.length, _shards: shardsSection(outcome) };
}
