/**
 * The Pulumi program (stacks/index.ts) with three clusters, run under Pulumi's mocks: the Pulumi CLI and a
 * Kubernetes API server cannot run here, so the tests assert on what the program registers with the engine —
 * every resource, its inputs, its provider and its parent — and compare the objects with what `cdk8s synth`
 * writes for the same spec.
 *
 * @ci-seconds 50
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { documentedExample, type SpecInput } from 'probekit';
import { clearStrings, isSecretValue, resolveOutputs, revealed, runProgram, type ProgramRun, type RegisteredResource } from './support/pulumi-mocks';

/** The program's folder, as Pulumi.yaml's `main` names it. */
const PROGRAM = join(__dirname, '..');
const ROOT = join(__dirname, '..', '..');
const ADMIN_PASSWORD = 'admin-pa55word-of-the-engine';
const CREATED_KEY = Buffer.from('key-id:created-api-key-secret').toString('base64');
const READY_TOKEN = Buffer.from('other-id:token-made-elsewhere').toString('base64');
const PROBE_TOKEN = 'probe-access-token-for-targets';
const KUBECONFIG_CONTENT = 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n';

const spec: SpecInput = {
  ...documentedExample,
  modules: {
    ...documentedExample.modules,
    with_token: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'PROBE_TOKEN' }, acceptLanguage: 'en-GB' },
  },
  jobs: [...documentedExample.jobs, { name: 'private-api', module: 'with_token', targets: ['https://api.internal.test/health'] }],
};
const overrides = { namespace: 'probes', replicas: 2, extraTargets: { 'blackbox-exporter': ['https://eu.internal.test/health'] } };

const config = (searchEngine: object, clusters: object[] = threeClusters, specInput: SpecInput = spec) => ({
  'probekit:spec': JSON.stringify(specInput),
  'probekit:clusters': JSON.stringify(clusters),
  'probekit:searchEngine': JSON.stringify(searchEngine),
  'probekit:agent': JSON.stringify({ helmChart: 'agent', repository: 'https://charts.example.test', version: '2.1.0', releaseName: 'agent', namespace: 'agents' }),
});
const threeClusters = [
  { name: 'alpha', kubeconfig: KUBECONFIG_CONTENT },
  { name: 'beta', kubeconfig: '/etc/probekit/beta.kubeconfig', context: 'beta-admin' },
  { name: 'gamma', overrides },
];
const adminCredentials = { url: 'https://127.0.0.1:9200', username: 'elastic', password: ADMIN_PASSWORD, role: 'all-access' };
const SECRET_KEYS = ['probekit:clusters', 'probekit:searchEngine'];

const mockedEngine = (args: { type: string; inputs: Record<string, unknown> }) => {
  if (args.type === 'pulumi-nodejs:dynamic/probekit:SearchEngineApiKey') return { encoded: CREATED_KEY };
  if (args.type === 'kubernetes:helm.sh/v3:Release') return { status: { status: 'deployed' } };
  return undefined;
};

type Exports = { clusters: unknown; searchEngineApiKeyId: unknown; centralRules: unknown; alertmanagerConfig: unknown };
let run: ProgramRun<Exports>;
beforeAll(async () => {
  process.env.PROBE_TOKEN = PROBE_TOKEN;
  run = await runProgram<Exports>(PROGRAM, config(adminCredentials), SECRET_KEYS, mockedEngine);
});
afterAll(() => delete process.env.PROBE_TOKEN);

const ofType = (resources: readonly RegisteredResource[], type: string) => resources.filter((resource) => resource.type === type);
const text = (resource: RegisteredResource) => JSON.stringify(revealed(resource.inputs));
const isKubernetes = (resource: RegisteredResource) => resource.type.startsWith('kubernetes:') || resource.type === 'pulumi:providers:kubernetes';

/** The resources of one cluster: its provider and everything that goes through it. */
function clusterResources(resources: readonly RegisteredResource[], cluster: string): { provider: RegisteredResource; children: RegisteredResource[] } {
  const provider = resources.find((resource) => resource.type === 'pulumi:providers:kubernetes' && resource.name === cluster)!;
  const reference = `${provider.urn}::${cluster}-id`;
  return { provider, children: resources.filter((resource) => resource.provider === reference) };
}

const kindOf = (resource: RegisteredResource) => resource.type.split(':').at(-1);

