import * as pulumi from '@pulumi/pulumi';
import { parseStackConfig, readRawStackConfig, createsApiKey, type RawStackConfig } from '../../stacks/config';

const valid: RawStackConfig = {
  clusters: [{ name: 'eu-west', kubeconfig: '/home/ops/.kube/eu-west', context: 'admin@eu-west' }, { name: 'us-east' }],
  searchEngine: { url: 'https://127.0.0.1:9200', username: 'elastic', password: 'admin-password' },
  agent: { chart: 'agent', repository: 'https://charts.example.test', version: '1.2.3' },
};

function errorOf(raw: RawStackConfig): string {
  try {
    parseStackConfig(raw);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('stack configuration', () => {
  it('reads clusters, admin credentials and the agent chart', () => {
    const config = parseStackConfig(valid);
    expect(config.clusters.map((cluster) => cluster.name)).toEqual(['eu-west', 'us-east']);
    expect(config.clusters[0]).toEqual({ name: 'eu-west', kubeconfig: '/home/ops/.kube/eu-west', context: 'admin@eu-west' });
    expect(createsApiKey(config.searchEngine)).toBe(true);
    expect(config.agent).toEqual({ chart: 'agent', repository: 'https://charts.example.test', version: '1.2.3' });
  });

  it('takes a ready API token instead of admin credentials', () => {
    const config = parseStackConfig({ ...valid, searchEngine: { url: 'https://127.0.0.1:9200', apiToken: 'ZW5jb2RlZA==' } });
    expect(createsApiKey(config.searchEngine)).toBe(false);
  });

  it.each<[string, RawStackConfig, string]>([
    ['a cluster name that is not a DNS label', { ...valid, clusters: [{ name: 'ok' }, { name: 'Bad_Name' }] }, 'probekit:clusters[1].name: must be a DNS-1123 label'],
    ['a cluster without a name', { ...valid, clusters: [{ name: 'ok' }, { context: 'x' }] }, 'probekit:clusters[1].name: required'],
    ['two clusters with one name', { ...valid, clusters: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] }, 'probekit:clusters[2].name: repeats the name'],
    ['a misspelt cluster field', { ...valid, clusters: [{ name: 'a', kubeconfg: '/x' }] }, 'probekit:clusters[0].kubeconfg: unknown field'],
    ['no cluster', { ...valid, clusters: [] }, 'probekit:clusters: must list at least one cluster'],
    ['no clusters key', { ...valid, clusters: undefined }, 'probekit:clusters: required'],
    ['clusters as an object', { ...valid, clusters: { name: 'a' } }, 'probekit:clusters: must be a list of clusters'],
    ['admin credentials without a password', { ...valid, searchEngine: { url: 'https://127.0.0.1:9200', username: 'elastic' } }, 'probekit:searchEngine.password: required'],
    ['a search-engine URL that is not http(s)', { ...valid, searchEngine: { url: 'ftp://127.0.0.1', apiToken: 't' } }, 'probekit:searchEngine.url: must be an http or https URL'],
    ['a role that is no preset', { ...valid, searchEngine: { ...(valid.searchEngine as object), role: 'superuser' } }, 'probekit:searchEngine.role: must be one of all-access, read-only'],
    ['both forms mixed', { ...valid, searchEngine: { url: 'https://127.0.0.1:9200', apiToken: 't', password: 'p' } }, 'probekit:searchEngine.password: unknown field'],
    ['no searchEngine key', { ...valid, searchEngine: undefined }, 'probekit:searchEngine: required: either { url, username, password }'],
    ['an agent without a chart', { ...valid, agent: { version: '1' } }, 'probekit:agent.chart: required'],
    ['an agent repository that is not a URL', { ...valid, agent: { chart: 'agent', repository: 'charts' } }, 'probekit:agent.repository: must be an http or https URL'],
  ])('names the wrong key for %s', (_case, raw, start) => {
    const message = errorOf(raw);
    expect(message.startsWith(start)).toBe(true);
    expect(message).not.toContain('\n');
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
    pulumi.runtime.setAllConfig({
      'probekit:clusters': JSON.stringify(valid.clusters),
      'probekit:searchEngine': JSON.stringify(valid.searchEngine),
      'probekit:agent': JSON.stringify(valid.agent),
    }, ['probekit:searchEngine']);
    const raw = readRawStackConfig();
    expect(raw).toEqual({ clusters: valid.clusters, searchEngine: valid.searchEngine, agent: valid.agent });
    expect(parseStackConfig(raw).clusters).toHaveLength(2);
  });

  it('refuses a plain string without quoting it', () => {
    pulumi.runtime.setAllConfig({ 'probekit:searchEngine': 'hunter2-not-json' }, ['probekit:searchEngine']);
    expect(() => readRawStackConfig()).toThrow(/^probekit:searchEngine: must be structured configuration/);
    expect(() => readRawStackConfig()).not.toThrow(/hunter2/);
  });
});
