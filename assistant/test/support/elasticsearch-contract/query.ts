/**
 * The query DSL subset the contract server implements, in two steps as Elasticsearch runs it: parsing the request
 * (unknown queries and unknown keys refused with `parsing_exception`, for the whole request), then, per index, a
 * query bound to that index's mapping (dates read with date math and the query's time zone; a bad date fails that
 * index's shard). Fields an index does not map match nothing there.
 */
import { parseDateMath, DateProblem } from './dates';
import { ContractError, isObject, ShardError } from './errors';
import { analyze, DATE_TYPES, docValues, NUMERIC_TYPES, TEXT_TYPES, typeIn, type IndexMapping, type StoredDoc } from './fields';

export type Query =
  | { readonly kind: 'match_all' }
  | { readonly kind: 'match_none' }
  | { readonly kind: 'bool'; readonly filter: Query[]; readonly must: Query[]; readonly should: Query[]; readonly mustNot: Query[]; readonly minimumShouldMatch?: number }
  | { readonly kind: 'term'; readonly field: string; readonly values: unknown[]; readonly caseInsensitive: boolean }
  | { readonly kind: 'prefix' | 'wildcard'; readonly field: string; readonly value: string; readonly caseInsensitive: boolean }
  | { readonly kind: 'exists'; readonly field: string }
  | { readonly kind: 'range'; readonly field: string; readonly bounds: Partial<Record<'gte' | 'gt' | 'lte' | 'lt', string | number>>; readonly timeZone?: string }
  | { readonly kind: 'match'; readonly field: string; readonly text: string; readonly operator: 'and' | 'or' }
  | { readonly kind: 'match_phrase'; readonly field: string; readonly text: string };

function refuse(reason: string): ContractError {
  return new ContractError(400, 'parsing_exception', reason);
}

function onlyKeys(what: string, body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key)) throw refuse(`[${what}] query does not support [${key}]`);
}

/** `{ field: spec }`: exactly one field. */
function singleField(what: string, body: unknown): [string, unknown] {
  if (!isObject(body)) throw refuse(`[${what}] query malformed, no start_object after query name`);
  const entries = Object.entries(body).filter(([key]) => key !== 'boost' && key !== '_name');
  if (entries.length !== 1) throw refuse(`[${what}] query doesn't support multiple fields, found [${entries.map(([key]) => key).join('] and [')}]`);
  return entries[0]!;
}

