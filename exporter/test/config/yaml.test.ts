/**
 * YAML as upstream's decoder (go-yaml v3) reads a config file: the first document only, scalars read by
 * the type of their field, merge keys, duplicate keys refused, and no document that aliases can blow up.
 */
import { z } from 'zod';
import { decodeYaml, firstDocument, LineIndex, parseYaml, YamlError } from '../../src/config/yaml';

function decode(text: string, schema: z.ZodType): unknown {
  return decodeYaml(parseYaml(text)!, schema, new LineIndex(text));
}

describe('the first document', () => {
  it.each([
    ['a file of one document', 'a: 1\n', 'a: 1\n', false],
    ['a document opened with ---', '---\na: 1\n', '---\na: 1\n', false],
    ['directives and comments before ---', '%YAML 1.2\n# c\n---\na: 1\n', '%YAML 1.2\n# c\n---\na: 1\n', false],
    ['two documents', 'a: 1\n---\nb: [\n', 'a: 1\n', true],
    ['an empty first document', '---\n---\na: 1\n', '---\n', true],
    ['a document ended with ...', 'a: 1\n...\n# done\n', 'a: 1\n', false],
    ['a document ended with ... and another after', 'a: 1\n...\nb: 2\n', 'a: 1\n', true],
    ['--- inside a value is no marker', 'a: "x\n  --- y"\nb: |\n  ---x\n', 'a: "x\n  --- y"\nb: |\n  ---x\n', false],
  ])('%s', (_name, text, first, more) => {
    expect(firstDocument(text)).toEqual({ text: first, more });
  });
});

describe('scalars read by the type of their field', () => {
  const schema = z.strictObject({
    flag: z.boolean().optional(),
    count: z.number().optional(),
    text: z.string().optional(),
    size: z.union([z.number(), z.string()]).optional(),
    bytes: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
    texts: z.record(z.string(), z.string()).optional(),
    counts: z.array(z.number()).optional(),
  });

  it.each([
    ['flag: true', { flag: true }],
    ['flag: FALSE', { flag: false }],
    ['flag: yes', { flag: true }],
    ['flag: "on"', { flag: true }],
    ['flag: Off', { flag: false }],
    ['flag: n', { flag: false }],
    // go-yaml refuses a quoted "true" for a boolean; the schema then says so.
    ['flag: "true"', { flag: 'true' }],
    ['count: 64', { count: 64 }],
    ['count: 0x1F', { count: 31 }],
    ['count: 0o17', { count: 15 }],
    ['count: 017', { count: 15 }],
    ['count: 1_000', { count: 1000 }],
    ['count: 2.5', { count: 2.5 }],
    ['count: "64"', { count: '64' }],
    ['text: 123', { text: '123' }],
    ['text: 0x1F', { text: '0x1F' }],
    ['text: 1.50', { text: '1.50' }],
    ['text: true', { text: 'true' }],
    ['text: 2001-12-14', { text: '2001-12-14' }],
    ['text: ~', {}],
    ['text: ""', { text: '' }],
    ['text:', {}],
    ['size: 1024', { size: '1024' }],
    ['size: 1.5MB', { size: '1.5MB' }],
    ['bytes: !!binary AAE=', { bytes: new Uint8Array([0, 1]) }],
    ['bytes: text', { bytes: 'text' }],
    ['texts: { X-Count: 5, X-On: true }', { texts: { 'X-Count': '5', 'X-On': 'true' } }],
    ['counts: [200, 0x12C]', { counts: [200, 300] }],
    ['other: [1, yes, "2", .inf, ~]', { other: [1, 'yes', '2', Infinity, null] }],
  ])('%s', (text, expected) => {
    expect(decode(`${text}\n`, schema)).toEqual(expected);
  });

  it('keeps an unknown key such as __proto__ as data for the schema to refuse', () => {
    const decoded = decode('__proto__: { polluted: true }\n', schema) as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('anchors and merge keys', () => {
  const any = z.unknown();

  it('merges a mapping, its own keys winning', () => {
    expect(decode('base: &base { prober: http, timeout: 5s }\nm:\n  <<: *base\n  timeout: 3s\n', any)).toEqual({
      base: { prober: 'http', timeout: '5s' },
      m: { prober: 'http', timeout: '3s' },
    });
  });

  it('merges a list of mappings, the first that has a key winning', () => {
    expect(decode('a: &a { x: 1, y: 1 }\nb: &b { y: 2, z: 2 }\nm:\n  <<: [*a, *b]\n', any)).toEqual({ a: { x: 1, y: 1 }, b: { y: 2, z: 2 }, m: { x: 1, y: 1, z: 2 } });
  });

  it.each([
    ['a key given twice', 'a: 1\nb: 2\na: 3\n', 'mapping key "a" is given twice, first on line 1; keep one', 3],
    ['two merge keys', 'a: &a { x: 1 }\nm:\n  <<: *a\n  <<: *a\n', 'mapping key "<<" is given twice, first on line 3; keep one', 4],
    ['a merge of a scalar', 'a: &a 1\nm:\n  <<: *a\n', 'a merge key (<<) takes a mapping or a list of mappings, such as <<: *base', 1],
    ['an unknown anchor', 'm: *nothing\n', 'unknown anchor "nothing" referenced; define it with &nothing before this alias', 1],
    ['a key that is a mapping', '? { a: 1 }\n: 2\n', 'a mapping key must be a scalar here, not a sequence or a mapping', 1],
  ])('refuses %s, at its line', (_name, text, message, line) => {
    const lines = new LineIndex(text);
    let thrown: unknown;
    try {
      decodeYaml(parseYaml(text)!, any, lines);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(YamlError);
    expect([(thrown as YamlError).message, lines.lineAt((thrown as YamlError).offset)]).toEqual([message, line]);
  });

  it('refuses a document whose aliases multiply it, at once', () => {
    const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 10; level += 1) levels.push(`a${level}: &a${level} [${Array.from({ length: 10 }, () => `*a${level - 1}`).join(', ')}]`);
    expect(() => decode(`${levels.join('\n')}\n`, any)).toThrow(/excessive aliasing/);
  });
});

describe('line index', () => {
  it('names the 1-based line of an offset', () => {
    const lines = new LineIndex('a\nbb\n\nc');
    expect([0, 1, 2, 4, 5, 6, 100].map((offset) => lines.lineAt(offset))).toEqual([1, 1, 2, 2, 3, 4, 4]);
  });
});
