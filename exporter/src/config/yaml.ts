/**
 * A config file read as upstream reads it: go-yaml v3 decoding into typed fields. The field's type decides
 * how a scalar is read, as Go's decoder does: a text field takes any scalar as written (`query_name: 123`,
 * `X-Count: 5`), a boolean field also takes YAML 1.1's yes/no/on/off, a number field takes YAML numbers.
 * Merge keys (`<<: *base`) and anchors work, a key given twice is refused, and only the file's first YAML
 * document is read. The types come from the zod schema the loader then validates with, so what a field
 * accepts is said once; whatever does not fit is left for that schema to refuse with its own message.
 *
 * Parsing is js-yaml's event parser (fast on files of many megabytes); the tree built here keeps each
 * node's offset, so that problems found later name their line.
 */
import { parseEvents, getScalarValue, EVENT_ID, SCALAR_STYLE, type Event, type ScalarEvent } from 'js-yaml';
import type { z } from 'zod';

export type YamlNode = YamlScalar | YamlSequence | YamlMapping;

interface YamlScalar {
  readonly kind: 'scalar';
  readonly offset: number;
  readonly value: string;
  /** Unquoted and not a block scalar: the only kind YAML resolves to null, booleans and numbers. */
  readonly plain: boolean;
  /** An explicit tag in its short form (`binary` for `!!binary`), when it has one. */
  readonly tag?: string;
}

interface YamlSequence {
  readonly kind: 'sequence';
  readonly offset: number;
  readonly items: YamlNode[];
}

export interface YamlEntry {
  readonly key: YamlNode;
  readonly value: YamlNode;
}

interface YamlMapping {
  readonly kind: 'mapping';
  readonly offset: number;
  readonly entries: YamlEntry[];
}

/** What the file says wrong as YAML, at an offset of its text. */
export class YamlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'YamlError';
  }
}

