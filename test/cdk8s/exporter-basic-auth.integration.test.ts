/**
 * The exporter asking for a password (`exporter.basicAuth`): the bcrypt hash goes into a web config that sits in a
 * Secret of its own (the ConfigMap holds no hash), the kubelet checks by TCP, and whoever scrapes sends the password
 * from the `kubernetes.io/basic-auth` Secret: the agent's jobs from a mounted file, the Probes and ServiceMonitor by
 * reference. No cluster runs here: the objects are checked against the Kubernetes 1.28 and Prometheus Operator
 * schemas; then Debian's Prometheus scrapes our exporter, started with the synthesized web config and real
 * certificates, with the synthesized scrape settings: up with the right password, down with a wrong one.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { startExporter, type RunningExporter } from '../../exporter/loopback/reference-exporter';
import { makeTlsFixtures, OPENSSL, type TlsFixtures } from '../../exporter/loopback/tls-fixtures';
import { ProbekitChart } from '../../src/cdk8s';
import { parseSpec, type SpecInput } from '../../src/model';
import { AGENT_EXPORTER_AUTH_DIR, AGENT_EXPORTER_TLS_DIR, CLUSTER_TLS_DIR, type ScrapeConfig } from '../../src/render';
import { describeWithBinaries } from '../support/integration';
import { find, validateAgainstSchema } from '../support/manifests';
import { operatorSchemaProblems } from '../support/operator-schema';
import { problemsOf } from '../support/problems';
import { eventually, PROMETHEUS, startPrometheus, type RunningPrometheus } from '../support/prometheus';

const PASSWORD = 'agent password 7f3a';
/** Cost 4, the least bcrypt takes, so the test is quick; docs/spec.md asks for 10 or more. */
const HASH = bcrypt.hashSync(PASSWORD, 4);
const serverName = 'blackbox-exporter.monitoring.svc';

const base: SpecInput = { modules: { web: { preset: 'http_2xx' } }, jobs: [{ name: 'web', module: 'web', targets: ['https://example.com'] }], operator: { labels: { release: 'prometheus' } } };
const basicAuth = { username: 'prometheus', passwordHash: HASH, secretName: 'exporter-auth' };

function synth(exporter: SpecInput['exporter']): { manifests: Array<Record<string, any>>; agentValues: Record<string, any> } {
  const chart = new ProbekitChart(Testing.app(), 'probes', { spec: parseSpec({ ...base, exporter }), env: {} });
  return { manifests: Testing.synth(chart), agentValues: chart.probekit.agentValues.values as Record<string, any> };
}

describe('the exporter asking for a password', () => {
  const { manifests, agentValues } = synth({ basicAuth, tls: { secretName: 'exporter-tls' } });
  const deployment = find(manifests, 'Deployment');
  const [container] = deployment.spec.template.spec.containers;

  it('reads its web config from a Secret of its own, which holds the hash; the ConfigMap holds none', () => {
    const secret = find(manifests, 'Secret', 'blackbox-exporter-web-config');
    const webConfig = parse(secret.stringData['web.yml'] as string);
    expect(webConfig.basic_auth_users).toEqual({ prometheus: HASH });
    expect(webConfig.tls_server_config.cert_file).toBe(`${CLUSTER_TLS_DIR}/tls.crt`);
    const configMap = find(manifests, 'ConfigMap', 'blackbox-exporter-config');
    expect(Object.keys(configMap.data)).toEqual(['blackbox.yml']);
    expect(JSON.stringify(manifests.filter((object) => object.kind !== 'Secret'))).not.toContain(HASH);
    expect(JSON.stringify(manifests)).not.toContain(PASSWORD);
    expect(container.args).toContain('--web.config.file=/etc/probekit/web/web.yml');
    expect(container.volumeMounts).toContainEqual(expect.objectContaining({ mountPath: '/etc/probekit/web', readOnly: true }));
    for (const object of [deployment, secret]) expect(() => validateAgainstSchema(object)).not.toThrow();
  });

  it('is checked by TCP, as the kubelet has no password to send', () => {
    expect(container.livenessProbe).toMatchObject({ tcpSocket: { port: 9115 } });
    expect(container.readinessProbe).toMatchObject({ tcpSocket: { port: 9115 } });
  });

  it('rolls its pods when the hash changes', () => {
    const checksum = (hash: string): string =>
      find(synth({ basicAuth: { ...basicAuth, passwordHash: hash } }).manifests, 'Deployment').spec.template.metadata.annotations['probekit.io/config-checksum'];
    expect(checksum(HASH)).not.toBe(checksum(bcrypt.hashSync('another password', 4)));
  });

  it("makes the agent's jobs send the password from the file its pod mounts", () => {
    const jobs = agentValues.agent.extraScrapeConfigs as ScrapeConfig[];
    expect(jobs.map((job) => job.job_name)).toEqual(['web', 'probekit-exporter']);
    for (const job of jobs) expect(job).toMatchObject({ scheme: 'https', basic_auth: { username: 'prometheus', password_file: `${AGENT_EXPORTER_AUTH_DIR}/password` } });
  });

  it('makes the Probes and the ServiceMonitor reference the Secret, valid for the Operator', async () => {
    const probe = find(manifests, 'Probe');
    const monitor = find(manifests, 'ServiceMonitor');
    const reference = { username: { name: 'exporter-auth', key: 'username' }, password: { name: 'exporter-auth', key: 'password' } };
    expect(probe.spec).toMatchObject({ prober: { scheme: 'https' }, basicAuth: reference });
    expect(monitor.spec.endpoints[0]).toMatchObject({ scheme: 'https', basicAuth: reference });
    expect(await operatorSchemaProblems([probe, monitor])).toEqual([undefined, undefined]);
  });

  it('works without TLS too (the password then crosses the network in clear, as docs/security.md warns)', () => {
    const plain = synth({ basicAuth });
    const [plainContainer] = find(plain.manifests, 'Deployment').spec.template.spec.containers;
    expect(plainContainer.args).toContain('--web.config.file=/etc/probekit/web/web.yml');
    expect(parse(find(plain.manifests, 'Secret', 'blackbox-exporter-web-config').stringData['web.yml'] as string)).toEqual({ basic_auth_users: { prometheus: HASH } });
    const job = (plain.agentValues.agent.extraScrapeConfigs as ScrapeConfig[])[0];
    expect(job).not.toHaveProperty('scheme');
    expect(job).toHaveProperty('basic_auth.password_file');
  });

  it.each([
    ['a password where the hash goes', { ...basicAuth, passwordHash: PASSWORD }, /^exporter\.basicAuth\.passwordHash: must be a bcrypt hash .*htpasswd -nbBC 10/],
    ['a user name with a colon', { ...basicAuth, username: 'a:b' }, /^exporter\.basicAuth\.username: must be a user name without colons/],
  ])('refuses %s, naming the field and the fix', (_, given, message) => {
    const problems = problemsOf(() => parseSpec({ ...base, exporter: { basicAuth: given } }));
    expect(problems).toEqual([expect.stringMatching(message)]);
    expect(JSON.stringify(problems)).not.toContain(PASSWORD);
  });
});

