/**
 * `npx probekit ...` after `npm ci`, from the repository's root: the Pulumi program's workspace depends on the root
 * package (`probekit: file:..`), so npm links the root package into node_modules and its bin into
 * node_modules/.bin, where npx finds it without asking the registry. `--no` makes npx fail rather than download a
 * package of that name, so a missing link fails here instead of fetching someone else's `probekit`.
 *
 * @ci-seconds 20
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmEnv } from '../support/npm-cache';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

describe('npx probekit', () => {
  it('is linked to this repository by npm ci, through the workspace that depends on the root package', () => {
    const stacks = JSON.parse(readFileSync(join(ROOT, 'stacks', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(stacks.dependencies.probekit).toBe('file:..');
    const bin = join(ROOT, 'node_modules', '.bin', 'probekit');
    expect(existsSync(bin)).toBe(true);
    expect(realpathSync(bin)).toBe(realpathSync(join(ROOT, 'lib', 'cli', 'main.js')));
  });

  it('runs from the root, offline, and says its version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const { stdout } = await run('npx', ['--offline', '--no', '--', 'probekit', '--version'], { cwd: ROOT, env: npmEnv() });
    expect(stdout).toBe(`probekit ${version}\n`);
  }, 60_000);
});
