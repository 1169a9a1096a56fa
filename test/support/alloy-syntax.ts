/**
 * A parser for Alloy's configuration syntax, as its documentation states it (get-started/syntax.md and
 * expressions/types_and_values.md at Alloy 1.18), so that tests can read what the renderer writes without an Alloy
 * binary: `//` and `/* *\/` comments; blocks `name.part "label" { ... }` whose label is a double-quoted identifier;
 * attributes `identifier = expression`, one per line; expressions that are double-quoted strings with the documented
 * escapes, raw strings in backticks, numbers, true, false, null, arrays `[a, b,]`, objects `{ key = value, }` whose
 * keys are identifiers or strings, and references to other components' exports (`a.b.c.d`). Function calls,
 * operators and indexing are refused: probekit writes none, and a parser that accepted them unread would prove
 * nothing. Anything else is an error naming the line.
 */

export type AlloyValue = string | number | boolean | null | AlloyReference | AlloyValue[] | { [key: string]: AlloyValue };

export class AlloyReference {
  constructor(readonly path: readonly string[]) {}
  toString(): string {
    return this.path.join('.');
  }
}

export interface AlloyAttribute {
  readonly kind: 'attribute';
  readonly name: string;
  readonly value: AlloyValue;
  readonly line: number;
}

export interface AlloyBlock {
  readonly kind: 'block';
  readonly name: string;
  readonly label?: string;
  readonly body: readonly AlloyStatement[];
  readonly line: number;
}

export type AlloyStatement = AlloyAttribute | AlloyBlock;

type Token =
  | { readonly type: 'identifier'; readonly text: string; readonly line: number }
  | { readonly type: 'string'; readonly value: string; readonly line: number }
  | { readonly type: 'number'; readonly value: number; readonly line: number }
  | { readonly type: 'punctuation'; readonly text: string; readonly line: number }
  | { readonly type: 'newline'; readonly line: number }
  | { readonly type: 'end'; readonly line: number };

export class AlloySyntaxError extends Error {}

const IDENTIFIER = /^[\p{L}_][\p{L}\p{Nd}_]*$/u;

export function isAlloyIdentifier(text: string): boolean {
  return IDENTIFIER.test(text);
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', a: '\u0007', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '"': '"' };

/** The escapes of the documentation's table, and nothing else. */
function readString(source: string, start: number, line: number): { value: string; end: number } {
  let value = '';
  let position = start + 1;
  const fail = (what: string): never => {
    throw new AlloySyntaxError(`line ${line}: ${what}`);
  };
  for (;;) {
    const character = source[position];
    if (character === undefined || character === '\n') fail('string not closed on its line');
    if (character === '"') return { value, end: position + 1 };
    if (character !== '\\') {
      value += character;
      position += 1;
      continue;
    }
    const escape = source[position + 1];
    if (escape in SIMPLE_ESCAPES) {
      value += SIMPLE_ESCAPES[escape];
      position += 2;
    } else if (escape === 'x' || escape === 'u' || escape === 'U') {
      const digits = { x: 2, u: 4, U: 8 }[escape];
      const hex = source.slice(position + 2, position + 2 + digits);
      if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) fail(`\\${escape} needs ${digits} hexadecimal digits`);
      value += String.fromCodePoint(parseInt(hex, 16));
      position += 2 + digits;
    } else if (/[0-7]/.test(escape ?? '')) {
      const octal = source.slice(position + 1, position + 4);
      if (!/^[0-7]{3}$/.test(octal)) fail('an octal escape needs three digits');
      value += String.fromCharCode(parseInt(octal, 8));
      position += 4;
    } else {
      fail(`\\${escape} is not an escape Alloy knows`);
    }
  }
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  let line = 1;
  while (position < source.length) {
    const rest = source.slice(position);
    const character = source[position];
    if (character === '\n') {
      tokens.push({ type: 'newline', line });
      line += 1;
      position += 1;
    } else if (/[ \t\r]/.test(character)) {
      position += 1;
    } else if (rest.startsWith('//')) {
      const end = source.indexOf('\n', position);
      position = end === -1 ? source.length : end;
    } else if (rest.startsWith('/*')) {
      const end = source.indexOf('*/', position + 2);
      if (end === -1) throw new AlloySyntaxError(`line ${line}: block comment not closed`);
      line += source.slice(position, end).split('\n').length - 1;
      position = end + 2;
    } else if (character === '"') {
      const { value, end } = readString(source, position, line);
      tokens.push({ type: 'string', value, line });
      position = end;
    } else if (character === '`') {
      const end = source.indexOf('`', position + 1);
      if (end === -1) throw new AlloySyntaxError(`line ${line}: raw string not closed`);
      const value = source.slice(position + 1, end);
      tokens.push({ type: 'string', value, line });
      line += value.split('\n').length - 1;
      position = end + 1;
    } else if (/[0-9]/.test(character)) {
      const [text] = /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(rest)!;
      tokens.push({ type: 'number', value: Number(text), line });
      position += text.length;
    } else if ('{}[]=,.'.includes(character)) {
      tokens.push({ type: 'punctuation', text: character, line });
      position += 1;
    } else {
      const match = /^[\p{L}_][\p{L}\p{Nd}_]*/u.exec(rest);
      if (!match) throw new AlloySyntaxError(`line ${line}: unexpected ${JSON.stringify(character)} (probekit writes no operators, calls or indexing)`);
      tokens.push({ type: 'identifier', text: match[0], line });
      position += match[0].length;
    }
  }
  tokens.push({ type: 'end', line });
  return tokens;
}

