/**
 * Summaries that are exact where they say so, at bounded cost on Elasticsearch. Message patterns are found in a
 * sample spread over the whole window (a date histogram with the newest few lines of each bucket), then sampled
 * again among the lines no pattern found so far covers, until every line is covered or a few rounds have passed.
 * Each pattern is then turned into a query, and one `filters` aggregation counts them over every matching line,
 * with first and last seen, levels and the newest line of each: a line counts for the most specific pattern it
 * matches, so the counts add up to the total, less the lines no pattern covers, which are stated.
 * (Elasticsearch's own `categorize_text` aggregation needs a Platinum licence, so it is not used.)
 */
import { cutMessage } from './answers';
import type { LogLayout } from './log-fields';
import { compareLevels, messagePattern, normalizeLevel, patternQuery, patternWeight } from './log-patterns';
import { logQuery, searchLayouts, totalOf, type CompletenessBuilder, type LogFilters, type LogTarget, type TimeWindow } from './log-search';
import type { SkillContext } from './skill';
import { formatInstant } from './time';

/** Histogram buckets of a sample, and lines taken from each: about 1,000 lines a round. */
const SAMPLE_BUCKETS = 50;
const LINES_PER_BUCKET = 20;
/** Rounds of sampling among the lines not covered yet. */
const MAX_ROUNDS = 4;
/** Patterns counted at most (the size of the filters aggregation). */
export const MAX_PATTERNS = 60;

export interface PatternSummary {
  readonly pattern: string;
  readonly count: number;
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
  /** Lines per level, spellings merged. */
  readonly levels: Record<string, number>;
  /** The newest line of the pattern. */
  readonly sample: string;
  readonly sampleChars?: number;
}

export interface Summary {
  readonly total: number;
  /** Every pattern found, most frequent first. */
  readonly patterns: readonly PatternSummary[];
  /** Lines that match none of the patterns found. */
  readonly unclassified: number;
  readonly sampledLines: number;
  readonly rounds: number;
}

interface Answered {
  timed_out: boolean;
  _shards: { total: number; successful: number; failed: number };
  hits: { total?: { value: number }; hits: unknown[] };
}

interface StatsAnswer extends Answered {
  aggregations?: { first?: { value: number | null }; last?: { value: number | null } };
}

interface SampleAnswer extends Answered {
  aggregations?: { spread?: { buckets: { lines: { hits: { hits: { fields?: Record<string, unknown[]> }[] } } }[] } };
}

interface CountBucket {
  doc_count: number;
  first: { value: number | null };
  last: { value: number | null };
  levels: { buckets: { key: string; doc_count: number }[] };
  sample: { hits: { hits: { fields?: Record<string, unknown[]> }[] } };
}

interface CountAnswer extends Answered {
  aggregations?: { patterns?: { buckets: Record<string, CountBucket> } };
}

const UNCLASSIFIED = '_unclassified';