/** A document marker: `---` or `...` at the start of a line, followed by a blank or the line's end. */
const DOCUMENT_MARKER = /^(---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/** Whether `text` holds anything but blank lines, comments and (before a document starts) directives. */
function hasContent(text: string, directivesAllowed: boolean): boolean {
  return text.split('\n').some((line) => !/^\s*(#.*)?$/.test(line) && !(directivesAllowed && line.startsWith('%')));
}

/**
 * The text of the file's first document, and whether more follow. go-yaml's decoder reads one document and
 * never looks at the next, so later documents, even broken ones, change nothing. YAML forbids a marker at
 * the start of a line inside any content, so the markers alone tell where the first document ends.
 */
export function firstDocument(text: string): { readonly text: string; readonly more: boolean } {
  let started = false;
  let from = 0;
  for (const marker of text.matchAll(DOCUMENT_MARKER)) {
    if (marker[1] === '...') return { text: text.slice(0, marker.index), more: hasContent(text.slice(marker.index + 3), true) };
    if (started || hasContent(text.slice(from, marker.index), true)) return { text: text.slice(0, marker.index), more: true };
    // The explicit start of the first document; what follows the marker on its line belongs to it.
    started = true;
    from = marker.index + 3;
  }
  return { text, more: false };
}

/** js-yaml's words for characters YAML forbids, said with the fix (go-yaml refuses the same characters). */
const FORBIDDEN_CHARACTERS: Readonly<Record<string, string>> = {
  'null byte is not allowed in input': 'a NUL character is not allowed in a YAML file; remove it, or write \\0 in a double-quoted string',
  'the stream contains non-printable characters': 'a control character is not allowed in a YAML file; remove it, or write it as an escape in a double-quoted string',
};

function shortTag(tag: string): string {
  if (tag.startsWith('!!')) return tag.slice(2);
  const verbatim = /^!<tag:yaml\.org,2002:(.*)>$/.exec(tag);
  return verbatim ? verbatim[1] : tag;
}

/** The lines of a text, for naming the line of an offset. */
export class LineIndex {
  private starts?: number[];

  constructor(private readonly text: string) {}

  /** The 1-based line of `offset`. */
  lineAt(offset: number): number {
    this.starts ??= [0, ...[...this.text.matchAll(/\n/g)].map((newline) => newline.index + 1)];
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }
}

/**
 * The tree of the first document of `text`, or undefined when it has none (an empty file, only comments).
 * An alias refers to its anchor's node, which is complete by then: a node cannot contain itself.
 */
export function parseYaml(text: string): YamlNode | undefined {
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch (error) {
    const { reason, mark } = error as { reason?: string; mark?: { position: number } };
    const message = reason ?? (error as Error).message;
    throw new YamlError(FORBIDDEN_CHARACTERS[message] ?? message, mark?.position ?? 0);
  }
  const anchors = new Map<string, YamlNode>();
  const open: Array<{ node: YamlSequence | YamlMapping; anchor?: string; pendingKey?: YamlNode }> = [];
  let root: YamlNode | undefined;
  let lastOffset = 0;
  let documents = 0;

  const place = (node: YamlNode): void => {
    const parent = open.at(-1);
    if (parent === undefined) root = node;
    else if (parent.node.kind === 'sequence') parent.node.items.push(node);
    else if (parent.pendingKey === undefined) parent.pendingKey = node;
    else {
      parent.node.entries.push({ key: parent.pendingKey, value: node });
      parent.pendingKey = undefined;
    }
  };
  const anchorOf = (event: { anchorStart: number; anchorEnd: number }): string | undefined => (event.anchorStart >= 0 ? text.slice(event.anchorStart, event.anchorEnd) : undefined);

  for (const event of events) {
    switch (event.type) {
      case EVENT_ID.DOCUMENT:
        documents += 1;
        if (documents > 1) return root;
        break;
      case EVENT_ID.SCALAR: {
        const scalar = event as ScalarEvent;
        if (scalar.valueStart >= 0) lastOffset = scalar.valueStart;
        const node: YamlScalar = {
          kind: 'scalar',
          offset: scalar.valueStart >= 0 ? scalar.valueStart : lastOffset,
          value: getScalarValue(text, scalar),
          plain: scalar.style === SCALAR_STYLE.PLAIN,
          tag: scalar.tagStart >= 0 ? shortTag(text.slice(scalar.tagStart, scalar.tagEnd)) : undefined,
        };
        const anchor = anchorOf(scalar);
        if (anchor !== undefined) anchors.set(anchor, node);
        place(node);
        break;
      }
      case EVENT_ID.SEQUENCE:
      case EVENT_ID.MAPPING: {
        lastOffset = event.start;
        const node: YamlSequence | YamlMapping = event.type === EVENT_ID.SEQUENCE ? { kind: 'sequence', offset: event.start, items: [] } : { kind: 'mapping', offset: event.start, entries: [] };
        open.push({ node, anchor: anchorOf(event) });
        break;
      }
      case EVENT_ID.ALIAS: {
        const name = text.slice(event.anchorStart, event.anchorEnd);
        const node = anchors.get(name);
        if (node === undefined) throw new YamlError(`unknown anchor "${name}" referenced; define it with &${name} before this alias`, Math.max(0, event.anchorStart - 1));
        place(node);
        break;
      }
      case EVENT_ID.POP: {
        const closed = open.pop();
        if (closed === undefined) break;
        if (closed.anchor !== undefined) anchors.set(closed.anchor, closed.node);
        place(closed.node);
        break;
      }
    }
  }
  return root;
}

const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const CORE_BOOLEANS: Record<string, boolean> = { true: true, True: true, TRUE: true, false: false, False: false, FALSE: false };
/** go-yaml v3 reads these into a boolean field too, quoted or not, for YAML 1.1's sake. */
const YAML11_BOOLEANS: Record<string, boolean> = {
  y: true,
  Y: true,
  yes: true,
  Yes: true,
  YES: true,
  on: true,
  On: true,
  ON: true,
  n: false,
  N: false,
  no: false,
  No: false,
  NO: false,
  off: false,
  Off: false,
  OFF: false,
};
const SPECIAL_FLOATS: Record<string, number> = {
  '.inf': Infinity,
  '.Inf': Infinity,
  '.INF': Infinity,
  '+.inf': Infinity,
  '+.Inf': Infinity,
  '+.INF': Infinity,
  '-.inf': -Infinity,
  '-.Inf': -Infinity,
  '-.INF': -Infinity,
  '.nan': NaN,
  '.NaN': NaN,
  '.NAN': NaN,
};
const INTEGER = /^[-+]?(?:0b[01]+|0o[0-7]+|0x[0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** A plain scalar as a number, as go-yaml resolves it (underscores dropped, 0x/0o/0b and 0-prefixed octal), or undefined. */
function yamlNumber(text: string): number | undefined {
  if (text in SPECIAL_FLOATS) return SPECIAL_FLOATS[text];
  const digits = text.replace(/_/g, '');
  if (INTEGER.test(digits)) {
    const negative = digits.startsWith('-');
    const unsigned = digits.replace(/^[-+]/, '');
    const magnitude = /^0[0-7]+$/.test(unsigned) ? parseInt(unsigned.slice(1), 8) : unsigned.startsWith('0o') ? parseInt(unsigned.slice(2), 8) : Number(unsigned);
    return negative ? -magnitude : magnitude;
  }
  return FLOAT.test(digits) ? Number(digits) : undefined;
}

function isNull(node: YamlScalar): boolean {
  return node.tag === 'null' || (node.tag === undefined && node.plain && NULLS.has(node.value));
}

function bytesOf(node: YamlScalar, offset: number): Uint8Array {
  const base64 = node.value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1) throw new YamlError('!!binary value contains invalid base64 data', offset);
  return new Uint8Array(Buffer.from(base64, 'base64'));
}

/** A scalar where no field type says what it is: YAML's core resolution, as go-yaml's into an interface. */
function untypedScalar(node: YamlScalar): unknown {
  if (isNull(node)) return null;
  if (node.tag === 'binary') return bytesOf(node, node.offset);
  if (node.tag === 'str' || !node.plain) return node.value;
  if (node.value in CORE_BOOLEANS) return CORE_BOOLEANS[node.value];
  return yamlNumber(node.value) ?? node.value;
}

/** How a field's schema wants its scalars read. */
type Wanted =
  | { readonly kind: 'boolean' | 'number' | 'text' | 'any' }
  | { readonly kind: 'object'; readonly shape: Readonly<Record<string, z.ZodType>> }
  | { readonly kind: 'record'; readonly values: z.ZodType }
  | { readonly kind: 'array'; readonly element: z.ZodType };

interface Definition {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly shape?: Record<string, z.ZodType>;
  readonly valueType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

function wanted(schema: z.ZodType): Wanted {
  const definition = schema.def as unknown as Definition;
  switch (definition.type) {
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return wanted(definition.innerType!);
    case 'pipe':
      return wanted((definition.in!.def as unknown as Definition).type === 'transform' ? definition.out! : definition.in!);
    case 'boolean':
      return { kind: 'boolean' };
    case 'number':
    case 'int':
    case 'bigint':
      return { kind: 'number' };
    case 'string':
    case 'enum':
    case 'literal':
    case 'template_literal':
    case 'custom':
      return { kind: 'text' };
    case 'union':
      // A text field that also takes a number (body_size_limit) or bytes (send) reads text, as Go's
      // TextUnmarshaler is handed the scalar as written.
      return definition.options!.some((option) => wanted(option).kind === 'text') ? { kind: 'text' } : { kind: 'any' };
    case 'object':
      return { kind: 'object', shape: definition.shape! };
    case 'record':
      return { kind: 'record', values: definition.valueType! };
    case 'array':
      return { kind: 'array', element: definition.element! };
    default:
      return { kind: 'any' };
  }
}

/**
 * Decodes `root` into plain values the way go-yaml decodes into the types `schema` describes. Mapping
 * entries whose value is null are left out (a field written `http:` with nothing after it gets its
 * defaults, as upstream). Throws YamlError for what go-yaml refuses before any type is looked at: a key
 * given twice, a merge of something that is not a mapping, aliases that multiply the document.
 */
export function decodeYaml(root: YamlNode, schema: z.ZodType, lines: LineIndex): unknown {
  // go-yaml refuses documents whose aliases expand them far beyond their size ("billion laughs").
  let budget = 10_000 + 20 * countNodes(root);
  const spend = (node: YamlNode): void => {
    budget -= 1;
    if (budget < 0) throw new YamlError('the document contains excessive aliasing; write the repeated parts out or merge fewer times', node.offset);
  };

  const decode = (node: YamlNode, want: Wanted): unknown => {
    spend(node);
    if (node.kind === 'scalar') return scalar(node, want);
    if (node.kind === 'sequence') return node.items.map((item) => decode(item, want.kind === 'array' ? wanted(want.element) : { kind: 'any' }));
    const result: Record<string, unknown> = {};
    for (const [key, { value }] of mergedEntries(node, lines, spend)) {
      const fieldWant = want.kind === 'object' && Object.hasOwn(want.shape, key) ? wanted(want.shape[key]) : want.kind === 'record' ? wanted(want.values) : { kind: 'any' as const };
      const decoded = decode(value, fieldWant);
      if (decoded !== null) Object.defineProperty(result, key, { value: decoded, enumerable: true, writable: true, configurable: true });
    }
    return result;
  };

  const scalar = (node: YamlScalar, want: Wanted): unknown => {
    if (isNull(node)) return null;
    switch (want.kind) {
      case 'text':
        if (node.tag === 'binary') return bytesOf(node, node.offset);
        return node.value;
      case 'boolean':
        if (node.value in YAML11_BOOLEANS) return YAML11_BOOLEANS[node.value];
        return untypedScalar(node);
      default:
        return untypedScalar(node);
    }
  };

  return decode(root, wanted(schema));
}

function countNodes(root: YamlNode): number {
  const seen = new Set<YamlNode>();
  const visit = (node: YamlNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    if (node.kind === 'sequence') node.items.forEach(visit);
    if (node.kind === 'mapping')
      for (const entry of node.entries) {
        visit(entry.key);
        visit(entry.value);
      }
  };
  visit(root);
  return seen.size;
}

function isMergeKey(key: YamlNode): boolean {
  return key.kind === 'scalar' && ((key.plain && key.value === '<<' && key.tag === undefined) || key.tag === 'merge');
}

/**
 * A mapping's entries by key text, merge keys applied as go-yaml applies them: the mapping's own keys win
 * over merged ones, and of several merged mappings the first that has a key wins.
 */
export function mergedEntries(node: YamlMapping, lines: LineIndex, spend: (node: YamlNode) => void = () => undefined): Map<string, YamlEntry> {
  const own = new Map<string, YamlEntry>();
  let merge: YamlEntry | undefined;
  for (const entry of node.entries) {
    if (entry.key.kind !== 'scalar') throw new YamlError('a mapping key must be a scalar here, not a sequence or a mapping', entry.key.offset);
    const previous = isMergeKey(entry.key) ? merge : own.get(entry.key.value);
    if (previous) throw new YamlError(`mapping key "${entry.key.value}" is given twice, first on line ${lines.lineAt(previous.key.offset)}; keep one`, entry.key.offset);
    if (isMergeKey(entry.key)) merge = entry;
    else own.set(entry.key.value, entry);
  }
  if (merge === undefined) return own;
  const result = new Map(own);
  const sources = merge.value.kind === 'sequence' ? merge.value.items : [merge.value];
  for (const source of sources) {
    spend(source);
    if (source.kind !== 'mapping') throw new YamlError('a merge key (<<) takes a mapping or a list of mappings, such as <<: *base', source.offset);
    for (const [key, entry] of mergedEntries(source, lines, spend)) if (!result.has(key)) result.set(key, entry);
  }
  return result;
}
