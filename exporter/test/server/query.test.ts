import { requestQuery } from '../../src/server/query';

describe('a request query read as upstream reads it', () => {
  it.each([
    [
      'module=http_2xx&target=a+b%2Fc',
      [
        ['module', 'http_2xx'],
        ['target', 'a b/c'],
      ],
    ],
    ['target=http://h/%zz&module=m', [['module', 'm']]],
    ['target=x;y&module=m', [['module', 'm']]],
    ['target=%&module=m', [['module', 'm']]],
    ['%zz=1&target=t', [['target', 't']]],
    [
      'target&debug=true&&',
      [
        ['target', ''],
        ['debug', 'true'],
      ],
    ],
    ['target=%C3%A9t%C3%A9', [['target', 'été']]],
    ['target=a=b', [['target', 'a=b']]],
  ])('%j', (raw, pairs) => {
    expect([...requestQuery(raw)]).toEqual(pairs);
  });
});