/** The status of a GET over https trusting `ca` (Node's fetch cannot be given a CA). */
function httpsStatus(url: string, ca: string, authorization: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = get(url, { ca, servername: serverName, headers: { authorization } }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', () => resolve(undefined));
  });
}

describeWithBinaries([PROMETHEUS, OPENSSL])('Prometheus scraping the exporter with the synthesized settings', () => {
  let dir: string;
  let fixtures: TlsFixtures;
  let exporter: RunningExporter;
  let prometheus: RunningPrometheus | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-basic-auth-'));
    fixtures = makeTlsFixtures({ serverNames: [`DNS:${serverName}`] });
    const { manifests, agentValues } = synth({ basicAuth, tls: { secretName: 'exporter-tls' } });
    // The Secrets' files where the pods would mount them: the exporter's certificate, the agent's password.
    copyFileSync(fixtures.serverCertFile, join(dir, 'tls.crt'));
    copyFileSync(fixtures.serverKeyFile, join(dir, 'tls.key'));
    const webYml = (find(manifests, 'Secret', 'blackbox-exporter-web-config').stringData['web.yml'] as string).replaceAll(CLUSTER_TLS_DIR, dir);
    writeFileSync(join(dir, 'web.yml'), webYml);
    writeFileSync(join(dir, 'password'), PASSWORD);
    writeFileSync(join(dir, 'wrong-password'), 'not the password');
    const configMap = find(manifests, 'ConfigMap', 'blackbox-exporter-config');
    const authorization = `Basic ${Buffer.from(`prometheus:${PASSWORD}`).toString('base64')}`;
    exporter = await startExporter('ours', configMap.data['blackbox.yml'] as string, {
      flags: [`--web.config.file=${join(dir, 'web.yml')}`],
      https: true,
      healthy: (baseUrl) => httpsStatus(`${baseUrl}/-/healthy`, fixtures.ca, authorization).then((status) => status === 200),
    });
    const port = new URL(exporter.baseUrl).port;
    const exporterJob = (agentValues.agent.extraScrapeConfigs as ScrapeConfig[]).find((job) => job.job_name === 'probekit-exporter')!;
    const asHere = (jobName: string, passwordFile: string): Record<string, unknown> => {
      const job = JSON.parse(JSON.stringify(exporterJob).replaceAll(`${serverName}:9115`, `127.0.0.1:${port}`).replaceAll(`${AGENT_EXPORTER_TLS_DIR}/ca.crt`, fixtures.caFile)) as Record<string, any>;
      return { ...job, job_name: jobName, scrape_interval: '1s', scrape_timeout: '1s', basic_auth: { ...job.basic_auth, password_file: passwordFile } };
    };
    expect(exporterJob.basic_auth?.password_file).toBe(`${AGENT_EXPORTER_AUTH_DIR}/password`);
    prometheus = await startPrometheus({ scrape_configs: [asHere('right', join(dir, 'password')), asHere('wrong', join(dir, 'wrong-password'))] });
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await exporter?.stop();
    fixtures?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is up with the right password over https, and down with a wrong one', async () => {
    const up = async (): Promise<Record<string, string>> => Object.fromEntries((await prometheus!.query('up')).map((sample) => [sample.metric.job, sample.value[1]]));
    expect(await eventually(20, async () => Object.keys(await up()).length === 2)).toBe(true);
    expect(await up()).toEqual({ right: '1', wrong: '0' });
    const errors = await fetch(`${prometheus!.url}/api/v1/targets`).then((response) => response.json() as Promise<{ data: { activeTargets: Array<{ labels: { job: string }; lastError: string }> } }>);
    expect(errors.data.activeTargets.find((target) => target.labels.job === 'wrong')?.lastError).toMatch(/401/);
    expect(exporter.log()).not.toContain(PASSWORD);
  }, 30_000);
});
