import { formatDuration, parseDuration } from '../../src/config/duration';

describe('Prometheus durations', () => {
  it.each([
    ['5s', 5000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['1w', 604_800_000],
    ['1y', 31_536_000_000],
    ['0', 0],
  ])('parses %s', (text, milliseconds) => {
    expect(parseDuration(text)).toBe(milliseconds);
  });

  it.each(['', '5', 's', '1.5s', '30s1m', '-5s', '5 s', '5sec'])('refuses %p', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('formats the shortest text back', () => {
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(5500)).toBe('5s500ms');
  });
});
