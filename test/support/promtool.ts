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

/** promtool with `args` in a temporary folder `write` fills first, and what it printed; the folder is removed after. */
async function promtoolIn(write: (dir: string) => string[]): Promise<{ ok: boolean; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-promtool-'));
  try {
    const { stdout, stderr } = await run(PROMTOOL, write(dir), { cwd: dir });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string };
    return { ok: false, output: failure.stdout + failure.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `promtool check config` of a prometheus.yml holding these scrape configs. promtool checks that the files a job
 * reads exist: each file under /etc/probekit/ (what the agent's pod mounts from Secrets) is made, empty, in a
 * folder of the test's, and the jobs name it there.
 */
export function promtoolCheck(scrapeConfigs: readonly unknown[]): Promise<{ ok: boolean; output: string }> {
  return promtoolIn((dir) => {
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
    return ['check', 'config', file];
  });
}

/**
 * Whether Go's text/template, as Prometheus runs it on an alert's annotations, prints each template as the text
 * beside it: one rule per pair (its annotation the template), one `promtool test rules` run expecting each rule's
 * annotation to be the text. Prometheus writes a template it cannot run as `<error expanding template ...>`, and a
 * template that runs an action prints something else: both fail.
 */
export function goTemplatesPrint(pairs: ReadonlyArray<{ readonly template: string; readonly text: string }>): Promise<{ ok: boolean; output: string }> {
  return promtoolIn((dir) => {
    // A leading character each: Prometheus leaves out an annotation that expands to nothing.
    const rules = pairs.map(({ template }, index) => ({ alert: `T${index}`, expr: 'vector(1)', annotations: { text: `>${template}` } }));
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: [{ name: 'templates', rules }] }, { lineWidth: 0 }));
    const checks = pairs.map(({ text }, index) => ({ alertname: `T${index}`, eval_time: '0m', exp_alerts: [{ exp_labels: {}, exp_annotations: { text: `>${text}` } }] }));
    writeFileSync(
      join(dir, 'tests.yaml'),
      stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests: [{ interval: '1m', input_series: [], alert_rule_test: checks }] }, { lineWidth: 0 }),
    );
    return ['test', 'rules', 'tests.yaml'];
  });
}
