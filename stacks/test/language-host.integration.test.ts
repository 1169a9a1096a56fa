/**
 * `pulumi up` loads stacks/ with Pulumi's nodejs language host, which compiles TypeScript with ts-node (its
 * own vendored 7.0.1 when the project has none) and type checks; the engine then runs the API key's CRUD
 * from the provider code the program serialized. The CLI cannot run here; this loads the program the same
 * way in a child process, with the example stack's configuration, under Pulumi's mocks, and runs the
 * serialized provider against the Elasticsearch contract server.
 *
 * @ci-seconds 35
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { apiKeyProvider } from '../api-key';
import { ContractElasticsearch } from '../../assistant/test/support/elasticsearch';
import { describeWithBinaries } from '../../test/support/integration';
import { makeTlsPem, OPENSSL } from '../../exporter/loopback/tls-fixtures';

// The dynamic-provider host (@pulumi/pulumi/cmd/dynamic-provider) loads providers with this module.
const requireFromString = require('require-from-string') as (code: string) => { handler(): typeof apiKeyProvider };

const ROOT = join(__dirname, '..', '..');

let loaded: { types: string[]; providers: string[] };
beforeAll(() => {
  const { config } = parseYaml(readFileSync(join(ROOT, 'Pulumi.dev.yaml'), 'utf8')) as { config: Record<string, Record<string, unknown>> };
  // The stack file leaves the password to `pulumi config set --secret`, and names a CA file of its deployer's machine.
  const { caFile: _caFile, ...searchEngine } = config['probekit:searchEngine']!;
  const stack = { ...config, 'probekit:searchEngine': { ...searchEngine, password: 'set-as-a-secret' } };
  // `probekit` resolves to its sources here, as everywhere in the tests (Pulumi itself loads the built lib/,
  // which npm ci builds), so the test never runs against a stale build.
  const output = execFileSync(process.execPath, ['--conditions=@probekit/source', join(__dirname, 'support', 'pulumi-language-host.js'), 'stacks', JSON.stringify(stack)], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  loaded = JSON.parse(output) as typeof loaded;
}, 120_000);

it('loads and type-checks the program as the language host does, with Pulumi.dev.yaml', () => {
  const count = (type: string) => loaded.types.filter((registered) => registered === type).length;
  expect(count('probekit:stacks:Cluster')).toBe(2);
  expect(count('pulumi:providers:kubernetes')).toBe(2);
  expect(count('kubernetes:apps/v1:Deployment')).toBe(2);
  expect(count('kubernetes:helm.sh/v3:Release')).toBe(2);
  expect(count('pulumi-nodejs:dynamic/probekit:SearchEngineApiKey')).toBe(1);
  expect(loaded.providers).toHaveLength(1);
});

// The contract server's TLS certificates are made with openssl.
describeWithBinaries([OPENSSL])('the API key provider as compiled and serialized there', () => {
  it('creates and invalidates a key on the contract server', async () => {
    const pki = makeTlsPem();
    const es = await ContractElasticsearch.start({ users: { elastic: { password: 'admin-password', roles: { superuser: { cluster: ['all'], index: [] } } } }, pki });
    try {
      const provider = requireFromString(loaded.providers[0]!).handler();
      const inputs = { url: es.url, username: 'elastic', password: 'admin-password', name: 'probekit-dev', role: 'read-only' as const, ca: pki.ca };
      const { id, outs } = await provider.create(inputs);
      expect(es.apiKeys.get(id)!.invalidated).toBe(false);
      expect(outs!.encoded).toBe(Buffer.from(`${id}:${es.apiKeys.get(id)!.apiKey}`).toString('base64'));
      await provider.delete!(id, outs!);
      expect(es.apiKeys.get(id)!.invalidated).toBe(true);
    } finally {
      await es.close();
    }
  });
});
