import { parseByteSize } from '../../src/config/size';

describe('sizes', () => {
  it('reads body_size_limit as upstream (units are powers of 1024, fractions and sums allowed)', () => {
    expect(parseByteSize(100)).toBe(100);
    expect(parseByteSize('1KB')).toBe(1024);
    expect(parseByteSize('2MiB')).toBe(2 * 1024 * 1024);
    expect(parseByteSize('10B')).toBe(10);
    expect(parseByteSize('1.5MB')).toBe(1_572_864);
    expect(parseByteSize('.5KiB')).toBe(512);
    expect(parseByteSize('1MB512KB')).toBe(1_572_864);
    expect(parseByteSize('-1B')).toBe(-1);
    expect(parseByteSize('0')).toBe(0);
  });

  it('keeps reading a number without a unit as bytes, and a bare K as KiB, as it always has', () => {
    expect(parseByteSize('1024')).toBe(1024);
    expect(parseByteSize('1K')).toBe(1024);
  });

  it.each(['ten', '1kB', '1.5', '1024 512', '.KB', '', 'MB'])('refuses %p', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});