/** Most specific first, so that a general pattern does not take the lines of a specific one. */
function byPriority(a: string, b: string): number {
  return patternWeight(b) - patternWeight(a) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Each pattern's query, less the patterns before it: the filters partition the lines. */
function partitionedQueries(patterns: readonly string[], layout: LogLayout): Record<string, unknown>[] {
  const plain = patterns.map((pattern) => patternQuery(pattern, layout.fields.message, layout.messageIsText)!);
  return plain.map((query, i) => (i === 0 ? query : { bool: { filter: [query], must_not: plain.slice(0, i) } }));
}

function firstString(fields: Record<string, unknown[]> | undefined, name: string): string {
  const value = fields?.[name]?.[0];
  return value === undefined || value === null ? '' : String(value);
}

export interface SummarizeOptions {
  readonly maxMessageChars: number;
  readonly timeZone?: string;
}

export async function summarize(context: SkillContext, target: LogTarget, filters: LogFilters, window: TimeWindow, options: SummarizeOptions, completeness: CompletenessBuilder): Promise<Summary> {
  const base = (layout: LogLayout, extra: Record<string, unknown>[] = []) => logQuery(layout.fields, layout.messageIsText, filters, window, extra);
  const stats = await searchLayouts<StatsAnswer>(
    context.client,
    target,
    (layout) => ({
      size: 0,
      track_total_hits: true,
      query: base(layout),
      aggs: { first: { min: { field: layout.fields.timestamp } }, last: { max: { field: layout.fields.timestamp } } },
    }),
    completeness,
  );
  const total = stats.reduce((sum, { answer }) => sum + totalOf(answer), 0);
  const spans = new Map(stats.map(({ layout, answer }) => [layout, { first: answer.aggregations?.first?.value ?? null, last: answer.aggregations?.last?.value ?? null, total: totalOf(answer) }]));
  const searched: LogTarget = { ...target, layouts: stats.map(({ layout }) => layout).filter((layout) => spans.get(layout)!.total > 0) };
  if (total === 0 || searched.layouts.length === 0) return { total, patterns: [], unclassified: 0, sampledLines: 0, rounds: 0 };

  const known: string[] = [];
  const uncountable = new Set<string>();
  let sampledLines = 0;
  let rounds = 0;
  for (; rounds < MAX_ROUNDS && known.length < MAX_PATTERNS;) {
    rounds += 1;
    const seen = new Map<string, number>();
    const samples = await searchLayouts<SampleAnswer>(
      context.client,
      searched,
      (layout) => {
        const { first, last } = spans.get(layout)!;
        const span = (last ?? 0) - (first ?? 0) + 1;
        const stepSeconds = Math.max(1, Math.ceil(span / SAMPLE_BUCKETS / 1000));
        return {
          size: 0,
          track_total_hits: true,
          query: base(layout, known.length === 0 ? [] : [{ bool: { must_not: known.map((pattern) => patternQuery(pattern, layout.fields.message, layout.messageIsText)!) } }]),
          aggs: {
            spread: {
              date_histogram: { field: layout.fields.timestamp, fixed_interval: `${stepSeconds}s`, min_doc_count: 1 },
              aggs: { lines: { top_hits: { size: LINES_PER_BUCKET, _source: false, fields: [layout.fields.message], sort: [{ [layout.fields.timestamp]: { order: 'desc' } }] } } },
            },
          },
        };
      },
      completeness,
    );
    const remaining = samples.reduce((sum, { answer }) => sum + totalOf(answer), 0);
    if (remaining === 0) {
      rounds -= 1;
      break;
    }
    for (const { layout, answer } of samples) {
      for (const bucket of answer.aggregations?.spread?.buckets ?? []) {
        for (const hit of bucket.lines.hits.hits) {
          sampledLines += 1;
          const pattern = messagePattern(firstString(hit.fields, layout.fields.message));
          seen.set(pattern, (seen.get(pattern) ?? 0) + 1);
        }
      }
    }
    const fresh = [...seen.entries()]
      .filter(([pattern]) => !known.includes(pattern) && !uncountable.has(pattern))
      .filter(([pattern]) => {
        if (patternQuery(pattern, 'message', true) !== undefined) return true;
        uncountable.add(pattern);
        return false;
      })
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .slice(0, MAX_PATTERNS - known.length)
      .map(([pattern]) => pattern);
    if (fresh.length === 0) break;
    known.push(...fresh);
    known.sort(byPriority);
  }

  if (known.length === 0) {
    completeness.note(`${total} lines hold no pattern with a word to count them by`);
    return { total, patterns: [], unclassified: total, sampledLines, rounds };
  }
  const counted = await searchLayouts<CountAnswer>(
    context.client,
    searched,
    (layout) => {
      const queries = partitionedQueries(known, layout);
      return {
        size: 0,
        query: base(layout),
        aggs: {
          patterns: {
            filters: { filters: Object.fromEntries(queries.map((query, i) => [String(i), query])), other_bucket_key: UNCLASSIFIED },
            aggs: {
              first: { min: { field: layout.fields.timestamp } },
              last: { max: { field: layout.fields.timestamp } },
              levels: { terms: { field: layout.fields.level, size: 20 } },
              sample: { top_hits: { size: 1, _source: false, fields: [layout.fields.message], sort: [{ [layout.fields.timestamp]: { order: 'desc' } }] } },
            },
          },
        },
      };
    },
    completeness,
  );
  const merged = new Map<string, { count: number; first: number | null; last: number | null; levels: Map<string, number>; sample: string; sampleAt: number }>();
  let unclassified = 0;
  for (const { layout, answer } of counted) {
    for (const [key, bucket] of Object.entries(answer.aggregations?.patterns?.buckets ?? {})) {
      if (key === UNCLASSIFIED) {
        unclassified += bucket.doc_count;
        continue;
      }
      if (bucket.doc_count === 0) continue;
      const pattern = known[Number(key)]!;
      const entry = merged.get(pattern) ?? { count: 0, first: null, last: null, levels: new Map<string, number>(), sample: '', sampleAt: -Infinity };
      entry.count += bucket.doc_count;
      const { value: first } = bucket.first;
      const { value: last } = bucket.last;
      if (first !== null) entry.first = entry.first === null ? first : Math.min(entry.first, first);
      if (last !== null) entry.last = entry.last === null ? last : Math.max(entry.last, last);
      for (const level of bucket.levels.buckets) {
        const name = normalizeLevel(String(level.key));
        entry.levels.set(name, (entry.levels.get(name) ?? 0) + level.doc_count);
      }
      if ((last ?? -Infinity) >= entry.sampleAt) {
        entry.sample = firstString(bucket.sample.hits.hits[0]?.fields, layout.fields.message);
        entry.sampleAt = last ?? -Infinity;
      }
      merged.set(pattern, entry);
    }
  }
  if (sampledLines > 0) {
    completeness.note(
      `patterns were found in ${sampledLines} lines sampled over the whole window (${rounds} round${rounds === 1 ? '' : 's'}); counts, first and last seen are exact over all ${total} lines`,
    );
  }
  if (unclassified > 0) completeness.note(`${unclassified} lines match none of the patterns found; narrow the filters to see their patterns`);
  const time = (instant: number | null) => (instant === null ? null : formatInstant(instant, options.timeZone));
  const patterns = [...merged.entries()]
    .map(([pattern, entry]): PatternSummary => {
      const sample = cutMessage(entry.sample, options.maxMessageChars);
      return {
        pattern,
        count: entry.count,
        firstSeen: time(entry.first),
        lastSeen: time(entry.last),
        levels: Object.fromEntries([...entry.levels].sort(([a], [b]) => compareLevels(a, b))),
        sample: sample.message,
        ...(sample.messageChars === undefined ? {} : { sampleChars: sample.messageChars }),
      };
    })
    .sort((a, b) => b.count - a.count || (a.firstSeen ?? '').localeCompare(b.firstSeen ?? '') || a.pattern.localeCompare(b.pattern));
  return { total, patterns, unclassified, sampledLines, rounds };
}
