/** The rendered scrape jobs, as Prometheus's own checker sees them. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { parseSpec } from '../../src/model';
import { LOCAL_EXPORTER_ADDRESS, renderScrapeJobs, type ScrapeConfig } from '../../src/render';
import { describeWithBinaries } from '../support/integration';
import { fullEnv, fullSpec } from '../fixtures/specs';

const PROMTOOL = '/usr/bin/promtool';
const run = promisify(execFile);

async function promtoolCheck(jobs: ScrapeConfig[]): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-promtool-'));
  try {
    const file = join(dir, 'prometheus.yml');
    writeFileSync(file, stringify({ global: { scrape_interval: '1m' }, scrape_configs: jobs }));
    const { stdout, stderr } = await run(PROMTOOL, ['check', 'config', file]);
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string };
    return { ok: false, output: failure.stdout + failure.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describeWithBinaries([PROMTOOL])('promtool check config', () => {
  const spec = parseSpec(fullSpec, { env: fullEnv });

  it('accepts every rendered job, cluster and single-machine forms', async () => {
    for (const jobs of [renderScrapeJobs(spec), renderScrapeJobs(spec, LOCAL_EXPORTER_ADDRESS)]) {
      const result = await promtoolCheck(jobs);
      expect(result.output).toContain('SUCCESS');
      expect(result.ok).toBe(true);
    }
  });

  it('would refuse a job whose timeout exceeds its interval (the check is real)', async () => {
    const [job] = renderScrapeJobs(spec);
    const result = await promtoolCheck([{ ...job, scrape_timeout: '5m' }]);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/scrape timeout greater than scrape interval/);
  });
});