const asList = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export function parseQuery(json: unknown): Query {
  if (json === undefined) return { kind: 'match_all' };
  if (!isObject(json)) throw refuse('query malformed, must start with start_object');
  const entries = Object.entries(json);
  if (entries.length !== 1) throw refuse(`[_na] query malformed, no end_object after query name [${entries[0]?.[0] ?? ''}]`);
  const [kind, body] = entries[0]!;
  switch (kind) {
    case 'match_all':
    case 'match_none':
      if (isObject(body)) onlyKeys(kind, body, ['boost', '_name']);
      return { kind };
    case 'bool': {
      if (!isObject(body)) throw refuse('[bool] query malformed, no start_object after query name');
      onlyKeys('bool', body, ['filter', 'must', 'should', 'must_not', 'minimum_should_match', 'boost', '_name']);
      const msm = body.minimum_should_match;
      if (msm !== undefined && !/^\d+$/.test(String(msm))) throw new ContractError(400, 'parsing_exception', `the contract server takes a whole number for minimum_should_match, not [${String(msm)}]`);
      return {
        kind: 'bool',
        filter: asList(body.filter).map(parseQuery),
        must: asList(body.must).map(parseQuery),
        should: asList(body.should).map(parseQuery),
        mustNot: asList(body.must_not).map(parseQuery),
        ...(msm === undefined ? {} : { minimumShouldMatch: Number(msm) }),
      };
    }
    case 'term': {
      const [field, spec] = singleField('term', body);
      if (!isObject(spec)) return { kind: 'term', field, values: [spec], caseInsensitive: false };
      onlyKeys('term', spec, ['value', 'case_insensitive', 'boost', '_name']);
      if (!('value' in spec)) throw refuse('[term] query requires a value');
      return { kind: 'term', field, values: [spec.value], caseInsensitive: spec.case_insensitive === true };
    }
    case 'terms': {
      const [field, list] = singleField('terms', body);
      if (!Array.isArray(list)) throw refuse(`[terms] query does not support [${field}]`);
      return { kind: 'term', field, values: list, caseInsensitive: false };
    }
    case 'prefix':
    case 'wildcard': {
      const [field, spec] = singleField(kind, body);
      if (!isObject(spec)) return { kind, field, value: String(spec), caseInsensitive: false };
      onlyKeys(kind, spec, ['value', ...(kind === 'wildcard' ? ['wildcard'] : []), 'case_insensitive', 'boost', 'rewrite', '_name']);
      return { kind, field, value: String(spec.value ?? spec.wildcard), caseInsensitive: spec.case_insensitive === true };
    }
    case 'exists':
      if (!isObject(body)) throw refuse('[exists] query malformed');
      onlyKeys('exists', body, ['field', 'boost', '_name']);
      if (typeof body.field !== 'string') throw refuse('[exists] must be provided with a [field]');
      return { kind: 'exists', field: body.field };
    case 'range': {
      const [field, spec] = singleField('range', body);
      if (!isObject(spec)) throw refuse(`[range] query malformed, after field missing start object`);
      onlyKeys('range', spec, ['gte', 'gt', 'lte', 'lt', 'format', 'time_zone', 'boost', 'relation', '_name']);
      if (spec.format !== undefined && spec.format !== 'strict_date_optional_time' && spec.format !== 'strict_date_optional_time||epoch_millis') {
        throw new ContractError(500, 'contract_server_not_implemented', `the contract server reads dates in strict_date_optional_time only, not [${String(spec.format)}]`);
      }
      const bounds: Partial<Record<'gte' | 'gt' | 'lte' | 'lt', string | number>> = {};
      for (const key of ['gte', 'gt', 'lte', 'lt'] as const) if (spec[key] !== undefined && spec[key] !== null) bounds[key] = spec[key] as string | number;
      return { kind: 'range', field, bounds, ...(typeof spec.time_zone === 'string' ? { timeZone: spec.time_zone } : {}) };
    }
    case 'match':
    case 'match_phrase': {
      const [field, spec] = singleField(kind, body);
      if (!isObject(spec)) return kind === 'match' ? { kind, field, text: String(spec), operator: 'or' } : { kind, field, text: String(spec) };
      onlyKeys(kind, spec, kind === 'match' ? ['query', 'operator', 'boost', '_name'] : ['query', 'boost', '_name']);
      if (spec.query === undefined) throw refuse(`No text specified for text query`);
      if (kind === 'match_phrase') return { kind, field, text: String(spec.query) };
      const operator = String(spec.operator ?? 'or').toLowerCase();
      if (operator !== 'and' && operator !== 'or') throw new ContractError(400, 'illegal_argument_exception', `No enum constant org.elasticsearch.index.query.Operator.${operator.toUpperCase()}`);
      return { kind, field, text: String(spec.query), operator };
    }
    default:
      throw refuse(`unknown query [${kind}]`);
  }
}

export type DocFilter = (doc: StoredDoc) => boolean;

function wildcardRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) source += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else source += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, caseInsensitive ? 'i' : '');
}

/** Whether `needle`'s tokens occur one after another in `hay`. */
function containsPhrase(hay: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0) return false;
  outer: for (let start = 0; start + needle.length <= hay.length; start += 1) {
    for (let i = 0; i < needle.length; i += 1) if (hay[start + i] !== needle[i]) continue outer;
    return true;
  }
  return false;
}

const tokenCache = new WeakMap<StoredDoc, Map<string, string[][]>>();

function docTokens(doc: StoredDoc, field: string): string[][] {
  let perDoc = tokenCache.get(doc);
  if (perDoc === undefined) tokenCache.set(doc, (perDoc = new Map()));
  let found = perDoc.get(field);
  if (found === undefined) perDoc.set(field, (found = docValues(doc, field).map((value) => analyze(String(value)))));
  return found;
}

/** A comparable form of a value of `type`: epoch milliseconds for dates, numbers for numbers, text otherwise. */
export function comparableValue(type: string | undefined, value: unknown, now: number, zone?: string, roundUp = false): number | string {
  if (type !== undefined && DATE_TYPES.has(type)) {
    try {
      return parseDateMath(value as string | number, now, zone, roundUp);
    } catch (error) {
      if (error instanceof DateProblem) throw new ShardError('parse_exception', error.message);
      throw error;
    }
  }
  if (type !== undefined && NUMERIC_TYPES.has(type)) return Number(value);
  return typeof value === 'number' ? value : String(value);
}

