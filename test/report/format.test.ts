import { certificate, day, duration, percent, probeTime } from '../../src/report/format';

describe('report figures', () => {
  it('never rounds an uptime to 100% or 0% that is not', () => {
    expect([100, 99.9999, 99.95, 0.0001, 0].map((value) => percent(value))).toEqual(['100.00%', '99.99%', '99.95%', '0.01%', '0.00%']);
    expect(percent(-42.86, 1)).toBe('-42.9%');
  });

  it('writes durations in their two largest units', () => {
    expect([0, 0.25, 12, 270, 3720, 90_061, 86_400].map(duration)).toEqual(['0s', '250ms', '12s', '4m 30s', '1h 2m', '1d 1h', '1d']);
    expect([0.0042, 0.042, 1.5].map(probeTime)).toEqual(['4.2 ms', '42 ms', '1.50 s']);
    expect([1, 43, -2].map(certificate)).toEqual(['1 day', '43 days', 'expired 2 days ago']);
  });

  it("writes a window's edge to the minute, and to the second when it falls between minutes", () => {
    expect(day('2026-11-27T19:40:00.000Z')).toBe('27 Nov 2026 19:40 UTC');
    expect(day('2026-11-27T19:40:12.000Z')).toBe('27 Nov 2026 19:40:12 UTC');
  });
});
