import { parseSpec, type JobInput } from '../../src/model';
import { labelSelectorText, probeIngressTargets, renderDiscoveryRbac, renderScrapeJobs } from '../../src/render';
import { problemsOf } from '../support/problems';

const specWith = (...jobs: JobInput[]) => parseSpec({ modules: { http_2xx: { preset: 'http_2xx' }, tcp: { prober: 'tcp' } }, jobs });

describe('targets found in the cluster, for agents', () => {
  const spec = specWith({
    name: 'shop',
    module: 'http_2xx',
    labels: { team: 'shop' },
    discover: { ingresses: { selector: { matchLabels: { app: 'shop' } }, namespaces: ['shop'] }, services: { selector: { matchLabels: { app: 'api' } }, port: 'http' } },
  });
  const [ingresses, services] = renderScrapeJobs(spec);

  it('lists the objects with kubernetes_sd, by selector and namespaces, under a job of their own that keeps the job label', () => {
    expect(ingresses).toMatchObject({
      job_name: 'shop@ingresses',
      metrics_path: '/probe',
      params: { module: ['http_2xx'] },
      kubernetes_sd_configs: [{ role: 'ingress', namespaces: { names: ['shop'] }, selectors: [{ role: 'ingress', label: 'app=shop' }] }],
    });
    expect(services.kubernetes_sd_configs).toEqual([{ role: 'service', selectors: [{ role: 'service', label: 'app=api' }] }]);
    expect(ingresses.static_configs).toBeUndefined();
  });

  it('makes each Ingress a URL from its scheme, host and path, each overridable by annotation, and opts out by annotation', () => {
    expect(ingresses.relabel_configs).toEqual([
      { source_labels: ['__meta_kubernetes_ingress_annotation_probekit_io_probe'], regex: 'false', action: 'drop' },
      { source_labels: ['__meta_kubernetes_ingress_scheme'], target_label: '__tmp_probekit_scheme' },
      { source_labels: ['__meta_kubernetes_ingress_annotation_probekit_io_scheme'], regex: '(.+)', target_label: '__tmp_probekit_scheme' },
      { source_labels: ['__meta_kubernetes_ingress_path'], target_label: '__tmp_probekit_path' },
      { source_labels: ['__meta_kubernetes_ingress_annotation_probekit_io_path'], regex: '(.+)', target_label: '__tmp_probekit_path' },
      { source_labels: ['__tmp_probekit_scheme', '__address__', '__tmp_probekit_path'], regex: '(.+);(.+);(.+)', target_label: '__param_target', replacement: '${1}://${2}${3}' },
      { source_labels: ['__meta_kubernetes_ingress_annotation_probekit_io_module'], regex: '(.+)', target_label: '__param_module' },
      { source_labels: ['__param_module'], target_label: 'module' },
      { target_label: 'team', replacement: 'shop' },
      { target_label: 'job', replacement: 'shop' },
      { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
      { source_labels: ['__meta_kubernetes_ingress_name'], target_label: 'ingress' },
      { source_labels: ['__param_target'], target_label: 'instance' },
      { target_label: '__address__', replacement: 'blackbox-exporter.monitoring.svc:9115' },
    ]);
  });

  it('keeps the named port of a Service, probed over http at / unless annotated; a tcp job probes the address itself', () => {
    expect(services.relabel_configs.slice(0, 6)).toEqual([
      { source_labels: ['__meta_kubernetes_service_port_name'], regex: 'http', action: 'keep' },
      { source_labels: ['__meta_kubernetes_service_annotation_probekit_io_probe'], regex: 'false', action: 'drop' },
      { target_label: '__tmp_probekit_scheme', replacement: 'http' },
      { source_labels: ['__meta_kubernetes_service_annotation_probekit_io_scheme'], regex: '(.+)', target_label: '__tmp_probekit_scheme' },
      { target_label: '__tmp_probekit_path', replacement: '/' },
      { source_labels: ['__meta_kubernetes_service_annotation_probekit_io_path'], regex: '(.+)', target_label: '__tmp_probekit_path' },
    ]);
    const [tcp] = renderScrapeJobs(specWith({ name: 'db', module: 'tcp', discover: { services: { selector: { matchLabels: { app: 'pg' } }, port: 5432 } } }));
    expect(tcp.relabel_configs.slice(0, 3)).toEqual([
      { source_labels: ['__meta_kubernetes_service_port_number'], regex: '5432', action: 'keep' },
      { source_labels: ['__meta_kubernetes_service_annotation_probekit_io_probe'], regex: 'false', action: 'drop' },
      { source_labels: ['__address__'], target_label: '__param_target' },
    ]);
  });

  it('writes a label selector as kubernetes_sd reads it', () => {
    expect(
      labelSelectorText({
        matchLabels: { app: 'web', 'probekit.io/probe': 'true' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'owner', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('app=web,probekit.io/probe=true,tier in (a,b),env notin (dev),owner,!legacy');
  });
});

describe('targets found in the cluster, for the Operator and the RBAC', () => {
  it("gives a Probe the Ingresses by selector, any namespace unless named, and the same overrides in the Operator's form", () => {
    const [job] = specWith({ name: 'shop', module: 'http_2xx', discover: { ingresses: { selector: { matchLabels: { app: 'shop' } } } } }).jobs;
    const { ingress } = probeIngressTargets(job, { prober: 'http' })!;
    expect(ingress.selector).toEqual({ matchLabels: { app: 'shop' } });
    expect(ingress.namespaceSelector).toEqual({ any: true });
    expect(ingress.relabelingConfigs[0]).toEqual({ sourceLabels: ['__meta_kubernetes_ingress_annotation_probekit_io_probe'], regex: 'false', action: 'drop' });
    expect(ingress.relabelingConfigs).toContainEqual({ sourceLabels: ['__meta_kubernetes_ingress_annotation_probekit_io_module'], regex: '(.+)', targetLabel: '__param_module' });
  });

  it('grants get, list and watch on what the jobs discover: a Role per named namespace, or a ClusterRole when a job names none', () => {
    const named = specWith({ name: 'shop', module: 'http_2xx', discover: { ingresses: { selector: { matchLabels: { app: 'shop' } }, namespaces: ['shop', 'pay'] } } });
    const roles = renderDiscoveryRbac(named.jobs, { name: 'prometheus-server', namespace: 'monitoring' });
    expect(roles.map((object) => [object.kind, object.metadata.namespace])).toEqual([
      ['Role', 'shop'],
      ['RoleBinding', 'shop'],
      ['Role', 'pay'],
      ['RoleBinding', 'pay'],
    ]);
    expect(roles[0].rules).toEqual([{ apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get', 'list', 'watch'] }]);
    expect(roles[1].subjects).toEqual([{ kind: 'ServiceAccount', name: 'prometheus-server', namespace: 'monitoring' }]);
    const anywhere = specWith(
      { name: 'shop', module: 'http_2xx', discover: { ingresses: { selector: { matchLabels: { app: 'shop' } }, namespaces: ['shop'] } } },
      { name: 'db', module: 'tcp', discover: { services: { selector: { matchLabels: { app: 'pg' } } } } },
    );
    const cluster = renderDiscoveryRbac(anywhere.jobs, undefined);
    expect(cluster.map((object) => object.kind)).toEqual(['ClusterRole']);
    expect(cluster[0].rules).toEqual([
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
    ]);
  });
});

describe('discovery refused where it cannot work', () => {
  it('names the field and the fix', () => {
    expect(problemsOf(() => specWith({ name: 'ping', module: 'http_2xx', discover: {} }))).toEqual([
      'jobs[0].discover: names nothing to find; give ingresses: { selector } or services: { selector }, or remove discover',
    ]);
    expect(problemsOf(() => specWith({ name: 'db', module: 'tcp', discover: { ingresses: { selector: { matchLabels: { app: 'pg' } } } } }))).toEqual([
      "jobs[0].discover.ingresses: gives URLs, which an http module probes; this job's module probes with tcp: discover services instead",
    ]);
    expect(problemsOf(() => specWith({ name: 'all', module: 'http_2xx', discover: { services: { selector: {} } } }))).toEqual([
      'jobs[0].discover.services.selector: matches every Service; give matchLabels (such as probekit.io/probe: "true") or matchExpressions',
    ]);
    expect(
      problemsOf(() =>
        parseSpec({
          modules: { http_2xx: { preset: 'http_2xx' } },
          jobs: [{ name: 'api', module: 'http_2xx', discover: { services: { selector: { matchLabels: { app: 'api' } } } } }],
          operator: {},
          agent: { scrapeJobs: false },
        }),
      ),
    ).toEqual([
      "jobs[0].discover.services: the Operator's Probe discovers Ingresses only, and no agent values carry this job's scrape job; discover ingresses, or let the agent values carry the jobs (agent.scrapeJobs: true)",
    ]);
  });
});
