import { renderMarkdown } from '../../src/report';
import { sampleReport } from './sample-report';

describe('renderMarkdown', () => {
  it('writes a summary, a table per job and its incidents', () => {
    const markdown = renderMarkdown(sampleReport());
    expect(markdown.split('\n').slice(0, 9)).toEqual([
      '# Uptime from 2026-10-28 12:00:00 UTC to 2026-11-27 12:00:00 UTC (30d)',
      '',
      '## checkout',
      '',
      '99.98% uptime over 2 targets, objective 99.9%, 75.0% of the error budget left; 1 incident, 21m 30s down in all.',
      '',
      '| Target | Uptime | Incidents | Downtime | p50 / p95 | Slowest phase | Certificate | Error budget left |',
      '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
      '| https://shop.example.com/health | 99.95% | 1 | 21m 30s | 42 ms / 131 ms | processing (31 ms) | 61 days | 50.0% |',
    ]);
    expect(markdown).toContain('| db-1.example.com:5432 | 98.50% | 2 | 9h 44m | 1.2 ms / 4.0 ms | – | – | – |');
    expect(markdown).toContain('| db-1.example.com:5432 | 2026-11-27 11:58:30 UTC | ongoing | 1m 30s |');
  });

  it('keeps a cell in its column whatever the target holds', () => {
    const report = sampleReport();
    const markdown = renderMarkdown({ ...report, targets: report.targets.map((target) => ({ ...target, instance: 'a|b\nc' })) });
    expect(markdown).toContain('| a\\|b c | 99.95% |');
  });

  it("ends with the spec's targets not seen in the window, before the footer", () => {
    const report = { ...sampleReport(), unseen: [{ job: 'checkout', instance: 'https://new.example.com|x' }] };
    const markdown = renderMarkdown(report);
    const section = markdown.slice(markdown.indexOf('## Not seen in the window'));
    expect(section.split('\n').slice(0, 7)).toEqual([
      '## Not seen in the window',
      '',
      '1 target of the spec has no probe_success series from 2026-10-28 12:00:00 UTC to 2026-11-27 12:00:00 UTC: not scraped yet, renamed, or its agent not running. It is left out of the figures above.',
      '',
      '| Job | Target |',
      '| --- | --- |',
      '| checkout | https://new.example.com\\|x |',
    ]);
    expect(section).toMatch(/\n\nUptime is Prometheus' avg_over_time/);
    expect(renderMarkdown(sampleReport())).not.toContain('Not seen');
  });
});
