import { compileGoRegexp, expandGoTemplate, RegexpError } from '../../src/config/regexp';

describe('Go templates of query_response (send, label values)', () => {
  it('expand captures as Go Regexp.Expand does', () => {
    const match = compileGoRegexp('^(?P<name>\\w+) (\\d+)$').exec('probe 42')!;
    expect(expandGoTemplate('${1}-${2}-$name-${name}-$$-$3-$2x-${2}x', match)).toBe('probe-42-probe-probe-$---42x');
    expect(expandGoTemplate('cost: $', match)).toBe('cost: $');
    // A leading zero makes a name, not a group number; no group has that name.
    expect(expandGoTemplate('$01|${01}|$0', match)).toBe('||probe 42');
  });

  it('expand a name to the first group of that name that took part, and a group that took no part to nothing', () => {
    const match = compileGoRegexp('(?P<code>\\d+)|(?P<word>[a-z]+)(x)?').exec('abc')!;
    expect(expandGoTemplate('[$code][$word][$3][$9]', match)).toBe('[][abc][][]');
  });
});

describe('Go regular expressions', () => {
  it.each([
    ['(?i)hello', 'HeLLo there', true],
    ['(?s)a.b', 'a\nb', true],
    ['a.b', 'a\nb', false],
    ['(?P<word>\\w+)!', 'hi!', true],
    ['(?<word>\\w+)!', 'hi!', true],
    ['^+OK', '+OK ready', false],
    ['^+OK', 'OK ready', true],
    ['[[:digit:]]+', 'abc123', true],
    ['[[:^alpha:]]', 'abc', false],
    ['\\Astart', 'start here', true],
    ['end\\z', 'the end\n', false],
    ['end$', 'the end\n', false],
    ['(?m)end$', 'the end\nnext', true],
    ['\\Q(ok)\\E', '(ok)', true],
    ['\\Q(ok)\\E', 'ok', false],
    ['^\\pL+$', 'Ærøskøbing', true],
    ['^\\pL+$', 'abc1', false],
    ['\\p{Greek}', 'λ', true],
    ['a(?i)b', 'aB', true],
    ['a(?i:b)c', 'aBC', false],
    ['(?U)a+', 'aaa', true],
  ])('%s on %p matches: %p', (source, text, expected) => {
    expect(compileGoRegexp(source).test(text)).toBe(expected);
  });

  it('match anywhere in the text and take the leftmost match, lazily under (?U)', () => {
    expect(compileGoRegexp('(a+)').exec('xaay')?.group(1)).toBe('aa');
    expect(compileGoRegexp('(?U)(a+)').exec('xaay')?.group(1)).toBe('a');
    expect(compileGoRegexp('b').exec('aaa')).toBeNull();
  });

  it.each([
    ['lookahead', 'a(?=b)', /invalid or unsupported Perl syntax: `\(\?=`/],
    ['lookbehind', '(?<=a)b', /invalid named capture/],
    ['a backreference', '(a)\\1', /invalid escape sequence: `\\1`/],
    ['a repeat count above 1000', 'a{1001}', /invalid repeat count: `\{1001\}`/],
    ['a possessive quantifier', 'a++', /invalid nested repetition operator/],
    ['\\C', '\\C', /invalid escape sequence/],
    ['an unclosed group', '(a', /missing closing \)/],
  ])('refuses %s, as RE2 does', (_name, source, reason) => {
    expect(() => compileGoRegexp(source)).toThrow(RegexpError);
    expect(() => compileGoRegexp(source)).toThrow(reason);
  });
});

describe('groups that share a name, as Go allows', () => {
  it('compile, and a name expands to the first of its groups that took part', () => {
    const either = compileGoRegexp('(?P<code>\\d+) (?P<x>a)|(?P<code>[a-z]+)(?P<code_2>!)');
    expect(expandGoTemplate('$code,$code_2,$x', either.exec('404 a')!)).toBe('404,,a');
    expect(expandGoTemplate('$code,$code_2', either.exec('abc!')!)).toBe('abc,!');
  });

  it('are told apart from the same text in escapes and classes', () => {
    expect(compileGoRegexp('\\Q(?P<n>\\E(?P<n>x)').exec('(?P<n>x')?.named('n')).toBe('x');
    expect(compileGoRegexp('[(?P<n>](?P<n>y)').exec('<y')?.named('n')).toBe('y');
  });
});
