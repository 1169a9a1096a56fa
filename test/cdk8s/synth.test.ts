import { App, Chart, Testing } from 'cdk8s';
import { parse as parseYaml, stringify } from 'yaml';
import { BlackboxExporter, CONFIG_CHECKSUM_ANNOTATION, ProbekitChart, synthesize } from '../../src/cdk8s';
import { documentedExample, parseSpec } from '../../src/model';
import { fullEnv, fullSpec, SECRET_VALUES } from '../fixtures/specs';
import { find, redactSecrets, validateAgainstSchema } from './objects';

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

describe('the exporter Deployment', () => {
  const deployment = find(full.manifests, 'Deployment');
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;

  it('runs the image on the mounted config file', () => {
    expect(container.image).toBe('registry.example.com/probekit/exporter:1.2.3');
    expect(container.args).toContain('--config.file=/etc/probekit/blackbox.yml');
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
    const plain = find(example.manifests, 'Deployment').spec.template.spec;
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
    const checksum = (manifests: ReadonlyArray<Record<string, any>>) => find(manifests, 'Deployment').spec.template.metadata.annotations[CONFIG_CHECKSUM_ANNOTATION];
    const again = synthesize(parseSpec(documentedExample));
    const changed = synthesize(parseSpec({ ...documentedExample, modules: { http_2xx: { prober: 'http', timeout: '7s' } } }));
    expect(checksum(again.manifests)).toBe(checksum(example.manifests));
    expect(checksum(changed.manifests)).not.toBe(checksum(example.manifests));
    expect(checksum(example.manifests)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('mounts the secret header values from Secrets', () => {
    expect(container.volumeMounts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ mountPath: '/etc/probekit/secrets', readOnly: true }),
        expect.objectContaining({ mountPath: '/etc/probekit/existing-secrets/partner-credentials', readOnly: true }),
      ]),
    );
    // Every header file the config names lies in a mounted Secret, under the key it references.
    const config = parseYaml(find(full.manifests, 'ConfigMap', 'probe-exporter-config').data['blackbox.yml']);
    const headerFiles = Object.values(config.modules).flatMap((module: any) => Object.values(module.http?.http_headers ?? {}).flatMap((header: any) => header.files ?? []));
    expect(headerFiles).toEqual(expect.arrayContaining(['/etc/probekit/secrets/http_2xx_with_header.authentication', '/etc/probekit/existing-secrets/partner-credentials/api-key']));
    for (const file of headerFiles) {
      const mount = container.volumeMounts.find((candidate: { mountPath: string }) => file.startsWith(`${candidate.mountPath}/`));
      expect([file, mount !== undefined]).toEqual([file, true]);
    }
    expect(pod.volumes).toEqual(expect.arrayContaining([expect.objectContaining({ secret: expect.objectContaining({ secretName: 'probe-exporter-headers' }) }), expect.objectContaining({ secret: expect.objectContaining({ secretName: 'partner-credentials' }) })]));
    expect(find(full.manifests, 'Secret', 'probe-exporter-headers').stringData).toEqual({ 'http_2xx_with_header.authentication': `Bearer ${SECRET_VALUES.ACCESS_TOKEN}` });
  });

  it('refuses a fromEnv header whose variable is unset', () => {
    const chart = Testing.chart();
    expect(() => new BlackboxExporter(chart, 'e', { modules: { m: { prober: 'http', http: { headers: { 'X-Key': { fromEnv: 'NOT_SET_ANYWHERE' } } } } } })).toThrow(
      'modules.m.http.headers.X-Key.fromEnv: environment variable NOT_SET_ANYWHERE is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
    );
  });
});

describe('the Service', () => {
  it('has the readable name the scrape job addresses, on port 9115, selecting the exporter pods', () => {
    const service = find(full.manifests, 'Service');
    const deployment = find(full.manifests, 'Deployment');
    expect(service.metadata).toMatchObject({ name: 'probe-exporter', namespace: 'observability' });
    expect(service.spec.ports).toEqual([{ name: 'http', port: 9115, targetPort: 9115 }]);
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(deployment.spec.selector.matchLabels).toEqual(service.spec.selector);
    expect(full.agentValues['k8s-monitoring'].extraScrapeConfigs![0].relabel_configs[2].replacement).toBe('probe-exporter.observability.svc:9115');
  });
});

describe('the search-engine Secret', () => {
  it('is an Opaque Secret with the URL and the token', () => {
    expect(find(full.manifests, 'Secret', 'search-engine')).toMatchObject({
      type: 'Opaque',
      metadata: { namespace: 'observability' },
      stringData: { url: 'https://search.example.com:9200', 'api-token': SECRET_VALUES.SEARCH_TOKEN },
    });
  });

  it('is not created when the spec references an existing one', () => {
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

describe('constructs used alone', () => {
  it('BlackboxExporter in a chart of its own takes the chart namespace for its address', () => {
    const chart = new Chart(new App(), 'mine', { namespace: 'probes' });
    const exporter = new BlackboxExporter(chart, 'exporter', { serviceName: 'bb' });
    expect(exporter.address).toBe('bb.probes.svc:9115');
  });

  it('ProbekitChart writes its agent values beside its manifests', () => {
    const chart = new ProbekitChart(new App(), 'prod', { spec: parseSpec(documentedExample) });
    expect(chart.probekit.agentValues.fileName).toBe('prod.agent-values.yaml');
  });
});
