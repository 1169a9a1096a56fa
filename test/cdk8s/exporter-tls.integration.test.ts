/**
 * The exporter behind TLS from a `kubernetes.io/tls` Secret (as cert-manager writes one): the web config in its
 * ConfigMap, which the exporter's own --config.check accepts with real certificates in place of the mounted
 * Secret; the Secret mounted, the flag given, the kubelet's checks adapted; the agent's jobs, Probes and
 * ServiceMonitor over https with the Secrets by reference. No cluster runs here: the objects are checked
 * against the Kubernetes 1.28 and Prometheus Operator schemas.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chart, Testing } from 'cdk8s';
import { parse } from 'yaml';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import { OUR_EXPORTER_MAIN } from '../../exporter/loopback/reference-exporter';
import { makeTlsFixtures, OPENSSL } from '../../exporter/loopback/tls-fixtures';
import { AgentValues, BlackboxExporter, ProbekitApp, ProbekitChart, Probes, synthesize } from '../../src/cdk8s';
import { parseSpec, type SpecInput } from '../../src/model';
import { CLUSTER_TLS_DIR } from '../../src/render';
import { describeWithBinaries } from '../support/integration';
import { tempDirPerTest } from '../support/temp-dir';
import { find, validateAgainstSchema } from '../support/manifests';
import { operatorSchemaProblems } from '../support/operator-schema';

const base: SpecInput = { modules: { web: { preset: 'http_2xx' } }, jobs: [{ name: 'web', module: 'web', targets: ['https://example.com'] }], operator: { labels: { release: 'prometheus' } } };

function synth(tls: { secretName: string; agentSecretName?: string }): { manifests: Array<Record<string, any>>; agentValues: Record<string, any> } {
  const chart = new ProbekitChart(Testing.app(), 'probes', { spec: parseSpec({ ...base, exporter: { tls } }), env: {} });
  return { manifests: Testing.synth(chart), agentValues: chart.probekit.agentValues.values as Record<string, any> };
}

const mutual = synth({ secretName: 'exporter-tls', agentSecretName: 'agent-tls' });
const serverName = 'blackbox-exporter.monitoring.svc';

describe('the exporter serving https', () => {
  const deployment = find(mutual.manifests, 'Deployment');
  const [container] = deployment.spec.template.spec.containers;

  it('mounts the TLS Secret, reads the web config, and is checked by TCP as the kubelet has no client certificate', () => {
    expect(() => validateAgainstSchema(deployment)).not.toThrow();
    expect(container.args).toContain('--web.config.file=/etc/probekit/web.yml');
    expect(container.volumeMounts).toContainEqual(expect.objectContaining({ mountPath: CLUSTER_TLS_DIR, readOnly: true }));
    expect(deployment.spec.template.spec.volumes).toContainEqual(expect.objectContaining({ secret: { secretName: 'exporter-tls' } }));
    expect(container.livenessProbe).toMatchObject({ tcpSocket: { port: 9115 } });
  });

  it('is checked over https without client certificates', () => {
    const [plain] = find(synth({ secretName: 'exporter-tls' }).manifests, 'Deployment').spec.template.spec.containers;
    expect(plain.readinessProbe).toMatchObject({ httpGet: { path: '/-/healthy', port: 9115, scheme: 'HTTPS' } });
  });

  it("makes the agent's jobs use https, the exporter's CA, its Service name and the agent's certificate", () => {
    const tlsSettings = {
      scheme: 'https',
      tls_config: { ca_file: '/etc/probekit/exporter-tls/ca.crt', server_name: serverName, cert_file: '/etc/probekit/agent-tls/tls.crt', key_file: '/etc/probekit/agent-tls/tls.key' },
    };
    const jobs = mutual.agentValues.agent.extraScrapeConfigs as Array<Record<string, unknown>>;
    expect(jobs.map((job) => job.job_name)).toEqual(['web', 'probekit-exporter']);
    for (const job of jobs) expect(job).toMatchObject(tlsSettings);
  });

  it('makes the Probes and the ServiceMonitor use https with the Secrets by reference, valid for the Operator', async () => {
    const probe = find(mutual.manifests, 'Probe');
    const monitor = find(mutual.manifests, 'ServiceMonitor');
    const tlsConfig = {
      ca: { secret: { name: 'exporter-tls', key: 'ca.crt' } },
      serverName,
      cert: { secret: { name: 'agent-tls', key: 'tls.crt' } },
      keySecret: { name: 'agent-tls', key: 'tls.key' },
    };
    expect(probe.spec).toMatchObject({ prober: { scheme: 'https' }, tlsConfig });
    expect(monitor.spec.endpoints[0]).toMatchObject({ scheme: 'https', tlsConfig });
    expect(await operatorSchemaProblems([probe, monitor])).toEqual([undefined, undefined]);
  });
});

describe('one path: every public route renders https jobs for an exporter serving https', () => {
  const tempDir = tempDirPerTest('probekit-tls-routes-');
  const spec = parseSpec({ ...base, exporter: { tls: { secretName: 'exporter-tls' } } });
  type Jobs = Array<{ job_name: string; scheme?: string; tls_config?: { server_name: string } }>;
  const httpsJobs = (jobs: Jobs) => jobs.map(({ job_name, scheme, tls_config }) => ({ job_name, scheme, server_name: tls_config?.server_name }));
  const expected = ['web', 'probekit-exporter'].map((job_name) => ({ job_name, scheme: 'https', server_name: serverName }));

  it('synthesize (the Pulumi program) and ProbekitChart', () => {
    expect(httpsJobs(synthesize(spec).agentValues.agent.extraScrapeConfigs as Jobs)).toEqual(expected);
    const chart = new ProbekitChart(Testing.app(), 'probes', { spec });
    expect(httpsJobs(chart.probekit.agentValues.values.agent.extraScrapeConfigs as Jobs)).toEqual(expected);
  });

  it('ProbekitApp, in the agent values file it writes', () => {
    const app = new ProbekitApp({ outdir: tempDir() });
    new ProbekitChart(app, 'probes', { spec });
    app.synth();
    expect(httpsJobs(parse(readFileSync(join(tempDir(), 'probes.agent-values.yaml'), 'utf8')).agent.extraScrapeConfigs)).toEqual(expected);
  });

  it("the parts alone: AgentValues and Probes read the exporter construct's TLS", () => {
    const chart = new Chart(Testing.app(), 'probes', { namespace: 'monitoring' });
    const exporter = new BlackboxExporter(chart, 'exporter', { modules: spec.modules, tls: { secretName: 'exporter-tls' } });
    const agent = new AgentValues(chart, 'agent', { exporter, jobs: spec.jobs });
    new Probes(chart, 'probes', { exporter, jobs: spec.jobs });
    expect(httpsJobs(agent.values.agent.extraScrapeConfigs as Jobs)).toEqual(expected);
    const objects = Testing.synth(chart);
    expect(find(objects, 'Probe').spec.prober.scheme).toBe('https');
    expect(find(objects, 'ServiceMonitor').spec.endpoints[0].scheme).toBe('https');
  });
});

describeWithBinaries([OPENSSL])('the synthesized web config', () => {
  it('is one the exporter accepts, with real certificates where the Secret is mounted', () => {
    const fixtures = makeTlsFixtures();
    const dir = mkdtempSync(join(tmpdir(), 'probekit-web-yml-'));
    try {
      copyFileSync(fixtures.serverCertFile, join(dir, 'tls.crt'));
      copyFileSync(fixtures.serverKeyFile, join(dir, 'tls.key'));
      copyFileSync(fixtures.caFile, join(dir, 'ca.crt'));
      const configMap = find(mutual.manifests, 'ConfigMap', 'blackbox-exporter-config');
      const webYml = configMap.data['web.yml'] as string;
      expect(parse(webYml).tls_server_config.client_auth_type).toBe('RequireAndVerifyClientCert');
      writeFileSync(join(dir, 'web.yml'), webYml.replaceAll(CLUSTER_TLS_DIR, dir));
      writeFileSync(join(dir, 'blackbox.yml'), configMap.data['blackbox.yml']);
      const check = spawnSync(process.execPath, [...FROM_SOURCE, OUR_EXPORTER_MAIN, '--config.check', `--config.file=${join(dir, 'blackbox.yml')}`, `--web.config.file=${join(dir, 'web.yml')}`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
    } finally {
      fixtures.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
