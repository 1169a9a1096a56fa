import { compileGoRegexp, expandGoTemplate } from '../../src/config/regexp';

describe('Go templates of query_response (send, label values)', () => {
  it('expand captures as Go Regexp.Expand does', () => {
    const match = compileGoRegexp('^(?P<name>\\w+) (\\d+)$').exec('probe 42')!;
    expect(expandGoTemplate('${1}-${2}-$name-${name}-$$-$3-$2x-${2}x', match)).toBe('probe-42-probe-probe-$---42x');
    expect(expandGoTemplate('cost: $', match)).toBe('cost: $');
  });
});
