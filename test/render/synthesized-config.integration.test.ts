/**
 * Every spec that synthesizes gives a config the exporter accepts: generated http modules (secret and plain
 * headers under every name, Authorization, Host, Content-Length and Connection among them, secret bearer
 * tokens, credentials and passwords) are validated as a spec; each one accepted is synthesized in the
 * cluster form (the ConfigMap of a cdk8s synth) and the host form (the config file of the host files), and
 * the exporter's own `--config.check` (the bundle, built from source) must accept both, with no secret
 * value in either.
 *
 * @ci-seconds 30
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Testing } from 'cdk8s';
import fc from 'fast-check';
import { ProbekitChart } from '../../src/cdk8s';
import { parseSpec, ProblemsError, type SpecModule } from '../../src/model';
import { renderHostFiles, hostPaths } from '../../src/render';

const SECRET = 'generated-secret-value';
const env = { TOKEN: SECRET };

const headerName = fc.constantFrom('Authorization', 'authorization', 'Host', 'Content-Length', 'Connection', 'X-Api-Key', 'Accept-Language');
const secretRef = fc.oneof(
  fc.record({ fromEnv: fc.constant('TOKEN'), prefix: fc.constantFrom(undefined, 'Bearer ', 'Basic ', 'Token ', 'key=') }, { requiredKeys: ['fromEnv'] }),
  fc.record({ existingSecret: fc.record({ name: fc.constantFrom('api-credentials', 'other'), key: fc.constantFrom('token', 'password') }) }),
);
const plainText = fc.stringMatching(/^[a-z0-9.-]{1,12}$/);
const value = fc.oneof(plainText, secretRef);

/** At most one way of authenticating, as a module has (several at once is refused, which tests nothing here). */
const authentication = fc.oneof(
  fc.constant({}),
  fc.record({ bearer_token: value }),
  fc.record({ authorization: fc.record({ type: fc.constantFrom('Bearer', 'Token'), credentials: value }, { requiredKeys: ['credentials'] }) }),
  fc.record({ basic_auth: fc.record({ username: fc.constant('probe'), password: value }) }),
);
const httpModule = fc
  .tuple(fc.record({ method: fc.constantFrom('GET', 'POST'), headers: fc.dictionary(headerName, value, { maxKeys: 3 }) }), authentication)
  .map(([base, auth]) => ({ ...base, ...auth }));

/** Allow-lists as a spec writes them, exporter-wide (camelCase) and in a module (the exporter's own form); some entries are not valid. */
const rarely = <T>(valid: fc.Arbitrary<T>, invalid: T): fc.Arbitrary<T> => fc.oneof({ arbitrary: valid, weight: 19 }, { arbitrary: fc.constant(invalid), weight: 1 });
const hostPattern = rarely(fc.constantFrom('api.example.com', '*.example.com', '192.0.2.1', '*'), 'bad*pattern');
const network = rarely(fc.constantFrom('10.0.0.0/8', '2001:db8::/32', '192.0.2.1', '::ffff:10.0.0.0/104'), '10.0.0.1/8');
const lists = { hosts: fc.array(hostPattern, { minLength: 1, maxLength: 3 }), networks: fc.array(network, { minLength: 1, maxLength: 3 }) };
const exporterAllowList = fc.option(fc.record({ ...lists, denySelfAndMetadata: fc.boolean() }, { requiredKeys: [] }), { nil: undefined });
const moduleAllowList = fc.option(fc.record({ ...lists, deny_self_and_metadata: fc.boolean() }, { requiredKeys: [] }), { nil: undefined });

const EXPORTER_BUILD = resolve(__dirname, '../../exporter/build.mjs');

let dir: string;
let bundle: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-synthesized-'));
  bundle = join(dir, 'probekit-exporter.js');
  execFileSync(process.execPath, [EXPORTER_BUILD, '--outfile', bundle], { cwd: resolve(__dirname, '../..'), stdio: 'pipe' });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `probekit-exporter --config.check` says of `configYaml`: exit status and stderr. */
function configCheck(configYaml: string, name: string): { status: number | null; stderr: string } {
  const file = join(dir, `${name}.yml`);
  writeFileSync(file, configYaml);
  const run = spawnSync(process.execPath, [bundle, '--config.check', `--config.file=${file}`], { encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stderr: run.stderr };
}

function clusterConfig(spec: ReturnType<typeof parseSpec>): string {
  const chart = new ProbekitChart(Testing.app(), 'probes', { spec, env });
  const configMap = Testing.synth(chart).find((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-config'));
  return configMap!.data['blackbox.yml'];
}

function hostConfig(spec: ReturnType<typeof parseSpec>): string | undefined {
  try {
    const files = renderHostFiles(spec, { env });
    return files.find((file) => file.path === hostPaths('probekit').exporterConfig)?.content;
  } catch (error) {
    // existingSecret has no meaning on a single machine: the host form refuses it, with its field.
    if (error instanceof ProblemsError) return undefined;
    throw error;
  }
}

it('every generated spec that validates synthesizes, in both forms, a config the exporter accepts', () => {
  let synthesized = 0;
  let hostForms = 0;
  fc.assert(
    fc.property(httpModule, exporterAllowList, moduleAllowList, (http, allowedTargets, moduleAllowed) => {
      let spec;
      try {
        const api = { prober: 'http', http, ...(moduleAllowed && { allowed_targets: moduleAllowed }) } as SpecModule;
        spec = parseSpec({ ...(allowedTargets && { exporter: { allowedTargets } }), modules: { api }, jobs: [{ module: 'api', targets: ['https://api.example.com/'] }] }, { env });
      } catch (error) {
        if (error instanceof ProblemsError) return;
        throw error;
      }
      synthesized += 1;
      const forms: Array<[string, string | undefined]> = [
        ['cluster', clusterConfig(spec)],
        ['host', hostConfig(spec)],
      ];
      for (const [form, config] of forms) {
        if (config === undefined) continue;
        if (form === 'host') hostForms += 1;
        expect(config).not.toContain(SECRET);
        if (allowedTargets) expect(config).toMatch(/^allowed_targets:/m);
        const check = configCheck(config, form);
        if (check.status !== 0) throw new Error(`the ${form} form of ${JSON.stringify(http)} is refused:\n${check.stderr}\n${config}`);
      }
    }),
    { numRuns: 60, seed: 20261123 },
  );
  // The property says something only if many generated specs did synthesize.
  expect(synthesized).toBeGreaterThan(10);
  expect(hostForms).toBeGreaterThan(3);
}, 240_000);
