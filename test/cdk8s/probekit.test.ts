/**
 * The whole spec as constructs (Probekit, ProbekitChart, ProbekitApp, synthesize): every object of the
 * documented example and of a spec using every option, as snapshots, checked against the Kubernetes schemas,
 * and what holds only of the parts together. Each construct's own behaviour is tested in its own file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { ProbekitApp, ProbekitChart, synthesize } from '../../src/cdk8s';
import { documentedExample, parseSpec } from '../../src/model';
import { fullEnv, fullSpec, SECRET_VALUES } from '../fixtures/specs';
import { tempDirPerTest } from '../support/temp-dir';
import { find, redactSecrets, validateAgainstSchema } from '../support/manifests';

const example = synthesize(parseSpec(documentedExample));
const full = synthesize(parseSpec(fullSpec, { env: fullEnv }), fullEnv);

describe('synthesized objects', () => {
  it('the documented example: ConfigMap, Deployment and Service', () => {
    expect(example.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual(['ConfigMap/blackbox-exporter-config', 'Deployment/blackbox-exporter', 'Service/blackbox-exporter']);
    expect(example.manifests).toMatchSnapshot('manifests');
    expect(stringify(example.agentValues)).toMatchSnapshot('agent values');
  });

  it('a spec using every option', () => {
    expect(full.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'ConfigMap/probe-exporter-config',
      'Deployment/probe-exporter',
      'Service/probe-exporter',
      'Secret/probe-exporter-headers',
      'Secret/search-engine',
    ]);
    expect(redactSecrets(full.manifests)).toMatchSnapshot('manifests');
    expect(stringify(full.agentValues)).toMatchSnapshot('agent values');
  });

  it.each([
    ['documented example', example.manifests],
    ['every option', full.manifests],
  ])('every object of %s validates against the Kubernetes schemas', (_name, manifests) => {
    for (const manifest of manifests) expect(() => validateAgainstSchema(manifest)).not.toThrow();
  });

  it('the schema check would catch a bad object', () => {
    const broken = structuredClone(find(example.manifests, 'Service'));
    broken.spec.ports[0].port = 'ninety-one-fifteen';
    expect(() => validateAgainstSchema(broken)).toThrow(/port must be integer/);
  });
});

describe('the parts together', () => {
  it("the scrape jobs address the exporter's Service in the spec's namespace", () => {
    expect(full.agentValues['k8s-monitoring'].extraScrapeConfigs![0].relabel_configs[2].replacement).toBe('probe-exporter.observability.svc:9115');
  });

  it('the search-engine Secret is made from the spec, in its namespace', () => {
    expect(find(full.manifests, 'Secret', 'search-engine')).toMatchObject({
      type: 'Opaque',
      metadata: { namespace: 'observability' },
      stringData: { url: 'https://search.example.com:9200', 'api-token': SECRET_VALUES.SEARCH_TOKEN },
    });
  });

  it('no search-engine Secret is made when the spec references an existing one', () => {
    const spec = parseSpec({ ...documentedExample, searchEngine: { url: 'https://s.example.com', apiToken: { existingSecret: { name: 'es', key: 'token' } } } });
    expect(synthesize(spec).manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
  });
});

describe('secrets stay in Secrets', () => {
  it('no secret value in any ConfigMap, Deployment, Service or the agent values', () => {
    const outside = [...full.manifests.filter((m) => m.kind !== 'Secret'), full.agentValues].map((o) => JSON.stringify(o)).join('\n');
    for (const value of Object.values(SECRET_VALUES)) expect(outside).not.toContain(value);
  });

  it('no secret value in the snapshots', () => {
    const snapshot = JSON.stringify(redactSecrets(full.manifests));
    for (const value of Object.values(SECRET_VALUES)) expect(snapshot).not.toContain(value);
  });
});

describe('ProbekitApp', () => {
  const tempDir = tempDirPerTest('probekit-app-');

  it("writes each chart's agent values beside its manifests", () => {
    const app = new ProbekitApp({ outdir: tempDir() });
    new ProbekitChart(app, 'prod', { spec: parseSpec(documentedExample) });
    app.synth();
    expect(readdirSync(tempDir()).sort()).toEqual(['prod.agent-values.yaml', 'prod.k8s.yaml']);
    expect(parseYaml(readFileSync(join(tempDir(), 'prod.agent-values.yaml'), 'utf8'))).toEqual(example.agentValues);
  });
});