/** The query bound to one index's mapping. Throws a ShardError for what fails on that index alone. */
export function bindQuery(query: Query, mapping: IndexMapping, now: number): DocFilter {
  switch (query.kind) {
    case 'match_all':
      return () => true;
    case 'match_none':
      return () => false;
    case 'bool': {
      const required = [...query.filter, ...query.must].map((q) => bindQuery(q, mapping, now));
      const should = query.should.map((q) => bindQuery(q, mapping, now));
      const mustNot = query.mustNot.map((q) => bindQuery(q, mapping, now));
      const minimum = query.minimumShouldMatch ?? (required.length === 0 && should.length > 0 ? 1 : 0);
      return (doc) => {
        if (!required.every((f) => f(doc)) || mustNot.some((f) => f(doc))) return false;
        if (minimum === 0) return true;
        let count = 0;
        for (const f of should) if (f(doc) && ++count >= minimum) return true;
        return false;
      };
    }
    case 'term': {
      const type = typeIn(mapping, query.field);
      if (type === undefined) return () => false;
      if (TEXT_TYPES.has(type)) {
        const wanted = new Set(query.values.map((v) => String(v)));
        return (doc) => docTokens(doc, query.field).some((tokens) => tokens.some((t) => wanted.has(t)));
      }
      const norm = (v: unknown) => {
        const c = comparableValue(type, v, now);
        return query.caseInsensitive && typeof c === 'string' ? c.toLowerCase() : c;
      };
      const wanted = new Set(query.values.map(norm));
      return (doc) => docValues(doc, query.field).some((v) => wanted.has(norm(v)));
    }
    case 'prefix':
    case 'wildcard': {
      const type = typeIn(mapping, query.field);
      if (type === undefined) return () => false;
      const pattern = query.kind === 'prefix' ? wildcardRegExp(`${query.value.replace(/[\\*?]/g, '\\$&')}*`, query.caseInsensitive) : wildcardRegExp(query.value, query.caseInsensitive);
      if (TEXT_TYPES.has(type)) return (doc) => docTokens(doc, query.field).some((tokens) => tokens.some((t) => pattern.test(t)));
      return (doc) => docValues(doc, query.field).some((v) => pattern.test(String(v)));
    }
    case 'exists':
      return (doc) => docValues(doc, query.field).length > 0;
    case 'range': {
      const type = typeIn(mapping, query.field);
      if (type === undefined) return () => false;
      const { gte, gt, lte, lt } = query.bounds;
      // Elasticsearch's rounding: gte and lt round down, gt and lte round up (see the range query's documentation).
      const low = gte !== undefined ? comparableValue(type, gte, now, query.timeZone, false) : gt !== undefined ? comparableValue(type, gt, now, query.timeZone, true) : undefined;
      const high = lte !== undefined ? comparableValue(type, lte, now, query.timeZone, true) : lt !== undefined ? comparableValue(type, lt, now, query.timeZone, false) : undefined;
      const lowInclusive = gte !== undefined;
      const highInclusive = lte !== undefined;
      return (doc) =>
        docValues(doc, query.field).some((raw) => {
          const v = comparableValue(type, raw, now);
          if (low !== undefined && (lowInclusive ? v < low : v <= low)) return false;
          if (high !== undefined && (highInclusive ? v > high : v >= high)) return false;
          return true;
        });
    }
    case 'match': {
      const type = typeIn(mapping, query.field);
      if (type === undefined) return () => false;
      if (!TEXT_TYPES.has(type)) return (doc) => docValues(doc, query.field).some((v) => String(v) === query.text);
      const wanted = analyze(query.text);
      return (doc) =>
        docTokens(doc, query.field).some((tokens) => {
          const have = new Set(tokens);
          const found = wanted.filter((token) => have.has(token)).length;
          return query.operator === 'and' ? wanted.length > 0 && found === wanted.length : found > 0;
        });
    }
    case 'match_phrase': {
      const type = typeIn(mapping, query.field);
      if (type === undefined) return () => false;
      if (!TEXT_TYPES.has(type)) return (doc) => docValues(doc, query.field).some((v) => String(v) === query.text);
      const wanted = analyze(query.text);
      return (doc) => docTokens(doc, query.field).some((tokens) => containsPhrase(tokens, wanted));
    }
  }
}
