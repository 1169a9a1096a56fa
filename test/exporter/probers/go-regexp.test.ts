import { compileGoRegexp, expandGoTemplate } from '../../../exporter/src/config/go-regexp';

describe('Go regular expressions from the config', () => {
  it('accepts the Go-only spellings', () => {
    expect(compileGoRegexp('(?P<v>[0-9]+)').exec('SSH-2')?.groups?.v).toBe('2');
    expect(compileGoRegexp('(?i)^ok').test('OK then')).toBe(true);
    expect(compileGoRegexp('\\Aab\\z').test('ab')).toBe(true);
    expect(compileGoRegexp('\\Aab\\z').test('ab\n')).toBe(false);
    expect(() => compileGoRegexp(':[')).toThrow(/":\[" does not compile/);
  });

  it('expands templates as Go Regexp.Expand does', () => {
    const match = compileGoRegexp('^(?P<name>\\w+) (\\d+)$').exec('probe 42')!;
    expect(expandGoTemplate('${1}-${2}-$name-${name}-$$-$3-$2x-${2}x', match)).toBe('probe-42-probe-probe-$---42x');
    expect(expandGoTemplate('cost: $', match)).toBe('cost: $');
  });
});
