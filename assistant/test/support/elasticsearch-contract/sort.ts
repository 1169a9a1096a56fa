/**
 * Sorting as Elasticsearch does it for the contract server: by fields (dates as epoch milliseconds), `_doc`,
 * `_index` and `_score`, missing values last; a field an index does not map fails that index's shard unless the sort
 * names an `unmapped_type`; a text field fails it too (no field data).
 */
import { ContractError, isObject, ShardError } from './errors';
import { docValues, TEXT_TYPES, typeIn, type IndexMapping, type StoredDoc } from './fields';
import { comparableValue } from './query';

export interface SortSpec {
  readonly field: string;
  readonly desc: boolean;
  readonly unmappedType?: string;
}

const SORT_KEYS = ['order', 'unmapped_type', 'missing', 'mode', 'format', 'numeric_type'];

export function parseSort(json: unknown): SortSpec[] {
  return (Array.isArray(json) ? json : [json]).map((entry): SortSpec => {
    if (typeof entry === 'string') return { field: entry, desc: entry === '_score' };
    if (!isObject(entry)) throw new ContractError(400, 'parsing_exception', `malformed sort format, within the sort array, an object, or an actual string are allowed`);
    const entries = Object.entries(entry);
    if (entries.length !== 1) throw new ContractError(400, 'parsing_exception', `malformed sort format, only one field per sort object`);
    const [field, how] = entries[0]!;
    if (typeof how === 'string') return { field, desc: how === 'desc' };
    if (!isObject(how)) throw new ContractError(400, 'parsing_exception', `[${field}] sort malformed`);
    for (const key of Object.keys(how)) if (!SORT_KEYS.includes(key)) throw new ContractError(400, 'parsing_exception', `[field_sort] unknown field [${key}]`);
    for (const key of ['missing', 'mode', 'format', 'numeric_type']) {
      if (how[key] !== undefined) throw new ContractError(500, 'contract_server_not_implemented', `the contract server does not implement [${key}] in a sort`);
    }
    const order = how.order ?? (field === '_score' ? 'desc' : 'asc');
    if (order !== 'asc' && order !== 'desc') throw new ContractError(400, 'illegal_argument_exception', `Unknown SortOrder [${String(order)}]`);
    return { field, desc: order === 'desc', ...(typeof how.unmapped_type === 'string' ? { unmappedType: how.unmapped_type } : {}) };
  });
}

/** Elasticsearch's refusal to sort or aggregate on a text field, in the words of its major version. */
export function fielddataReason(field: string, index: string, major: number): string {
  const body =
    'Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. ' +
    `Please use a keyword field instead. Alternatively, set fielddata=true on [${field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`;
  return major >= 8 ? `Fielddata is disabled on [${field}] in [${index}]. ${body}` : body;
}

export function checkSortOn(sort: readonly SortSpec[] | undefined, mapping: IndexMapping, index: string, major: number): void {
  for (const spec of sort ?? []) {
    if (spec.field === '_doc' || spec.field === '_score' || spec.field === '_index') continue;
    const type = typeIn(mapping, spec.field);
    if (type === undefined && spec.unmappedType === undefined) throw new ShardError('query_shard_exception', `No mapping found for [${spec.field}] in order to sort on`);
    if (type !== undefined && TEXT_TYPES.has(type)) throw new ShardError('illegal_argument_exception', fielddataReason(spec.field, index, major));
  }
}

/** Sort value of a document without the field: Java's Long.MIN_VALUE or MAX_VALUE, so that it sorts last. */
const MISSING_LAST = { asc: Number.MAX_SAFE_INTEGER, desc: Number.MIN_SAFE_INTEGER };

export function sortValue(doc: StoredDoc, spec: SortSpec, now: number): number | string {
  if (spec.field === '_doc') return doc.ordinal;
  if (spec.field === '_score') return 1;
  const type = typeIn(doc.mapping, spec.field);
  const values = docValues(doc, spec.field).map((value) => comparableValue(type, value, now));
  if (values.length === 0) return spec.desc ? MISSING_LAST.desc : MISSING_LAST.asc;
  return values.reduce((best, value) => (spec.desc ? (value > best ? value : best) : value < best ? value : best));
}

export function compareSortValues(a: readonly unknown[], b: readonly unknown[], sort: readonly SortSpec[]): number {
  for (const [i, spec] of sort.entries()) {
    const x = a[i] as number | string;
    const y = b[i] as number | string;
    if (x === y) continue;
    const cmp = x < y ? -1 : 1;
    return spec.desc ? -cmp : cmp;
  }
  return 0;
}

export function sortDocs(docs: readonly StoredDoc[], sort: readonly SortSpec[] | undefined, now: number): { doc: StoredDoc; sortValues: (number | string)[] }[] {
  // Without a sort, Elasticsearch orders by score; every match scores alike here, so index order stands.
  const specs = sort ?? [];
  const keyed = docs.map((doc) => ({ doc, sortValues: specs.map((spec) => sortValue(doc, spec, now)) }));
  if (specs.length === 0) return keyed;
  return keyed.sort((a, b) => compareSortValues(a.sortValues, b.sortValues, specs) || (a.doc.index < b.doc.index ? -1 : a.doc.index > b.doc.index ? 1 : a.doc.ordinal - b.doc.ordinal));
}
