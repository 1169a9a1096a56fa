/**
 * Each package is used only through its entry points, at run time too: a deep import fails with Node's
 * ERR_PACKAGE_PATH_NOT_EXPORTED (the lint rules say the same at edit time). Checked in fresh node processes at the
 * repository's root, with and without the condition that resolves the packages to their sources.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const CONDITIONS = [
  ['built', []],
  ['source', FROM_SOURCE],
] as const;

/** What `require(specifier)` does in a fresh node process at the root: 'loaded', or the error's code. */
async function requireAtRoot(specifier: string, nodeArgs: readonly string[]): Promise<string> {
  const script = `try { require(${JSON.stringify(specifier)}); console.log('loaded'); } catch (error) { console.log(error.code); }`;
  const { stdout } = await run(process.execPath, [...nodeArgs, '-e', script], { cwd: ROOT });
  return stdout.trim();
}

describe.each(CONDITIONS)('resolved to the %s packages', (_, nodeArgs) => {
  it('the entry points load', async () => {
    await expect(requireAtRoot('@probekit/exporter', nodeArgs)).resolves.toBe('loaded');
    await expect(requireAtRoot('probekit', nodeArgs)).resolves.toBe('loaded');
    await expect(requireAtRoot('probekit/cli', nodeArgs)).resolves.toBe('loaded');
    await expect(requireAtRoot('@probekit/assistant', nodeArgs)).resolves.toBe('loaded');
  }, 60_000);

  it.each([
    '@probekit/exporter/lib/src/config/load',
    '@probekit/exporter/src/config/schema',
    '@probekit/exporter/dist/probekit-exporter.js',
    'probekit/lib/index.js',
    'probekit/src/model/spec',
    'probekit/lib/cli/command',
    '@probekit/assistant/lib/connection',
    '@probekit/assistant/src/skills',
  ])(
    'require(%s) fails: not exported',
    async (deep) => {
      await expect(requireAtRoot(deep, nodeArgs)).resolves.toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    },
    60_000,
  );
});
