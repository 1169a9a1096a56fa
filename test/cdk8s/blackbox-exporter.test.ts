/**
 * BlackboxExporter alone, in a chart of its own: the ConfigMap with the exporter's config, the locked-down
 * Deployment, the Service the scrape jobs address, and the Secrets its secret headers are read from.
 */
import { App, Chart, Testing } from 'cdk8s';
import { parse as parseYaml } from 'yaml';
import { BlackboxExporter, CONFIG_CHECKSUM_ANNOTATION, type BlackboxExporterProps } from '../../src/cdk8s';
import { parseSpec, presets, type SpecInput, type SpecModule } from '../../src/model';
import { fullEnv, fullSpec, SECRET_VALUES } from '../fixtures/specs';
import { problemsOf } from '../support/problems';
import { find, validateAgainstSchema } from '../support/manifests';

const spec = parseSpec(fullSpec, { env: fullEnv });
/** The exporter of the spec that uses every option, as the Probekit construct would make it. */
const fullProps: BlackboxExporterProps = { ...spec.exporter, modules: spec.modules, env: fullEnv };

function synth(props: BlackboxExporterProps = fullProps, namespace = spec.namespace): Array<Record<string, any>> {
  const chart = new Chart(Testing.app(), 'probes', { namespace });
  new BlackboxExporter(chart, 'exporter', props);
  return Testing.synth(chart);
}

const full = synth();

describe('the exporter Deployment', () => {
  const deployment = find(full, 'Deployment');
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;

  it('runs the image on the mounted config file, listening on 9115', () => {
    expect(container.image).toBe('registry.example.com/probekit/exporter:1.2.3');
    expect(container.args).toEqual(['--config.file=/etc/probekit/blackbox.yml', '--web.listen-address=:9115']);
    expect(container.volumeMounts).toContainEqual(expect.objectContaining({ mountPath: '/etc/probekit' }));
    expect(pod.volumes).toContainEqual(expect.objectContaining({ configMap: { name: 'probe-exporter-config' } }));
    expect(deployment.spec.replicas).toBe(2);
  });

  it('is locked down: non-root, read-only, no escalation, only NET_RAW added', () => {
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'], add: ['NET_RAW'] },
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsGroup: 65534,
      runAsNonRoot: true,
      runAsUser: 65534,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it('grants NET_RAW and ping sockets exactly when an icmp module exists', () => {
    const plain = find(synth({ modules: { http_2xx: spec.modules.http_2xx! } }), 'Deployment').spec.template.spec;
    expect(plain.containers[0].securityContext.capabilities).toEqual({ drop: ['ALL'] });
    expect(plain.securityContext.sysctls).toBeUndefined();
    expect(pod.securityContext.sysctls).toEqual([{ name: 'net.ipv4.ping_group_range', value: '0 2147483647' }]);
  });

  it('grants NET_RAW when an icmp module is added later', () => {
    const chart = Testing.chart();
    const exporter = new BlackboxExporter(chart, 'exporter', { modules: {} });
    exporter.addModule('ping', { prober: 'icmp' });
    const [configMap, deployment2] = Testing.synth(chart);
    expect(configMap.data['blackbox.yml']).toBe('modules:\n  ping:\n    prober: icmp\n');
    expect(deployment2.spec.template.spec.containers[0].securityContext.capabilities).toEqual({ drop: ['ALL'], add: ['NET_RAW'] });
  });

  it('has requests, limits, and health checks on the exporter health endpoint', () => {
    expect(container.resources).toEqual({ requests: { cpu: '100m', memory: '96Mi' }, limits: { cpu: '1', memory: '512Mi' } });
    for (const probe of [container.livenessProbe, container.readinessProbe]) expect(probe.httpGet).toEqual({ path: '/-/healthy', port: 9115, scheme: 'HTTP' });
  });

  it('rolls the pods when the config changes, and only then', () => {
    const documented = { modules: { http_2xx: spec.modules.http_2xx! } };
    const checksum = (manifests: ReadonlyArray<Record<string, any>>) => find(manifests, 'Deployment').spec.template.metadata.annotations[CONFIG_CHECKSUM_ANNOTATION];
    const first = synth(documented);
    expect(checksum(synth(documented))).toBe(checksum(first));
    expect(checksum(synth({ modules: { http_2xx: { prober: 'http', timeout: '7s' } } }))).not.toBe(checksum(first));
    expect(checksum(first)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('mounts the secret header values from Secrets', () => {
    expect(container.volumeMounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ mountPath: '/etc/probekit/secrets', readOnly: true }),
        expect.objectContaining({ mountPath: '/etc/probekit/existing-secrets/partner-credentials', readOnly: true }),
      ]),
    );
    // Every header file the config names lies in a mounted Secret, under the key it references.
    const config = parseYaml(find(full, 'ConfigMap', 'probe-exporter-config').data['blackbox.yml']);
    const headerFiles = Object.values(config.modules).flatMap((module: any) => Object.values(module.http?.http_headers ?? {}).flatMap((header: any) => header.files ?? []));
    expect(headerFiles).toEqual(expect.arrayContaining(['/etc/probekit/secrets/http_2xx_with_header.authentication', '/etc/probekit/existing-secrets/partner-credentials/api-key']));
    for (const file of headerFiles) {
      const mount = container.volumeMounts.find((candidate: { mountPath: string }) => file.startsWith(`${candidate.mountPath}/`));
      expect([file, mount !== undefined]).toEqual([file, true]);
    }
    expect(pod.volumes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ secret: expect.objectContaining({ secretName: 'probe-exporter-headers' }) }),
        expect.objectContaining({ secret: expect.objectContaining({ secretName: 'partner-credentials' }) }),
      ]),
    );
    expect(find(full, 'Secret', 'probe-exporter-headers').stringData).toEqual({ 'http_2xx_with_header.authentication': `Bearer ${SECRET_VALUES.ACCESS_TOKEN}` });
  });

  it('refuses a fromEnv header whose variable is unset', () => {
    const chart = Testing.chart();
    expect(problemsOf(() => new BlackboxExporter(chart, 'e', { modules: { m: { prober: 'http', http: { headers: { 'X-Key': { fromEnv: 'NOT_SET_ANYWHERE' } } } } } }))).toEqual([
      'modules.m.http.headers.X-Key.fromEnv: environment variable NOT_SET_ANYWHERE is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
    ]);
  });
});

