import { formatDuration, parseDuration, parseGoDuration } from '../../src/config/duration';

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

describe('Go durations (a module timeout, as upstream decodes it)', () => {
  it.each([
    ['5s', 5000],
    ['1.5s', 1500],
    ['1m30s', 90_000],
    ['1m0.5s', 60_500],
    ['500ms', 500],
    ['500us', 0.5],
    ['500µs', 0.5],
    ['.5s', 500],
    ['1s1s', 2000],
    ['-1s', -1000],
    ['+2h', 7_200_000],
    ['0', 0],
  ])('parses %s', (text, milliseconds) => {
    expect(parseGoDuration(text)).toBe(milliseconds);
  });

  it.each(['', '5', 's', '.s', '1.5', '1d', '1w', '5 s', '1e3s', '3000000h'])('refuses %p', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});
