/**
 * `pulumi up` loads stacks/ with Pulumi's nodejs language host, which compiles TypeScript with ts-node (its
 * own vendored 7.0.1 when the project has none) and type checks. The CLI cannot run here; this loads the
 * program the same way in a child process, with the example stack's configuration, under Pulumi's mocks.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const ROOT = join(__dirname, '..', '..');

it('loads and type-checks the program as the language host does, with Pulumi.dev.yaml', () => {
  const { config } = parseYaml(readFileSync(join(ROOT, 'Pulumi.dev.yaml'), 'utf8')) as { config: Record<string, Record<string, unknown>> };
  // The stack file leaves the password to `pulumi config set --secret`, and names a CA file of its deployer's machine.
  const { caFile: _caFile, ...searchEngine } = config['probekit:searchEngine']!;
  const stack = { ...config, 'probekit:searchEngine': { ...searchEngine, password: 'set-as-a-secret' } };

  const output = execFileSync(process.execPath, [join(ROOT, 'test', 'support', 'pulumi-language-host.js'), 'stacks', JSON.stringify(stack)], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { types } = JSON.parse(output) as { tsnode: string; types: string[] };
  const count = (type: string) => types.filter((registered) => registered === type).length;
  expect(count('probekit:stacks:Cluster')).toBe(2);
  expect(count('pulumi:providers:kubernetes')).toBe(2);
  expect(count('kubernetes:apps/v1:Deployment')).toBe(2);
  expect(count('kubernetes:helm.sh/v3:Release')).toBe(2);
  expect(count('pulumi-nodejs:dynamic/probekit:SearchEngineApiKey')).toBe(1);
}, 120_000);