describe('the Service', () => {
  it('has the readable name the scrape job addresses, on port 9115, selecting the exporter pods', () => {
    const service = find(full, 'Service');
    const deployment = find(full, 'Deployment');
    expect(service.metadata).toMatchObject({ name: 'probe-exporter', namespace: 'observability' });
    expect(service.spec.ports).toEqual([{ name: 'http', port: 9115, targetPort: 9115 }]);
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(deployment.spec.selector.matchLabels).toEqual(service.spec.selector);
  });

  it('gives its address in the chart namespace: the Service name, .svc, port 9115', () => {
    const chart = new Chart(new App(), 'mine', { namespace: 'probes' });
    const exporter = new BlackboxExporter(chart, 'exporter', { serviceName: 'bb' });
    expect(exporter.address).toBe('bb.probes.svc:9115');
  });
});

describe('the HorizontalPodAutoscaler', () => {
  it('is made only when asked for', () => {
    expect(full.filter((manifest) => manifest.kind === 'HorizontalPodAutoscaler')).toEqual([]);
  });

  it('scales the Deployment on CPU, from replicas up to maxReplicas, and the Deployment leaves the count to it', () => {
    const manifests = synth({ ...fullProps, autoscaling: { maxReplicas: 6 } });
    const autoscaler = find(manifests, 'HorizontalPodAutoscaler');
    expect(autoscaler.apiVersion).toBe('autoscaling/v2');
    expect(autoscaler.metadata).toMatchObject({ name: 'probe-exporter', namespace: 'observability' });
    expect(autoscaler.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'probe-exporter' },
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
    });
    const deployment = find(manifests, 'Deployment');
    expect(deployment.spec.replicas).toBeUndefined();
    // The utilization is a share of the CPU request, so the container must have one.
    expect(deployment.spec.template.spec.containers[0].resources.requests.cpu).toBe('100m');
    for (const manifest of [autoscaler, deployment]) expect(() => validateAgainstSchema(manifest)).not.toThrow();
  });

  it('takes its own minimum and utilization', () => {
    const autoscaler = find(synth({ ...fullProps, autoscaling: { minReplicas: 3, maxReplicas: 10, cpuUtilization: 60 } }), 'HorizontalPodAutoscaler');
    expect(autoscaler.spec).toMatchObject({ minReplicas: 3, maxReplicas: 10, metrics: [{ resource: { target: { averageUtilization: 60 } } }] });
  });
});

describe('BlackboxExporter refuses, in the words a spec file gets', () => {
  const specProblems = (modules: SpecInput['modules']) => problemsOf(() => parseSpec({ modules, jobs: [] })).filter((problem) => problem.startsWith('modules.'));

  it('a module whose regexp cannot compile, at addModule, naming the construct, and keeps nothing of it', () => {
    const chart = Testing.chart();
    const exporter = new BlackboxExporter(chart, 'exporter');
    const broken: SpecModule = { prober: 'http', http: { fail_if_body_matches_regexp: ['(unclosed'] } };
    const problems = problemsOf(() => exporter.addModule('web', broken));
    expect(problems).toEqual(specProblems({ web: broken }));
    expect(problems[0]).toMatch(/^modules\.web\.http\.fail_if_body_matches_regexp\[0\]: could not compile regular expression "\(unclosed"/);
    expect(() => exporter.addModule('web', broken)).toThrow(/^test\/exporter: modules\.web\./);
    expect(exporter.modules).toEqual({});
  });

  it('the same in the modules given, each module named', () => {
    const modules = { web: { prober: 'http', timeout: 5 }, dns: { prober: 'dns', tcp: {} } } as unknown as SpecInput['modules'] & object;
    expect(problemsOf(() => new BlackboxExporter(Testing.chart(), 'exporter', { modules }))).toEqual(specProblems(modules));
  });

  it('a second module of the same name, as ConfigMap.addData refuses a key twice', () => {
    const exporter = new BlackboxExporter(Testing.chart(), 'exporter', { modules: { web: { preset: 'http_2xx' } } });
    expect(problemsOf(() => exporter.addModule('web', { prober: 'tcp' }))).toEqual(['modules.web: is a module of this exporter already; give this module another name, or change the first one']);
    expect(exporter.modules.web!.prober).toBe('http');
  });

  it('takes presets as the spec writes them, expanded as presets.http2xx() is', () => {
    const exporter = new BlackboxExporter(Testing.chart(), 'exporter', { modules: { web: { preset: 'http_2xx' } } });
    expect(exporter.modules).toEqual({ web: presets.http2xx() });
  });
});