describe('three clusters', () => {
  it('registers one Kubernetes provider per cluster, with its kubeconfig as a secret and its context', () => {
    const providers = ofType(run.resources, 'pulumi:providers:kubernetes');
    expect(providers.map((provider) => provider.name).sort()).toEqual(['alpha', 'beta', 'gamma']);
    const byName = Object.fromEntries(providers.map((provider) => [provider.name, provider]));
    expect(isSecretValue(byName.alpha!.inputs.kubeconfig)).toBe(true);
    expect(revealed(byName.alpha!.inputs.kubeconfig)).toBe(KUBECONFIG_CONTENT);
    expect(isSecretValue(byName.beta!.inputs.kubeconfig)).toBe(true);
    expect(byName.beta!.inputs.context).toBe('beta-admin');
    expect(byName.gamma!.inputs.kubeconfig).toBeUndefined();
    for (const provider of providers) expect(provider.urn).toContain('::probekit:stacks:Cluster$pulumi:providers:kubernetes::');
  });

  it.each(['alpha', 'beta', 'gamma'])('deploys the full set on %s, every object through its own provider and under its component', (cluster) => {
    const { children } = clusterResources(run.resources, cluster);
    const kinds = children.map((resource) => `${kindOf(resource)}/${resource.name}`).sort();
    const namespace = cluster === 'gamma' ? 'probes' : 'monitoring';
    expect(kinds).toEqual(
      [
        `ConfigMap/${cluster}-${namespace}/blackbox-exporter-config`,
        `ConfigMap/${cluster}-${namespace}/probekit-endpoints-dashboard`,
        `Deployment/${cluster}-${namespace}/blackbox-exporter`,
        `Namespace/${cluster}-namespace`,
        // gamma runs several replicas, which brings a PodDisruptionBudget.
        ...(cluster === 'gamma' ? [`PodDisruptionBudget/${cluster}-${namespace}/blackbox-exporter`] : []),
        `Release/${cluster}-agent`,
        `Secret/${cluster}-search-engine`,
        `Secret/${cluster}-${namespace}/blackbox-exporter-headers`,
        `Service/${cluster}-${namespace}/blackbox-exporter`,
      ].sort(),
    );
    // Nothing of the cluster goes through the default provider or another cluster's.
    const ofCluster = run.resources.filter((resource) => resource.name.startsWith(`${cluster}-`) && resource.custom);
    expect(ofCluster).toHaveLength(children.length);
    for (const resource of children) expect(resource.urn).toMatch(/::probekit:stacks:Cluster\$/);
    expect(
      run.resources
        .filter((resource) => resource.type === 'probekit:stacks:Cluster')
        .map((resource) => resource.name)
        .sort(),
    ).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('puts the agent release on each cluster with the chart, version and the scrape jobs in its values', () => {
    for (const cluster of ['alpha', 'gamma']) {
      const release = ofType(clusterResources(run.resources, cluster).children, 'kubernetes:helm.sh/v3:Release')[0]!;
      expect(release.inputs).toMatchObject({
        name: 'agent',
        chart: 'agent',
        version: '2.1.0',
        namespace: 'agents',
        repositoryOpts: { repo: 'https://charts.example.test' },
        reuseValues: true,
      });
      const values = release.inputs.values as { agent: { extraScrapeConfigs: Array<Record<string, any>> } };
      const job = values.agent.extraScrapeConfigs.find((scrape) => scrape.job_name === 'blackbox-exporter')!;
      const address = cluster === 'gamma' ? 'blackbox-exporter.probes.svc:9115' : 'blackbox-exporter.monitoring.svc:9115';
      expect(job.relabel_configs.at(-1)).toEqual({ target_label: '__address__', replacement: address });
      expect(job.static_configs[0].targets).toEqual(
        cluster === 'gamma' ? ['https://example.com', 'https://prometheus.io', 'https://eu.internal.test/health'] : ['https://example.com', 'https://prometheus.io'],
      );
      // Each cluster is a location, named after it: every series its agent scrapes says where it was probed.
      expect(job.static_configs[0].labels).toMatchObject({ location: cluster });
    }
  });

  it("outputs the central rules, which count the three clusters' locations, and Alertmanager's file that inhibits their warnings", async () => {
    const outputs = (await resolveOutputs(run.exports)) as { centralRules: string; alertmanagerConfig: string };
    const rules = parseYaml(outputs.centralRules) as { groups: Array<{ name: string; rules: Array<{ alert: string; expr: string }> }> };
    const down = rules.groups.find((group) => group.name === 'probekit:blackbox-exporter')!.rules.find((rule) => rule.alert === 'EndpointDown')!;
    expect(down.expr).toContain('count by (job, instance, module) (probe_success{job="blackbox-exporter"} == 0) >= 2');
    expect(rules.groups.find((group) => group.name === 'probekit:locations')!.rules[0]!.expr).toContain('probe_success{location=~"alpha|beta|gamma"}');
    expect(parseYaml(outputs.alertmanagerConfig)).toMatchObject({ inhibit_rules: [{ target_matchers: ['alertname="EndpointDownFromLocation"'] }] });
  });

  it('applies the per-cluster overrides to that cluster only', () => {
    const replicas = (cluster: string) => {
      const deployment = ofType(clusterResources(run.resources, cluster).children, 'kubernetes:apps/v1:Deployment')[0]!;
      return (deployment.inputs.spec as { replicas: number }).replicas;
    };
    expect([replicas('alpha'), replicas('beta'), replicas('gamma')]).toEqual([1, 1, 2]);
  });

  it('creates one API key with the admin credentials, the password a secret input', () => {
    const keys = ofType(run.resources, 'pulumi-nodejs:dynamic/probekit:SearchEngineApiKey');
    expect(keys).toHaveLength(1);
    expect(keys[0]!.inputs).toMatchObject({ url: 'https://127.0.0.1:9200', username: 'elastic', name: 'probekit-test', role: 'all-access' });
    expect(isSecretValue(keys[0]!.inputs.password)).toBe(true);
  });

  it("stores the created key, as a secret, in each cluster's search-engine Secret", () => {
    const secrets = run.resources.filter((resource) => resource.type === 'kubernetes:core/v1:Secret' && resource.name.endsWith('-search-engine'));
    expect(secrets).toHaveLength(3);
    for (const secret of secrets) {
      expect(isSecretValue(secret.inputs.stringData)).toBe(true);
      expect(revealed(secret.inputs.stringData)).toEqual({ url: 'https://127.0.0.1:9200', 'api-token': CREATED_KEY });
      expect(clearStrings(secret.inputs)).not.toContain(CREATED_KEY);
    }
  });
});

describe('secrets end to end', () => {
  it('puts the admin password in no Kubernetes object, provider or Helm value', () => {
    const kubernetes = run.resources.filter(isKubernetes);
    expect(kubernetes.length).toBeGreaterThan(20);
    for (const resource of kubernetes) expect(text(resource)).not.toContain(ADMIN_PASSWORD);
  });

  it('puts the created key in the search-engine Secrets and nowhere else', () => {
    const holding = run.resources.filter((resource) => text(resource).includes(CREATED_KEY));
    expect(holding.map((resource) => resource.name).sort()).toEqual(['alpha-search-engine', 'beta-search-engine', 'gamma-search-engine']);
  });

  it("keeps the probe token of a secret header in the exporter's header Secret only, as a secret", () => {
    const holding = run.resources.filter((resource) => text(resource).includes(PROBE_TOKEN));
    expect(holding).toHaveLength(3);
    for (const resource of holding) {
      expect(resource.type).toBe('kubernetes:core/v1:Secret');
      expect(clearStrings(resource.inputs).join(' ')).not.toContain(PROBE_TOKEN);
    }
  });

  it('shows nothing secret in the stack outputs', async () => {
    const outputs = JSON.stringify(await resolveOutputs(run.exports));
    for (const secret of [ADMIN_PASSWORD, CREATED_KEY, PROBE_TOKEN, KUBECONFIG_CONTENT.trim()]) expect(outputs).not.toContain(secret);
    expect(JSON.parse(outputs)).toEqual({
      centralRules: expect.stringContaining('groups:'),
      alertmanagerConfig: expect.stringContaining('route:'),
      searchEngineApiKeyId: 'search-engine-api-key-id',
      clusters: Object.fromEntries(
        ['alpha', 'beta', 'gamma'].map((cluster) => [
          cluster,
          {
            namespace: cluster === 'gamma' ? 'probes' : 'monitoring',
            exporterAddress: `blackbox-exporter.${cluster === 'gamma' ? 'probes' : 'monitoring'}.svc:9115`,
            searchEngineSecret: 'search-engine',
            agentRelease: 'agent',
            agentStatus: 'deployed',
          },
        ]),
      ),
    });
  });
});

describe('parity with cdk8s synth', () => {
  /** Runs the cluster form's app (the command cdk8s.yaml's `app:` names) on a spec file, as `cdk8s synth` does. */
  function cdk8sSynth(specInput: SpecInput, env: Record<string, string>): { objects: Record<string, unknown>[]; values: unknown } {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-parity-'));
    try {
      writeFileSync(join(dir, 'spec.yaml'), JSON.stringify(specInput));
      const [command, ...args] = (parseYaml(readFileSync(join(ROOT, 'cdk8s.yaml'), 'utf8')) as { app: string }).app.split(' ');
      execFileSync(command!, args, {
        cwd: ROOT,
        env: { PATH: process.env.PATH, ...env, PROBEKIT_SPEC: join(dir, 'spec.yaml'), CDK8S_OUTDIR: join(dir, 'dist') },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const objects = parseAllDocuments(readFileSync(join(dir, 'dist', 'probekit.k8s.yaml'), 'utf8')).map((document) => document.toJS());
      return { objects, values: parseYaml(readFileSync(join(dir, 'dist', 'probekit.agent-values.yaml'), 'utf8')) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const gammaSpec: SpecInput = {
    ...spec,
    namespace: 'probes',
    exporter: { replicas: 2 },
    jobs: [{ ...spec.jobs[0]!, targets: [...(spec.jobs[0]!.targets ?? []), ...overrides.extraTargets['blackbox-exporter']] }, spec.jobs[1]!],
  };

  // The stack makes each cluster the location of its name, of the three.
  const located = (clusterSpec: SpecInput, location: string): SpecInput => ({ ...clusterSpec, location, locations: ['alpha', 'beta', 'gamma'] });

  it.each<[string, SpecInput]>([
    ['alpha', located(spec, 'alpha')],
    ['gamma', located(gammaSpec, 'gamma')],
  ])('applies on %s exactly the objects and agent values cdk8s synth writes for its spec', (cluster, clusterSpec) => {
    const synth = cdk8sSynth(clusterSpec, { PROBE_TOKEN });
    const { children } = clusterResources(run.resources, cluster);
    const applied = children.filter((resource) => resource.name.startsWith(`${cluster}-${clusterSpec.namespace ?? 'monitoring'}/`)).map((resource) => revealed(resource.inputs));
    const key = (object: any) => `${object.kind}/${object.metadata.name}`;
    expect(synth.objects.map(key).sort()).toEqual([
      'ConfigMap/blackbox-exporter-config',
      'ConfigMap/probekit-endpoints-dashboard',
      'Deployment/blackbox-exporter',
      // gamma runs several replicas, which brings a PodDisruptionBudget.
      ...(cluster === 'gamma' ? ['PodDisruptionBudget/blackbox-exporter'] : []),
      'Secret/blackbox-exporter-headers',
      'Service/blackbox-exporter',
    ]);
    expect([...applied].sort((a, b) => key(a).localeCompare(key(b)))).toEqual([...synth.objects].sort((a, b) => key(a).localeCompare(key(b))));

    const release = ofType(children, 'kubernetes:helm.sh/v3:Release')[0]!;
    expect(release.inputs.values).toEqual(synth.values);
  });

  it('writes the search-engine Secret the cluster form writes for the same URL and token', () => {
    const synth = cdk8sSynth({ ...spec, searchEngine: { url: 'https://127.0.0.1:9200', apiToken: { fromEnv: 'SEARCH_TOKEN' } } }, { PROBE_TOKEN, SEARCH_TOKEN: CREATED_KEY });
    const expected = synth.objects.find((object: any) => object.kind === 'Secret' && object.metadata.name === 'search-engine');
    const applied = clusterResources(run.resources, 'alpha').children.find((resource) => resource.name === 'alpha-search-engine')!;
    expect(revealed(applied.inputs)).toEqual(expected);
  });
});

describe('other configurations', () => {
  it('uses a ready API token as it is, creating no key', async () => {
    const tokenRun = await runProgram<Exports>(PROGRAM, config({ url: 'https://127.0.0.1:9200', apiToken: READY_TOKEN }, [{ name: 'solo' }]), SECRET_KEYS, mockedEngine);
    expect(ofType(tokenRun.resources, 'pulumi-nodejs:dynamic/probekit:SearchEngineApiKey')).toHaveLength(0);
    const holding = tokenRun.resources.filter((resource) => text(resource).includes(READY_TOKEN));
    expect(holding.map((resource) => resource.name)).toEqual(['solo-search-engine']);
    expect(isSecretValue(holding[0]!.inputs.stringData)).toBe(true);
    expect(JSON.stringify(await resolveOutputs(tokenRun.exports))).not.toContain(READY_TOKEN);
  });

  it("hands the CA file's text to the key resource, and names the key when the file cannot be read", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-ca-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), 'PEM TEXT OF THE CA');
      const withCa = await runProgram(PROGRAM, config({ ...adminCredentials, caFile: join(dir, 'ca.pem') }, [{ name: 'solo' }]), SECRET_KEYS, mockedEngine);
      expect(ofType(withCa.resources, 'pulumi-nodejs:dynamic/probekit:SearchEngineApiKey')[0]!.inputs.ca).toBe('PEM TEXT OF THE CA');
      await expect(runProgram(PROGRAM, config({ ...adminCredentials, caFile: join(dir, 'missing.pem') }, [{ name: 'solo' }]), SECRET_KEYS, mockedEngine)).rejects.toThrow(
        /^probekit:searchEngine\.caFile: cannot read .*missing\.pem \(ENOENT\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives the agent release values in the layout of the spec's agent.chart, and applies the Probe objects k8s-monitoring scrapes", async () => {
    const alloy = { chart: 'alloy' as const, remoteWrite: { url: 'https://mimir.example.com/api/v1/push' } };
    const alloyRun = await runProgram<Exports>(PROGRAM, config(adminCredentials, [{ name: 'solo' }], { ...spec, agent: alloy }), SECRET_KEYS, mockedEngine);
    const alloyRelease = ofType(alloyRun.resources, 'kubernetes:helm.sh/v3:Release')[0]!;
    const alloyValues = alloyRelease.inputs.values as { alloy: { configMap: { content: string } }; controller: { type: string } };
    expect(alloyValues.alloy.configMap.content).toMatch(/prometheus\.scrape "probekit_blackbox_exporter"[\s\S]*prometheus\.remote_write "probekit"/);
    expect(alloyValues.controller.type).toBe('deployment');

    const k8sRun = await runProgram<Exports>(PROGRAM, config(adminCredentials, [{ name: 'solo' }], { ...spec, agent: { chart: 'k8s-monitoring' } }), SECRET_KEYS, mockedEngine);
    expect(ofType(k8sRun.resources, 'kubernetes:helm.sh/v3:Release')[0]!.inputs.values).toEqual({
      prometheusOperatorObjects: { enabled: true, probes: { enabled: true }, serviceMonitors: { enabled: true } },
      'alloy-metrics': { enabled: true },
    });
    const probes = k8sRun.resources.filter((resource) => (revealed(resource.inputs) as { kind?: string }).kind === 'Probe');
    expect(probes.map((probe) => (revealed(probe.inputs) as { spec: { jobName: string } }).spec.jobName).sort()).toEqual(spec.jobs.map((job) => job.name).sort());
  });

  it("knows each Secret's name at preview, before the key exists", async () => {
    const preview = await runProgram(PROGRAM, config(adminCredentials, [{ name: 'solo' }]), SECRET_KEYS, () => undefined, true);
    const secret = preview.resources.find((resource) => resource.name === 'solo-search-engine')!;
    expect(secret.inputs.metadata).toEqual({ name: 'search-engine', namespace: 'monitoring', labels: expect.any(Object) });
    expect(revealed(secret.inputs.stringData)).not.toHaveProperty('api-token');
  });

  it('stops on a configuration error that names the wrong key', async () => {
    const bad = [{ name: 'alpha' }, { name: 'Beta Cluster' }];
    await expect(runProgram(PROGRAM, config(adminCredentials, bad), SECRET_KEYS, mockedEngine)).rejects.toThrow(/^probekit:clusters\[1\]\.name: must be a DNS-1123 label/);
  });
});
