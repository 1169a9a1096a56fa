/**
 * The Prometheus Operator's objects: what a Probe, the ServiceMonitor and the PrometheusRule hold, checked against
 * the Operator's published schema at run time and against its types at compile time (every field we write is a
 * field of the Operator's, so none is silently pruned by the API server). That the Operator's scrape config for a
 * Probe puts the target into `instance` is shown with a real Prometheus in test/integration/endpoints-e2e.integration.test.ts.
 */
import type { IProbe } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/Probe' with { 'resolution-mode': 'import' };
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule' with { 'resolution-mode': 'import' };
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor' with { 'resolution-mode': 'import' };
import { parseSpec } from '../../src/model';
import {
  operatorTarget,
  renderAlertRules,
  renderExporterServiceMonitor,
  renderProbes,
  renderPrometheusRule,
  type ProbeObject,
  type PrometheusRuleObject,
  type ServiceMonitorObject,
} from '../../src/render';
import { fullEnv, fullSpec } from '../fixtures/specs';
import { operatorSchemaProblems } from '../support/operator-schema';

/** True when every key of Ours is a key of Theirs: a field the Operator does not know fails the type check. */
type KnownFields<Ours, Theirs> = Exclude<keyof Ours, keyof NonNullable<Theirs>> extends never ? true : false;
type Element<T> = T extends ReadonlyArray<infer E> ? E : never;
type ProbeSpec = NonNullable<IProbe['spec']>;
type MonitorEndpoint = Element<NonNullable<IServiceMonitor['spec']>['endpoints']>;
type RuleGroup = Element<NonNullable<IPrometheusRule['spec']>['groups']>;
const fieldsKnown: Array<true> = [
  true as KnownFields<ProbeObject, IProbe>,
  true as KnownFields<ProbeObject['spec'], ProbeSpec>,
  true as KnownFields<ProbeObject['spec']['prober'], ProbeSpec['prober']>,
  true as KnownFields<ProbeObject['spec']['targets'], ProbeSpec['targets']>,
  true as KnownFields<NonNullable<ProbeObject['spec']['targets']['staticConfig']>, NonNullable<ProbeSpec['targets']>['staticConfig']>,
  true as KnownFields<NonNullable<ProbeObject['spec']['targets']['ingress']>, NonNullable<ProbeSpec['targets']>['ingress']>,
  true as KnownFields<Element<NonNullable<ProbeObject['spec']['targets']['ingress']>['relabelingConfigs']>, Element<NonNullable<NonNullable<ProbeSpec['targets']>['ingress']>['relabelingConfigs']>>,
  true as KnownFields<ServiceMonitorObject['spec'], IServiceMonitor['spec']>,
  true as KnownFields<Element<ServiceMonitorObject['spec']['endpoints']>, MonitorEndpoint>,
  true as KnownFields<Element<Element<ServiceMonitorObject['spec']['endpoints']>['relabelings']>, Element<MonitorEndpoint['relabelings']>>,
  true as KnownFields<Element<PrometheusRuleObject['spec']['groups']>, RuleGroup>,
  true as KnownFields<Element<Element<PrometheusRuleObject['spec']['groups']>['rules']>, Element<RuleGroup['rules']>>,
];

const spec = parseSpec(fullSpec, { env: fullEnv });
const target = operatorTarget(spec);
const [websites] = spec.jobs;

describe('Prometheus Operator objects', () => {
  it("a Probe: the job's name, the exporter as prober, its module, interval and timeout, the targets with their labels and module", () => {
    expect(renderProbes(websites, spec.modules.http_2xx, 'probe-exporter.observability.svc:9115', target)).toEqual([
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'Probe',
        metadata: { name: 'websites', namespace: 'observability', labels: { 'app.kubernetes.io/part-of': 'probekit', 'app.kubernetes.io/component': 'probe', release: 'kube-prometheus-stack' } },
        spec: {
          jobName: 'websites',
          prober: { url: 'probe-exporter.observability.svc:9115', path: '/probe' },
          module: 'http_2xx',
          interval: '30s',
          scrapeTimeout: '30s',
          targets: { staticConfig: { static: ['https://example.com', 'http://example.org:8080/health'], labels: { team: 'web', module: 'http_2xx' } } },
        },
      },
    ]);
  });

  it('a job name Kubernetes would refuse as an object name is made fit, the job label keeps it', () => {
    const [probe] = renderProbes({ ...websites, name: 'Web Sites_EU' }, spec.modules.http_2xx, 'x:9115', target);
    expect(probe.metadata.name).toBe('web-sites-eu');
    expect(probe.spec.jobName).toBe('Web Sites_EU');
  });

  it("the ServiceMonitor selects the exporter's Service and names its job as the agent values do", () => {
    expect(renderExporterServiceMonitor('probe-exporter', target).spec).toEqual({
      selector: { matchLabels: { 'app.kubernetes.io/name': 'blackbox-exporter', 'app.kubernetes.io/instance': 'probe-exporter' } },
      endpoints: [{ port: 'http', path: '/metrics', interval: '30s', relabelings: [{ targetLabel: 'job', replacement: 'probekit-exporter', action: 'replace' }] }],
    });
    // A located deployment's exporter metrics carry its location, as its Probes' targets do.
    expect(renderExporterServiceMonitor('probe-exporter', target, 'eu').spec.endpoints[0]!.relabelings).toEqual([
      { targetLabel: 'job', replacement: 'probekit-exporter', action: 'replace' },
      { targetLabel: 'location', replacement: 'eu', action: 'replace' },
    ]);
  });

  it("every object validates against the Operator's schema, and the check is real", async () => {
    expect(fieldsKnown.every(Boolean)).toBe(true);
    const objects: Array<ProbeObject | ServiceMonitorObject | PrometheusRuleObject> = [
      ...spec.jobs.flatMap((job) => renderProbes(job, spec.modules[job.module]!, 'probe-exporter.observability.svc:9115', target)),
      renderExporterServiceMonitor('probe-exporter', target),
      renderExporterServiceMonitor('probe-exporter', target, 'eu'),
      renderPrometheusRule('probe-exporter-alerts', renderAlertRules(spec), target),
    ];
    const discovering = parseSpec({
      modules: { http_2xx: { preset: 'http_2xx' } },
      jobs: [
        {
          name: 'shop',
          module: 'http_2xx',
          labels: { team: 'shop' },
          targets: ['https://example.com', { target: 'https://pay.example.com', labels: { team: 'pay' }, module: { http: { valid_status_codes: [401] } } }],
          discover: { ingresses: { selector: { matchLabels: { app: 'shop' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['internal'] }] }, namespaces: ['shop'] } },
        },
      ],
    });
    const probes = renderProbes(discovering.jobs[0], discovering.modules.http_2xx, 'probe-exporter.observability.svc:9115', target);
    expect(probes.map((probe) => [probe.metadata.name, probe.spec.module === 'http_2xx', Object.keys(probe.spec.targets)])).toEqual([
      ['shop', true, ['staticConfig']],
      ['shop-2', false, ['staticConfig']],
      ['shop-3', true, ['ingress']],
    ]);
    objects.push(...probes);
    expect(await operatorSchemaProblems(objects)).toEqual(objects.map(() => undefined));
    const broken = { ...objects[0], spec: { ...(objects[0] as ProbeObject).spec, interval: '30 seconds' } };
    expect(await operatorSchemaProblems([broken])).toEqual([expect.stringContaining('spec/interval must match pattern')]);
  });
});
