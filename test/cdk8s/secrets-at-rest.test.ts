/**
 * Secrets at rest: a synthesized manifest that holds Secret values is written 0600 (the others 0644), and the
 * ExternalSecret form synthesizes no value at all, for header values and for the search-engine token.
 * No External Secrets Operator runs here: the ExternalSecret is checked against the operator's documented
 * external-secrets.io/v1 fields.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Testing } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { ProbekitApp, ProbekitChart } from '../../src/cdk8s';
import { parseSpec, type SpecInput } from '../../src/model';
import { renderHostFiles } from '../../src/render';
import { fullEnv, fullSpec, SECRET_VALUES } from '../fixtures/specs';
import { problemsOf } from '../support/problems';
import { tempDirPerTest } from '../support/temp-dir';

const tempDir = tempDirPerTest('probekit-at-rest-');

function synthTo(specInput: SpecInput, env: Record<string, string>): string {
  const app = new ProbekitApp({ outdir: tempDir() });
  new ProbekitChart(app, 'probekit', { spec: parseSpec(specInput, { env }), env });
  app.synth();
  return tempDir();
}

const mode = (file: string): number => statSync(file).mode & 0o777;

describe('file modes of the synthesized files', () => {
  it('writes the manifests 0600 when they hold Secret values, and the rest 0644', () => {
    const dir = synthTo(fullSpec, fullEnv);
    expect(readFileSync(join(dir, 'probekit.k8s.yaml'), 'utf8')).toContain(SECRET_VALUES.ACCESS_TOKEN);
    expect(mode(join(dir, 'probekit.k8s.yaml'))).toBe(0o600);
    for (const file of ['probekit.agent-values.yaml', 'probekit.dashboard.json', 'probekit.rules.yaml']) expect([file, mode(join(dir, file))]).toEqual([file, 0o644]);
  });

  it('writes them 0644 when every secret is a reference', () => {
    const dir = synthTo(
      { modules: { api: { prober: 'http', http: { headers: { 'X-Api-Key': { existingSecret: { name: 'api', key: 'key' } } } } } }, jobs: [{ module: 'api', targets: ['https://api.example.com/'] }] },
      {},
    );
    expect(mode(join(dir, 'probekit.k8s.yaml'))).toBe(0o644);
  });
});

describe('the ExternalSecret form', () => {
  const spec: SpecInput = {
    modules: {
      api: {
        prober: 'http',
        http: {
          headers: { 'X-Api-Key': { externalSecret: { name: 'api-key', store: 'vault', storeKind: 'ClusterSecretStore', key: 'probes/api', property: 'key' } } },
          bearer_token: { externalSecret: { name: 'api-token', store: 'vault', key: 'probes/token' } },
        },
      },
    },
    jobs: [{ module: 'api', targets: ['https://api.example.com/'] }],
    searchEngine: { url: 'https://search.example.com:9200', apiToken: { externalSecret: { name: 'search-token', store: 'vault', key: 'search/token' } } },
  };
  const dir = (): string => synthTo(spec, {});
  const objects = (): Array<Record<string, any>> => parseAllDocuments(readFileSync(join(dir(), 'probekit.k8s.yaml'), 'utf8')).map((document) => document.toJS());

  it('synthesizes ExternalSecrets and no Secret value; the exporter reads the Secrets they make', () => {
    const all = objects();
    expect(all.filter((object) => object.kind === 'Secret')).toEqual([]);
    const externals = all.filter((object) => object.kind === 'ExternalSecret');
    expect(externals.map((object) => object.metadata.name).sort()).toEqual(['api-key', 'api-token', 'search-token']);
    expect(externals.find((object) => object.metadata.name === 'api-key')).toMatchObject({
      apiVersion: 'external-secrets.io/v1',
      spec: {
        refreshInterval: '1h',
        secretStoreRef: { name: 'vault', kind: 'ClusterSecretStore' },
        target: { name: 'api-key', creationPolicy: 'Owner' },
        data: [{ secretKey: 'value', remoteRef: { key: 'probes/api', property: 'key' } }],
      },
    });
    const config = all.find((object) => object.kind === 'ConfigMap' && object.data?.['blackbox.yml'])!.data['blackbox.yml'];
    expect(config).toContain('/etc/probekit/existing-secrets/api-key/value');
    expect(config).toContain('bearer_token_file: /etc/probekit/existing-secrets/api-token/value');
    const pod = all.find((object) => object.kind === 'Deployment')!.spec.template.spec;
    expect(
      pod.volumes
        .map((volume: any) => volume.secret?.secretName)
        .filter(Boolean)
        .sort(),
    ).toEqual(['api-key', 'api-token']);
  });

  it('is refused by the host form, which has no Secrets', () => {
    expect(problemsOf(() => renderHostFiles(parseSpec(spec, {})))).toEqual([
      expect.stringContaining('modules.api.http.headers.X-Api-Key: externalSecret names a Kubernetes Secret'),
      expect.stringContaining('modules.api.http.bearer_token: externalSecret names a Kubernetes Secret'),
    ]);
  });

  it('takes exactly one form', () => {
    const both = { fromEnv: 'TOKEN', externalSecret: { name: 'a', store: 'b', key: 'c' } };
    expect(problemsOf(() => parseSpec({ ...spec, modules: { api: { prober: 'http', http: { bearer_token: both } } } } as SpecInput, {}))).toEqual([
      expect.stringContaining('give one of fromEnv: VAR'),
    ]);
  });

  it('keeps the synthesized objects free of any value', () => {
    const chart = new ProbekitChart(Testing.app(), 'probekit', { spec: parseSpec(spec, {}), env: {} });
    expect(JSON.stringify(Testing.synth(chart))).not.toMatch(/stringData/);
  });
});
