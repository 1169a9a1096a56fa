import { parseByteSize } from '../../src/config/size';

describe('sizes', () => {
  it('reads body_size_limit as upstream (units are powers of 1024)', () => {
    expect(parseByteSize(100)).toBe(100);
    expect(parseByteSize('1KB')).toBe(1024);
    expect(parseByteSize('2MiB')).toBe(2 * 1024 * 1024);
    expect(parseByteSize('10B')).toBe(10);
    expect(parseByteSize('ten')).toBeUndefined();
  });
});
