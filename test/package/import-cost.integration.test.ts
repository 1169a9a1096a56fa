/**
 * `import 'probekit'` stays light: the constructs and the model load without the assistant's dependencies (the
 * Elasticsearch client, the MCP SDK: `@probekit/assistant` loads those), the exporter's runtime, or Pulumi; and
 * `probekit/cli`, the command-line framework the assistant's commands are written in, loads not even cdk8s. Checked
 * in a fresh node process on the sources; the consumer test checks the same of the installed package.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const HEAVY = ['@elastic/elasticsearch', '@modelcontextprotocol/sdk', '@grpc/grpc-js', 'prom-client'];

/** The packages whose files `require(specifier)` loads in a fresh node process at the root. */
async function packagesLoadedBy(specifier: string): Promise<string[]> {
  const script = `require(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(require.cache)));`;
  const { stdout } = await run(process.execPath, [...FROM_SOURCE, '-e', script], { cwd: ROOT });
  const files = JSON.parse(stdout) as string[];
  return [...new Set(files.map((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]).filter((name) => name !== undefined))].sort();
}

it("require('probekit') loads cdk8s, the model's packages and nothing heavy", async () => {
  const loaded = await packagesLoadedBy('probekit');
  expect(loaded).toEqual(expect.arrayContaining(['cdk8s', 'cdk8s-plus-28', 'constructs', 'yaml', 'zod']));
  expect(loaded.filter((name) => HEAVY.includes(name) || name.startsWith('@pulumi/'))).toEqual([]);
}, 60_000);

it("require('probekit/cli') loads neither cdk8s nor anything heavy", async () => {
  const loaded = await packagesLoadedBy('probekit/cli');
  expect(loaded.filter((name) => ['cdk8s', 'cdk8s-plus-28', 'constructs', ...HEAVY].includes(name) || name.startsWith('@pulumi/'))).toEqual([]);
}, 60_000);

it('the probekit command loads no cdk8s before synth runs: the skills server image installs probekit without its peers', async () => {
  const loaded = await packagesLoadedBy('./src/cli/main.ts');
  expect(loaded.filter((name) => ['cdk8s', 'cdk8s-plus-28', 'constructs', ...HEAVY].includes(name))).toEqual([]);
}, 60_000);

it("require('@probekit/assistant') loads the assistant's packages: the checks above see them where they load", async () => {
  await expect(packagesLoadedBy('@probekit/assistant')).resolves.toEqual(expect.arrayContaining(['@elastic/elasticsearch', '@modelcontextprotocol/sdk']));
}, 60_000);
