import { statusPage } from '../../src/server/status-page';
import type { ProbeRecord } from '../../src/server/history';

const record = (overrides: Partial<ProbeRecord>): ProbeRecord => ({
  id: 7,
  module: 'http_2xx',
  target: 'https://example.test/',
  success: true,
  at: new Date('2026-11-27T05:00:00.000Z'),
  debugOutput: () => '',
  ...overrides,
});

describe('the status page', () => {
  it("names a failed probe's reason with its timeout phase, and leaves the cell empty for a success", () => {
    const page = statusPage('0.1.0', [record({ success: false, failure: { reason: 'timed out', phase: 'connect' } }), record({ id: 8 })]);
    expect(page).toContain(
      '<tr><td>http_2xx</td><td>https://example.test/</td><td><strong>Failure</strong></td><td>timed out (connect)</td><td>2026-11-27T05:00:00.000Z</td><td><a href="logs?id=7">Logs</a></td></tr>',
    );
    expect(page).toContain('<td>Success</td><td></td><td>2026-11-27T05:00:00.000Z</td><td><a href="logs?id=8">Logs</a></td>');
  });

  it('escapes what a scrape chose: the module and the target', () => {
    const page = statusPage('0.1.0', [record({ module: '<m>', target: 'http://x/"><script>' })]);
    expect(page).not.toContain('<script>');
    expect(page).toContain('<td>&#60;m&#62;</td><td>http://x/&#34;&#62;&#60;script&#62;</td>');
  });
});
