import * as pulumi from '@pulumi/pulumi';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { documentedExample } from 'probekit';
import { parseStackConfig, readRawStackConfig, createsApiKey, type RawStackConfig } from '../config';

const valid: RawStackConfig = {
  spec: documentedExample,
  clusters: [{ name: 'eu-west', kubeconfig: '/home/ops/.kube/eu-west', context: 'admin@eu-west' }, { name: 'us-east' }],
  searchEngine: { url: 'https://127.0.0.1:9200', username: 'elastic', password: 'admin-password' },
  agent: { helmChart: 'agent', repository: 'https://charts.example.test', version: '1.2.3', releaseName: 'agent' },
};

const withCluster = (cluster: Record<string, unknown>): RawStackConfig => ({ ...valid, clusters: [{ name: 'a' }, cluster] });

function errorOf(raw: RawStackConfig, env: Record<string, string> = {}): string {
  try {
    parseStackConfig(raw, env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('stack configuration', () => {
  it('reads the spec, clusters, admin credentials and the agent chart', () => {
    const config = parseStackConfig(valid, {});
    expect(config.clusters.map((cluster) => cluster.name)).toEqual(['eu-west', 'us-east']);
    expect(config.clusters[0]).toMatchObject({ name: 'eu-west', kubeconfig: '/home/ops/.kube/eu-west', context: 'admin@eu-west' });
    expect(config.clusters[0]!.spec.namespace).toBe('monitoring');
    expect(config.clusters[0]!.spec.jobs[0]!.targets.map(({ target }) => target)).toEqual(['https://example.com', 'https://prometheus.io']);
    expect(createsApiKey(config.searchEngine)).toBe(true);
    expect(config.agent).toEqual(valid.agent);
  });

  it("makes each cluster the location of its name (or its override), of all the clusters; one cluster keeps the spec's location", () => {
    const config = parseStackConfig({ ...valid, clusters: [{ name: 'eu-west' }, { name: 'us-east', overrides: { location: 'us' } }, { name: 'ap-south' }] }, {});
    expect(config.clusters.map((cluster) => [cluster.spec.location, cluster.spec.locations])).toEqual([
      ['eu-west', ['eu-west', 'us', 'ap-south']],
      ['us', ['eu-west', 'us', 'ap-south']],
      ['ap-south', ['eu-west', 'us', 'ap-south']],
    ]);
    expect(config.clusters[1]!.spec.jobs[0]!.labels).toEqual({ location: 'us' });
    expect(config.clusters[0]!.spec.alerts.failingLocations).toBe(2);
    const single = parseStackConfig({ ...valid, spec: { ...documentedExample, location: 'home' }, clusters: [{ name: 'eu-west' }] }, {});
    expect(single.clusters[0]!.spec.locations).toEqual(['home']);
  });

  it('with a central cluster, only its Operator objects evaluate the rules and route the alerts; central is on one cluster at most', () => {
    const config = parseStackConfig({ ...valid, spec: { ...documentedExample, operator: {} }, clusters: [{ name: 'eu-west' }, { name: 'hub', central: true }] }, {});
    expect(config.clusters.map((cluster) => [cluster.spec.operator!.rules, cluster.spec.operator!.alertmanagerConfig, cluster.spec.operator!.probes])).toEqual([
      [false, false, true],
      [true, true, true],
    ]);
    expect(parseStackConfig({ ...valid, spec: { ...documentedExample, operator: {} } }, {}).clusters.map((cluster) => cluster.spec.operator!.rules)).toEqual([true, true]);
    expect(
      errorOf({
        ...valid,
        clusters: [
          { name: 'a', central: true },
          { name: 'b', central: true },
        ],
      }),
    ).toBe('probekit:clusters[1].central: is true for clusters[0] already; one cluster evaluates the rules, so keep central on one');
  });

  it("refuses the spec's one location for several clusters, and a cluster's location outside the spec's locations", () => {
    expect(errorOf({ ...valid, spec: { ...documentedExample, location: 'home' } })).toBe(
      'probekit:spec.location: is one location for all 2 clusters; leave it out (each cluster is the location of its name) or set clusters[i].overrides.location',
    );
    expect(errorOf({ ...valid, spec: { ...documentedExample, locations: ['eu-west', 'ap'] } })).toBe(
      'probekit:clusters[1].overrides.location: "us-east" is not one of locations (eu-west, ap); add it to locations, or name one of them',
    );
  });

  it('takes a ready API token instead of admin credentials', () => {
    const config = parseStackConfig({ ...valid, searchEngine: { url: 'https://127.0.0.1:9200', apiToken: 'ZW5jb2RlZA==' } }, {});
    expect(createsApiKey(config.searchEngine)).toBe(false);
  });

  it("applies each cluster's overrides to its own copy of the spec only", () => {
    const config = parseStackConfig(withCluster({ name: 'b', overrides: { namespace: 'probes', replicas: 3, extraTargets: { 'blackbox-exporter': ['https://internal.example.test/health'] } } }), {});
    const [plain, overridden] = config.clusters.map((cluster) => cluster.spec);
    expect(plain!.namespace).toBe('monitoring');
    expect(plain!.exporter.replicas).toBe(1);
    expect(plain!.jobs[0]!.targets).toHaveLength(2);
    expect(overridden!.namespace).toBe('probes');
    expect(overridden!.exporter.replicas).toBe(3);
    expect(overridden!.jobs[0]!.targets.map(({ target }) => target)).toEqual(['https://example.com', 'https://prometheus.io', 'https://internal.example.test/health']);
  });

  it.each<[string, RawStackConfig, string]>([
    ['a cluster name that is not a DNS label', withCluster({ name: 'Bad_Name' }), 'probekit:clusters[1].name: must be a DNS-1123 label'],
    ['a cluster without a name', withCluster({ context: 'x' }), 'probekit:clusters[1].name: required'],
    ['two clusters with one name', { ...valid, clusters: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] }, 'probekit:clusters[2].name: repeats the name'],
    ['a misspelt cluster field', withCluster({ name: 'b', kubeconfg: '/x' }), 'probekit:clusters[1].kubeconfg: unknown field; did you mean "kubeconfig"?'],
    ['no cluster', { ...valid, clusters: [] }, 'probekit:clusters: must list at least one cluster'],
    ['no clusters key', { ...valid, clusters: undefined }, 'probekit:clusters: required'],
    ['clusters as an object', { ...valid, clusters: { name: 'a' } }, 'probekit:clusters: must be a list, not a mapping'],
    ['an override namespace that is not a DNS label', withCluster({ name: 'b', overrides: { namespace: 'Probes!' } }), 'probekit:clusters[1].overrides.namespace: must be a DNS-1123 label'],
    ['zero replicas', withCluster({ name: 'b', overrides: { replicas: 0 } }), 'probekit:clusters[1].overrides.replicas: must be at least 1'],
    [
      'extra targets for a job that does not exist',
      withCluster({ name: 'b', overrides: { extraTargets: { nope: ['https://a.test'] } } }),
      'probekit:clusters[1].overrides.extraTargets.nope: probekit:spec has no job named so; its jobs are: blackbox-exporter',
    ],
    [
      'an extra target its prober cannot probe',
      withCluster({ name: 'b', overrides: { extraTargets: { 'blackbox-exporter': ['https://ok.test', 'ftp://x'] } } }),
      'probekit:clusters[1].overrides.extraTargets.blackbox-exporter[1]: "ftp://x" has scheme ftp',
    ],
    ['no spec', { ...valid, spec: undefined }, 'probekit:spec: required'],
    ['a spec job naming an unknown module', { ...valid, spec: { ...documentedExample, jobs: [{ module: 'nope', targets: ['https://a.test'] }] } }, 'probekit:spec.jobs[0].module:'],
    [
      'a spec with its own search engine',
      { ...valid, spec: { ...documentedExample, searchEngine: { url: 'https://127.0.0.1:9200', apiToken: { fromEnv: 'T' } } } },
      'probekit:spec.searchEngine: the stack takes the search engine from probekit:searchEngine',
    ],
    ['admin credentials without a password', { ...valid, searchEngine: { url: 'https://127.0.0.1:9200', username: 'elastic' } }, 'probekit:searchEngine.password: required'],
    ['a search-engine URL that is not http(s)', { ...valid, searchEngine: { url: 'ftp://127.0.0.1', apiToken: 't' } }, 'probekit:searchEngine.url: must be an http or https URL'],
    ['a role that is no preset', { ...valid, searchEngine: { ...(valid.searchEngine as object), role: 'superuser' } }, 'probekit:searchEngine.role: must be one of all-access, read-only'],
    ['both forms mixed', { ...valid, searchEngine: { url: 'https://127.0.0.1:9200', apiToken: 't', password: 'p' } }, 'probekit:searchEngine.password: unknown field'],
    ['no searchEngine key', { ...valid, searchEngine: undefined }, 'probekit:searchEngine: required: either { url, username, password }'],
    ['an agent without a Helm chart', { ...valid, agent: { releaseName: 'agent' } }, 'probekit:agent.helmChart: required'],
    ['an agent without a release name', { ...valid, agent: { helmChart: 'agent' } }, 'probekit:agent.releaseName: required'],
    ['an agent repository that is not a URL', { ...valid, agent: { helmChart: 'agent', releaseName: 'agent', repository: 'charts' } }, 'probekit:agent.repository: must be an http or https URL'],
  ])('names the wrong key for %s', (_case, raw, start) => {
    const message = errorOf(raw);
    expect(message.slice(0, start.length)).toBe(start);
    expect(message).not.toContain('\n');
  });

  it("checks the spec's environment references against the environment of pulumi up", () => {
    const spec = {
      ...documentedExample,
      modules: { with_token: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'PROBE_TOKEN' } } },
      jobs: [{ module: 'with_token', targets: ['https://a.test'] }],
    };
    expect(errorOf({ ...valid, spec })).toMatch(/^probekit:spec\.modules\.with_token\.http\.headers\.Authentication\.fromEnv: environment variable PROBE_TOKEN is not set/);
    expect(parseStackConfig({ ...valid, spec }, { PROBE_TOKEN: 'token' }).clusters).toHaveLength(2);
  });

  it("refuses what the cluster form cannot probe, naming the stack's key: a unix job", () => {
    const spec = { ...documentedExample, modules: { socket: { prober: 'unix' } }, jobs: [{ name: 'sockets', module: 'socket', targets: ['/run/app.sock'] }] };
    expect(errorOf({ ...valid, spec })).toMatch(/^probekit:spec\.jobs\[0\]\.module: "socket" probes a unix socket, which the exporter's pod does not have/);
  });

  it('reports every wrong key in one run', () => {
    const raw = { ...valid, clusters: [{ name: 'Bad_Name' }], searchEngine: { url: 'https://127.0.0.1:9200', username: 'elastic' }, agent: { releaseName: 'agent' } };
    expect(errorOf(raw).split('\n')).toEqual([
      'probekit:clusters[0].name: must be a DNS-1123 label: lower case letters, digits and -, at most 63',
      "probekit:searchEngine.password: required: that user's password (pulumi config set --secret --path 'probekit:searchEngine.password')",
      'probekit:agent.helmChart: required: the Helm chart to install: a name with repository, an oci:// reference or a local path',
    ]);
  });

  describe("the agent's Helm chart, once agent.chart, the name the spec's agent.chart (the values' layout) has", () => {
    const RENAMED =
      "probekit:agent.chart: is now helmChart: the Helm chart to install (a name with repository, an oci:// reference or a local path); rename the key. The layout of the chart's values is probekit:spec's agent.chart";

    it('refuses the old key in one line naming the new one, and nothing else when the rest is right', () => {
      expect(errorOf({ ...valid, agent: { chart: 'agent', repository: 'https://charts.example.test', releaseName: 'agent' } })).toBe(RENAMED);
    });

    it('checks the rest of the key as if renamed, in the same run', () => {
      expect(errorOf({ ...valid, agent: { chart: 'agent', repository: 'charts' } }).split('\n')).toEqual([
        RENAMED,
        'probekit:agent.repository: must be an http or https URL',
        "probekit:agent.releaseName: required: the agent's Helm release name",
      ]);
    });

    it('with both keys, the old one is refused all the same', () => {
      expect(errorOf({ ...valid, agent: { chart: 'alloy', helmChart: 'agent', releaseName: 'agent' } })).toBe(RENAMED);
    });

    it("leaves the spec's agent.chart as it is: the layout of the values the Helm chart gets", () => {
      const config = parseStackConfig(
        { ...valid, spec: { ...documentedExample, agent: { chart: 'victoria-metrics-agent' } }, agent: { helmChart: 'victoria-metrics-agent', releaseName: 'vmagent' } },
        {},
      );
      expect([config.clusters[0]!.spec.agent.chart, config.agent.helmChart]).toEqual(['victoria-metrics-agent', 'victoria-metrics-agent']);
    });
  });

  it('says a value of the wrong kind by its kind, never by the value', () => {
    const message = errorOf({
      ...valid,
      searchEngine: { url: 'https://127.0.0.1:9200', username: 'elastic', password: 81726354, role: 'root-9f8e7d' },
      clusters: [{ name: 'a', kubeconfig: ['kube-3c4d5e'] }],
    });
    expect(message.split('\n')).toEqual([
      'probekit:clusters[0].kubeconfig: must be text, not a list',
      'probekit:searchEngine.password: must be text, not a number',
      'probekit:searchEngine.role: must be one of all-access, read-only',
    ]);
    for (const value of ['81726354', 'root-9f8e7d', 'kube-3c4d5e']) expect(message).not.toContain(value);
  });

  it('an extra-targets entry with no target says to leave the job out', () => {
    expect(errorOf(withCluster({ name: 'b', overrides: { extraTargets: { 'blackbox-exporter': [] } } }))).toBe(
      'probekit:clusters[1].overrides.extraTargets.blackbox-exporter: must list at least one target; leave the job out instead',
    );
  });

  it('never repeats a password in an error', () => {
    const message = errorOf({ ...valid, searchEngine: { url: 'not a url', username: 'elastic', password: 'admin-password' } });
    expect(message).toMatch(/^probekit:searchEngine\.url: /);
    expect(message).not.toContain('admin-password');
  });
});

describe('reading the running stack', () => {
  afterEach(() => pulumi.runtime.setAllConfig({}));

  it('parses the structured keys Pulumi hands over as JSON', () => {
    pulumi.runtime.setAllConfig(Object.fromEntries(Object.entries(valid).map(([key, value]) => [`probekit:${key}`, JSON.stringify(value)])), ['probekit:searchEngine']);
    const raw = readRawStackConfig();
    expect(raw).toEqual(valid);
    expect(parseStackConfig(raw, {}).clusters).toHaveLength(2);
  });

  it('refuses a plain string without quoting it', () => {
    pulumi.runtime.setAllConfig({ 'probekit:searchEngine': 'hunter2-not-json' }, ['probekit:searchEngine']);
    expect(() => readRawStackConfig()).toThrow(/^probekit:searchEngine: must be structured configuration/);
    expect(() => readRawStackConfig()).not.toThrow(/hunter2/);
  });
});

describe('the example stack file', () => {
  it('Pulumi.dev.yaml configures two clusters and is valid once the password is set', () => {
    const stack = parseYaml(readFileSync(join(__dirname, '..', '..', 'Pulumi.dev.yaml'), 'utf8')) as { config: Record<string, unknown> };
    const raw = Object.fromEntries(Object.entries(stack.config).map(([key, value]) => [key.replace(/^probekit:/, ''), value])) as RawStackConfig;
    expect(errorOf(raw)).toBe("probekit:searchEngine.password: required: that user's password (pulumi config set --secret --path 'probekit:searchEngine.password')");
    const config = parseStackConfig({ ...raw, searchEngine: { ...(raw.searchEngine as object), password: 'set-as-a-secret' } }, {});
    expect(config.clusters.map((cluster) => cluster.name)).toEqual(['eu-west', 'us-east']);
    expect(config.clusters[1]!.spec.exporter.replicas).toBe(2);
  });
});
