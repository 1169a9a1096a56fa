/** Prometheus' own checker of a configuration file (Debian's promtool), run on scrape configs a test renders. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';

export const PROMTOOL = '/usr/bin/promtool';
const run = promisify(execFile);

/** Where the agent's pod mounts the files its jobs read (the exporter's CA, the password...). */
const MOUNTED = /\/etc\/probekit\/[^\s"',\]]+/g;

/**
 * `promtool check config` of a prometheus.yml holding these scrape configs. promtool checks that the files a job
 * reads exist: each file under /etc/probekit/ (what the agent's pod mounts from Secrets) is made, empty, in a
 * folder of the test's, and the jobs name it there.
 */
export async function promtoolCheck(scrapeConfigs: readonly unknown[]): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-promtool-'));
  try {
    const file = join(dir, 'prometheus.yml');
    const text = stringify({ global: { scrape_interval: '1m' }, scrape_configs: scrapeConfigs }, { lineWidth: 0 });
    for (const mounted of new Set(text.match(MOUNTED) ?? [])) {
      mkdirSync(dirname(join(dir, mounted)), { recursive: true });
      writeFileSync(join(dir, mounted), '');
    }
    writeFileSync(
      file,
      text.replace(MOUNTED, (mounted) => join(dir, mounted)),
    );
    const { stdout, stderr } = await run(PROMTOOL, ['check', 'config', file]);
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string };
    return { ok: false, output: failure.stdout + failure.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
