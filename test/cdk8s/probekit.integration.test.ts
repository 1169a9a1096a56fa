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
import { operatorSchemaProblems } from '../support/operator-schema';

const example = synthesize(parseSpec(documentedExample));
const full = synthesize(parseSpec(fullSpec, { env: fullEnv }), fullEnv);

/**
 * The manifests as snapshots hold them: Secret values redacted, and the dashboard's JSON left to its own test
 * (test/render/dashboard.integration.test.ts), standing here only as its uid.
 */
function forSnapshot(manifests: ReadonlyArray<Record<string, any>>): Array<Record<string, any>> {
  return redactSecrets(manifests).map((manifest) => {
    if (manifest.metadata.labels?.['app.kubernetes.io/component'] !== 'dashboard') return manifest;
    const data = Object.fromEntries(Object.entries(manifest.data as Record<string, string>).map(([key, json]) => [key, `<dashboard ${JSON.parse(json).uid}>`]));
    return { ...manifest, data };
  });
}

describe('synthesized objects', () => {
  it('the documented example: the exporter, the dashboard, the agent values and the rules', () => {
    expect(example.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'ConfigMap/blackbox-exporter-config',
      'Deployment/blackbox-exporter',
      'Service/blackbox-exporter',
      'ConfigMap/probekit-endpoints-dashboard',
    ]);
    expect(forSnapshot(example.manifests)).toMatchSnapshot('manifests');
    expect(stringify(example.agentValues)).toMatchSnapshot('agent values');
    expect(example.alertRules!.groups.map((group) => group.name)).toEqual(['probekit:blackbox-exporter', 'probekit:exporter']);
  });

  it('a spec using every option', () => {
    expect(full.manifests.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([
      'ConfigMap/probe-exporter-config',
      'Deployment/probe-exporter',
      'Service/probe-exporter',
      'NetworkPolicy/probe-exporter',
      'PodDisruptionBudget/probe-exporter',
      'Secret/probe-exporter-headers',
      'ConfigMap/synthetic-checks-dashboard',
      'PrometheusRule/probe-exporter-alerts',
      'ServiceMonitor/probe-exporter',
      'Probe/websites',
      'Probe/api-with-token',
      'Probe/api-post',
      'Probe/partner',
      'Probe/databases',
      'Probe/hosts',
      'Probe/dns',
      'Probe/grpc',
      'Secret/search-engine',
    ]);
    expect(forSnapshot(full.manifests)).toMatchSnapshot('manifests');
    expect(stringify(full.agentValues)).toMatchSnapshot('agent values');
  });

  it.each([
    ['documented example', example.manifests],
    ['every option', full.manifests],
  ])("every object of %s validates against the Kubernetes schemas, the Operator objects against the Operator's", async (_name, manifests) => {
    const operatorObjects = manifests.filter((manifest) => manifest.apiVersion === 'monitoring.coreos.com/v1');
    for (const manifest of manifests.filter((m) => !operatorObjects.includes(m))) expect(() => validateAgainstSchema(manifest)).not.toThrow();
    expect(await operatorSchemaProblems(operatorObjects)).toEqual(operatorObjects.map(() => undefined));
  });

  it("the dashboard's ConfigMap carries the sidecar's label and the dashboard the spec describes", () => {
    const configMap = find(full.manifests, 'ConfigMap', 'synthetic-checks-dashboard');
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1', team: 'platform' });
    expect(JSON.parse(configMap.data['synthetic-checks.json'])).toEqual(full.dashboard);
    expect(full.dashboard).toMatchObject({ uid: 'synthetic-checks', title: 'Synthetic checks' });
  });

  it("the PrometheusRule holds the rule file's groups, labelled for the Operator's ruleSelector", () => {
    const rule = find(full.manifests, 'PrometheusRule');
    expect(rule.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
    expect(rule.spec).toEqual(full.alertRules);
  });

  it('the schema check would catch a bad object', () => {
    const broken = structuredClone(find(example.manifests, 'Service'));
    broken.spec.ports[0].port = 'ninety-one-fifteen';
    expect(() => validateAgainstSchema(broken)).toThrow(/port must be integer/);
  });
});

describe('the parts together', () => {
  it("the scrape jobs address the exporter's Service in the spec's namespace", () => {
    expect(full.agentValues['k8s-monitoring'].extraScrapeConfigs![0].relabel_configs![2].replacement).toBe('probe-exporter.observability.svc:9115');
  });

  it('with agent.scrapeJobs false the values carry no job, and Probe objects probe the targets', () => {
    const { agentValues, manifests } = synthesize(parseSpec({ ...fullSpec, agent: { ...fullSpec.agent, scrapeJobs: false }, operator: {} }, { env: fullEnv }), fullEnv);
    expect(agentValues['k8s-monitoring'].extraScrapeConfigs).toEqual([]);
    expect(manifests.filter((m) => m.kind === 'Probe')).toHaveLength(fullSpec.jobs.length);
  });

  it("with agent.chart k8s-monitoring: a Probe per job and the exporter's ServiceMonitor, which the Operator's schema takes, and the values that make its Alloy scrape them", async () => {
    const tls = { secretName: 'probe-exporter-tls', agentSecretName: 'agent-tls' };
    const { agentValues, manifests } = synthesize(
      parseSpec({ ...fullSpec, exporter: { ...fullSpec.exporter, tls }, agent: { chart: 'k8s-monitoring' }, operator: undefined }, { env: fullEnv }),
      fullEnv,
    );
    const objects = manifests.filter((m) => m.apiVersion === 'monitoring.coreos.com/v1');
    expect(objects.map((m) => m.kind).sort()).toEqual([...fullSpec.jobs.map(() => 'Probe'), 'ServiceMonitor']);
    expect(await operatorSchemaProblems(objects)).toEqual(objects.map(() => undefined));
    expect(find(manifests, 'Probe', 'websites').spec).toMatchObject({ jobName: 'websites', prober: { scheme: 'https' }, tlsConfig: { ca: { secret: { name: 'probe-exporter-tls', key: 'ca.crt' } } } });
    expect(agentValues).toEqual({ prometheusOperatorObjects: { enabled: true, probes: { enabled: true }, serviceMonitors: { enabled: true } }, 'alloy-metrics': { enabled: true } });
  });

  it("with agent.chart alloy and an exporter behind TLS: the scrapes use https and Alloy's pod mounts the CA of the exporter's Secret", () => {
    const tls = { secretName: 'probe-exporter-tls' };
    const agent = { chart: 'alloy' as const, remoteWrite: { url: 'https://mimir.example.com/api/v1/push' } };
    const { agentValues } = synthesize(parseSpec({ ...fullSpec, exporter: { ...fullSpec.exporter, tls }, agent }, { env: fullEnv }), fullEnv);
    expect(agentValues.alloy.configMap.content).toContain('server_name = "probe-exporter.observability.svc"');
    expect(agentValues.controller.volumes.extra).toEqual([{ name: 'probekit-exporter-ca', secret: { secretName: 'probe-exporter-tls', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }]);
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

describe('a unix socket in a cluster', () => {
  it("is refused at synth, naming the job: the exporter's pod has no other workload's socket", () => {
    const spec = parseSpec({
      modules: { socket: { prober: 'unix' }, web: { preset: 'http_2xx' } },
      jobs: [
        { name: 'web', module: 'web', targets: ['https://example.com'] },
        { name: 'sockets', module: 'socket', targets: ['/run/app.sock'] },
      ],
    });
    expect(() => synthesize(spec)).toThrow(
      `jobs[1].module: "socket" probes a unix socket, which the exporter's pod does not have (it would look in its own container); probe the workload's port with a tcp or http module, or install the host form on the machine that has the socket`,
    );
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

  it("writes each chart's agent values, dashboard and rule file beside its manifests", () => {
    const app = new ProbekitApp({ outdir: tempDir() });
    new ProbekitChart(app, 'prod', { spec: parseSpec(documentedExample) });
    app.synth();
    expect(readdirSync(tempDir()).sort()).toEqual(['prod.agent-values.yaml', 'prod.dashboard.json', 'prod.k8s.yaml', 'prod.rules.yaml']);
    expect(parseYaml(readFileSync(join(tempDir(), 'prod.agent-values.yaml'), 'utf8'))).toEqual(example.agentValues);
    expect(JSON.parse(readFileSync(join(tempDir(), 'prod.dashboard.json'), 'utf8'))).toEqual(example.dashboard);
    expect(parseYaml(readFileSync(join(tempDir(), 'prod.rules.yaml'), 'utf8'))).toEqual(example.alertRules);
  });

  it('writes neither the dashboard nor the rules when the spec turns them off', () => {
    const app = new ProbekitApp({ outdir: tempDir() });
    new ProbekitChart(app, 'prod', { spec: parseSpec({ ...documentedExample, dashboard: { enabled: false }, alerts: { enabled: false } }) });
    app.synth();
    expect(readdirSync(tempDir()).sort()).toEqual(['prod.agent-values.yaml', 'prod.k8s.yaml']);
  });
});