class Parser {
  private position = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token {
    return this.tokens[this.position];
  }

  private next(): Token {
    return this.tokens[this.position++];
  }

  private fail(token: Token, what: string): never {
    throw new AlloySyntaxError(`line ${token.line}: ${what}`);
  }

  private isPunctuation(token: Token, text: string): boolean {
    return token.type === 'punctuation' && token.text === text;
  }

  private expectPunctuation(text: string): void {
    const token = this.next();
    if (!this.isPunctuation(token, text)) this.fail(token, `expected "${text}"`);
  }

  private skipNewlines(): void {
    while (this.peek().type === 'newline') this.position++;
  }

  /** Statements up to `}` (a block's body) or the end of the file. */
  body(topLevel: boolean): AlloyStatement[] {
    const statements: AlloyStatement[] = [];
    for (;;) {
      this.skipNewlines();
      const token = this.peek();
      if (topLevel ? token.type === 'end' : this.isPunctuation(token, '}')) return statements;
      if (token.type !== 'identifier') this.fail(token, 'expected an attribute or a block');
      statements.push(this.statement());
      const after = this.peek();
      if (after.type !== 'newline' && after.type !== 'end' && !this.isPunctuation(after, '}')) this.fail(after, 'a statement ends at the end of its line');
    }
  }

  /** An identifier and the `.identifier` parts that follow it. */
  private dotted(first: string): string[] {
    const parts = [first];
    while (this.isPunctuation(this.peek(), '.')) {
      this.position++;
      const part = this.next();
      if (part.type !== 'identifier') this.fail(part, 'expected an identifier after "."');
      parts.push(part.text);
    }
    return parts;
  }

  private statement(): AlloyStatement {
    const first = this.next() as Extract<Token, { type: 'identifier' }>;
    const parts = this.dotted(first.text);
    const token = this.peek();
    if (this.isPunctuation(token, '=')) {
      if (parts.length > 1) this.fail(token, 'an attribute name is one identifier');
      this.position++;
      return { kind: 'attribute', name: first.text, value: this.expression(), line: first.line };
    }
    let label: string | undefined;
    if (token.type === 'string') {
      label = token.value;
      if (!isAlloyIdentifier(label)) this.fail(token, `block label ${JSON.stringify(label)} is not an identifier`);
      this.position++;
    }
    this.expectPunctuation('{');
    const body = this.body(false);
    this.expectPunctuation('}');
    return { kind: 'block', name: parts.join('.'), ...(label === undefined ? {} : { label }), body, line: first.line };
  }

  private expression(): AlloyValue {
    this.skipNewlines();
    const token = this.next();
    switch (token.type) {
      case 'string':
      case 'number':
        return token.value;
      case 'identifier': {
        if (token.text === 'true' || token.text === 'false') return token.text === 'true';
        if (token.text === 'null') return null;
        return new AlloyReference(this.dotted(token.text));
      }
      case 'punctuation':
        if (token.text === '[') return this.array();
        if (token.text === '{') return this.object();
        return this.fail(token, `unexpected "${token.text}"`);
      default:
        return this.fail(token, 'expected a value');
    }
  }

  private array(): AlloyValue[] {
    const items: AlloyValue[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.isPunctuation(this.peek(), ']')) {
        this.position++;
        return items;
      }
      items.push(this.expression());
      this.skipNewlines();
      const separator = this.next();
      if (this.isPunctuation(separator, ']')) return items;
      if (!this.isPunctuation(separator, ',')) this.fail(separator, 'expected "," or "]"');
    }
  }

  private object(): { [key: string]: AlloyValue } {
    const fields: { [key: string]: AlloyValue } = {};
    for (;;) {
      this.skipNewlines();
      const key = this.next();
      if (this.isPunctuation(key, '}')) return fields;
      if (key.type !== 'identifier' && key.type !== 'string') this.fail(key, 'an object key is an identifier or a string');
      const name = key.type === 'string' ? key.value : key.text;
      if (name in fields) this.fail(key, `key ${JSON.stringify(name)} twice`);
      this.expectPunctuation('=');
      fields[name] = this.expression();
      this.skipNewlines();
      const separator = this.next();
      if (this.isPunctuation(separator, '}')) return fields;
      if (!this.isPunctuation(separator, ',')) this.fail(separator, 'expected "," or "}"');
    }
  }
}

/** The statements of an Alloy configuration file; throws AlloySyntaxError naming the line of the first mistake. */
export function parseAlloy(source: string): AlloyStatement[] {
  return new Parser(tokenize(source)).body(true);
}
