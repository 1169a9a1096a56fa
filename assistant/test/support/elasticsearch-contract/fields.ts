/**
 * An index's mapping as the contract server uses it: every field by its full name (object leaves, multi-fields such
 * as `level.keyword`, and `alias` fields resolved to their target), and a stored document's values of a field,
 * whether its _source nests objects or writes dotted keys.
 */

export interface MappingNode {
  readonly type?: string;
  readonly path?: string;
  readonly fields?: Record<string, MappingNode>;
  readonly properties?: Record<string, MappingNode>;
  readonly ignore_above?: number;
}

export interface ResolvedField {
  /** The name asked for (an alias keeps its own name). */
  readonly name: string;
  readonly type: string;
  /** Where the values are in _source. */
  readonly sourcePath: string;
  readonly ignoreAbove?: number;
  /** For an alias: the field it points to. */
  readonly aliasOf?: string;
}

export const TEXT_TYPES = new Set(['text', 'match_only_text']);
export const KEYWORD_TYPES = new Set(['keyword', 'constant_keyword', 'wildcard']);
export const DATE_TYPES = new Set(['date', 'date_nanos']);
export const NUMERIC_TYPES = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'unsigned_long']);
/** Types the contract server knows; a mapping with another type is a mistake in a test's fixture. */
const KNOWN_TYPES = new Set([...TEXT_TYPES, ...KEYWORD_TYPES, ...DATE_TYPES, ...NUMERIC_TYPES, 'boolean', 'ip', 'object', 'alias', 'flattened']);

export class IndexMapping {
  private readonly byName = new Map<string, ResolvedField>();
  readonly objects = new Set<string>();

  constructor(readonly properties: Record<string, unknown>) {
    const aliases: [string, string][] = [];
    const walk = (props: Record<string, MappingNode>, prefix: string) => {
      for (const [key, node] of Object.entries(props)) {
        const name = prefix === '' ? key : `${prefix}.${key}`;
        if (node.type !== undefined && !KNOWN_TYPES.has(node.type)) throw new Error(`contract fixture: field [${name}] has a type the contract server does not know: ${node.type}`);
        if (node.properties !== undefined || node.type === 'object') {
          this.objects.add(name);
          walk(node.properties ?? {}, name);
          continue;
        }
        if (node.type === 'alias') {
          aliases.push([name, node.path ?? '']);
          continue;
        }
        this.byName.set(name, { name, type: node.type ?? 'object', sourcePath: name, ...(node.ignore_above === undefined ? {} : { ignoreAbove: node.ignore_above }) });
        for (const [sub, subNode] of Object.entries(node.fields ?? {})) {
          const full = `${name}.${sub}`;
          this.byName.set(full, { name: full, type: subNode.type ?? 'keyword', sourcePath: name, ...(subNode.ignore_above === undefined ? {} : { ignoreAbove: subNode.ignore_above }) });
        }
      }
    };
    walk(properties as Record<string, MappingNode>, '');
    for (const [name, path] of aliases) {
      const target = this.byName.get(path);
      // Elasticsearch refuses such a mapping when it is created; a fixture must not hold one.
      if (target === undefined) throw new Error(`contract fixture: alias [${name}] points to [${path}], which is not a concrete field`);
      this.byName.set(name, { ...target, name, aliasOf: path });
    }
  }

  field(name: string): ResolvedField | undefined {
    return this.byName.get(name);
  }

  fields(): ResolvedField[] {
    return [...this.byName.values()];
  }
}

/** A value at a dotted path in _source, written as nested objects, dotted keys or a mix of both. */
export function sourceValue(source: unknown, path: string): unknown {
  const lookup = (value: unknown, parts: readonly string[]): unknown => {
    if (parts.length === 0) return value;
    if (Array.isArray(value)) {
      const found = value.map((item) => lookup(item, parts)).filter((item) => item !== undefined);
      return found.length === 0 ? undefined : found.flat();
    }
    if (value === null || typeof value !== 'object') return undefined;
    for (let take = parts.length; take >= 1; take -= 1) {
      const key = parts.slice(0, take).join('.');
      if (key in (value as Record<string, unknown>)) {
        const found = lookup((value as Record<string, unknown>)[key], parts.slice(take));
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return lookup(source, path.split('.'));
}

export interface StoredDoc {
  readonly index: string;
  /** Position in its index: the `_doc` sort value, unique per index (one shard each). */
  readonly ordinal: number;
  readonly id: string;
  readonly source: Record<string, unknown>;
  readonly mapping: IndexMapping;
  /** Values per field, read once. */
  readonly cache: Map<string, unknown[]>;
}

/** A document's indexed values of `field`: none when the index does not map it; `_index` is the index's name. */
export function docValues(doc: StoredDoc, field: string): unknown[] {
  if (field === '_index') return [doc.index];
  if (field === '_id') return [doc.id];
  let found = doc.cache.get(field);
  if (found === undefined) {
    const resolved = doc.mapping.field(field);
    if (resolved === undefined) found = [];
    else {
      const raw = sourceValue(doc.source, resolved.sourcePath);
      const list = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw.flat(Infinity) : [raw];
      found = list.filter((value) => value !== null && (resolved.ignoreAbove === undefined || String(value).length <= resolved.ignoreAbove));
    }
    doc.cache.set(field, found);
  }
  return found;
}

/** The standard analyzer for what log messages hold: lower case, split at anything but letters, digits and `_`. */
export function analyze(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);
}

/** A field's type in one index, `_index` being a keyword. */
export function typeIn(mapping: IndexMapping, field: string): string | undefined {
  if (field === '_index' || field === '_id') return 'keyword';
  return mapping.field(field)?.type;
}
