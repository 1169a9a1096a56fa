import { DOMParser } from '@xmldom/xmldom';
import { renderBadge } from '../../src/report';
import { badgeColor, textWidth } from '../../src/report/badge';
import { sampleReport } from './sample-report';

describe('renderBadge', () => {
  it("is an SVG of the job's uptime, as wide as its texts", () => {
    const report = sampleReport();
    const svg = renderBadge(report, report.jobs[0]!);
    const errors: string[] = [];
    const document = new DOMParser({ onError: (level, message) => void errors.push(`${level}: ${message}`) }).parseFromString(svg, 'image/svg+xml');
    expect(errors).toEqual([]);
    const root = document.documentElement!;
    expect(root.getAttribute('aria-label')).toBe('checkout uptime 30d: 99.98%');
    expect(Number(root.getAttribute('width'))).toBe(Math.round(textWidth('checkout uptime 30d') + 12) + Math.round(textWidth('99.98%') + 12));
    expect(Array.from(document.getElementsByTagName('text')).map((text) => text.textContent)).toEqual(['checkout uptime 30d', 'checkout uptime 30d', '99.98%', '99.98%']);
  });

  it('is green at or above the objective, then yellow, orange and red as the budget is overspent', () => {
    expect([99.95, 99.85, 99.5, 98].map((uptime) => badgeColor(uptime, 99.9))).toEqual(['#3fb34f', '#dfb317', '#fe7d37', '#e05d44']);
    expect(badgeColor(99.9, null)).toBe('#3fb34f');
  });

  it('escapes a job name', () => {
    const report = sampleReport();
    expect(renderBadge(report, { ...report.jobs[0]!, job: 'a<b>&"' })).toContain('aria-label="a&lt;b&gt;&amp;&quot; uptime 30d: 99.98%"');
  });
});
