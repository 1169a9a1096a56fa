import { compileGoRegexp, expandGoTemplate } from '../../src/config/regexp';

describe('Go templates of query_response (send, label values)', () => {
  it('expand captures as Go Regexp.Expand does', () => {
    const match = compileGoRegexp('^(?P<name>\\w+) (\\d+)$').exec('probe 42')!;
    expect(expandGoTemplate('${1}-${2}-$name-${name}-$$-$3-$2x-${2}x', match)).toBe('probe-42-probe-probe-$---42x');
    expect(expandGoTemplate('cost: $', match)).toBe('cost: $');
  });
});

describe('Go regular expressions', () => {
  it.each([
    ['(?i)hello', 'HeLLo there', true],
    ['(?s)a.b', 'a\nb', true],
    ['a.b', 'a\nb', false],
    ['(?P<word>\\w+)!', 'hi!', true],
    ['^+OK', '+OK ready', false],
    ['^+OK', 'OK ready', true],
    ['[[:digit:]]+', 'abc123', true],
    ['\\Astart', 'start here', true],
  ])('%s on %p matches: %p', (source, text, expected) => {
    expect(compileGoRegexp(source).test(text)).toBe(expected);
  });

  it('refuses flags in the middle, which JS cannot express', () => {
    expect(() => compileGoRegexp('a(?i)b')).toThrow(/only at the start/);
  });
});
