import { byteSizeProblem, parseByteSize } from '../../src/config/size';

describe('sizes', () => {
  it('reads body_size_limit as upstream (units are powers of 1024, fractions and sums allowed)', () => {
    expect(parseByteSize('1KB')).toBe(1024);
    expect(parseByteSize('2MiB')).toBe(2 * 1024 * 1024);
    expect(parseByteSize('10B')).toBe(10);
    expect(parseByteSize('1.5MB')).toBe(1_572_864);
    expect(parseByteSize('.5KiB')).toBe(512);
    expect(parseByteSize('1.KB')).toBe(1024);
    expect(parseByteSize('1MB512KB')).toBe(1_572_864);
    expect(parseByteSize('1MiB512KiB')).toBe(1_572_864);
    expect(parseByteSize('1B1B')).toBe(2);
    expect(parseByteSize('1.5B')).toBe(1);
    expect(parseByteSize('-1B')).toBe(-1);
    expect(parseByteSize('+1KB')).toBe(1024);
    expect(parseByteSize('0')).toBe(0);
    expect(parseByteSize('-0')).toBe(0);
    expect(parseByteSize(0)).toBe(0);
    expect(parseByteSize('0B')).toBe(0);
  });

  it.each(['1024', 1024, -1, '-1', '1.5', '0.0', '00', '1K', '1 KB', '1KB ', ' 1KB', '1kB', '1kib', '1MiB512KB', '1B2', '1e3', '1ZB', 'ten', '', '-', '.KB', 'MB'])(
    'refuses %p, as upstream does',
    (value) => {
      expect(parseByteSize(value)).toBeUndefined();
    },
  );

  it('says what to write instead, naming the unit or 0 for no limit', () => {
    expect(byteSizeProblem('1000')).toBe('1000 has no unit, which upstream refuses; write 1000B for bytes, or a size in KB, MB or GB');
    expect(byteSizeProblem(-1)).toBe('-1 has no unit, which upstream refuses; write 0 for no limit');
    expect(byteSizeProblem('1 KB')).toMatch(/^must be a size with a unit, such as 512KB, 1.5MiB or 1024B .*0 means no limit$/);
  });
});
