/**
 * `agent.targets`: with http_sd the agent values carry no target, each probe job reads its targets from the
 * exporter's `/sd/<job>` (with the exporter's https and password), the three relabel rules are the inline job's, and
 * the targets, labels and modules travel in target files of the exporter's own ConfigMaps, each within the limit,
 * mounted where `--sd.targets-dir` reads them. With inline, values too large for a Helm release stop synth.
 */
import { gunzipSync } from 'node:zlib';
import bcrypt from 'bcryptjs';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { ProbekitChart, synthesize } from '../../src/cdk8s';
import { parseSpec, type SpecInput } from '../../src/model';
import { relabelRules, renderScrapeJobs, TARGET_CONFIG_MAP_BYTES, type ScrapeConfig, type TargetGroup } from '../../src/render';
import { find } from '../support/manifests';
import { problemsOf } from '../support/problems';

const TARGETS = 3_000;
const spec = (agent: SpecInput['agent'], exporter?: SpecInput['exporter'], targets = TARGETS): SpecInput => ({
  modules: { http_2xx: { preset: 'http_2xx' }, tcp: { prober: 'tcp' } },
  jobs: [
    {
      name: 'web',
      module: 'http_2xx',
      labels: { team: 'web' },
      targets: [
        ...Array.from({ length: targets }, (_, index) => `https://site-${index}.example.com/health`),
        { target: 'https://slow.example.com', scrapeInterval: '1m', labels: { tier: 'gold' } },
        { target: 'https://auth.example.com', module: { http: { headers: { 'X-Probe': 'yes' } } } },
      ],
    },
    { name: 'db', module: 'tcp', targets: ['db-1.example.com:5432', 'db-2.example.com:5432'] },
  ],
  agent,
  ...(exporter && { exporter }),
});

function synth(input: SpecInput): { manifests: Array<Record<string, any>>; chart: ProbekitChart } {
  const chart = new ProbekitChart(Testing.app(), 'probes', { spec: parseSpec(input), env: {} });
  return { manifests: Testing.synth(chart), chart };
}

/** What the exporter serves, read from the manifests as its pod reads them: every target file in its mounts, in path order. */
function served(manifests: Array<Record<string, any>>): Record<string, TargetGroup[]> {
  const deployment = find(manifests, 'Deployment');
  const [dirFlag] = (deployment.spec.template.spec.containers[0].args as string[]).filter((arg) => arg.startsWith('--sd.targets-dir='));
  const dir = dirFlag!.slice('--sd.targets-dir='.length);
  const volumes = new Map<string, string>(deployment.spec.template.spec.volumes.filter((volume: any) => volume.configMap).map((volume: any) => [volume.name, volume.configMap.name]));
  const configMaps = new Map<string, Record<string, string>>(manifests.filter((object) => object.kind === 'ConfigMap').map((object) => [object.metadata.name, object.binaryData ?? {}]));
  const files: Array<[string, Buffer]> = [];
  for (const mount of deployment.spec.template.spec.containers[0].volumeMounts.filter((each: any) => each.mountPath.startsWith(`${dir}/`))) {
    for (const [key, base64] of Object.entries(configMaps.get(volumes.get(mount.name)!)!)) files.push([`${mount.mountPath}/${key}`, Buffer.from(base64, 'base64')]);
  }
  const jobs: Record<string, TargetGroup[]> = {};
  for (const [, content] of files.sort(([a], [b]) => a.localeCompare(b))) {
    for (const [job, groups] of Object.entries(JSON.parse(gunzipSync(content).toString()) as Record<string, TargetGroup[]>)) (jobs[job] ??= []).push(...groups);
  }
  return jobs;
}

const jobsOf = (values: Record<string, any>): ScrapeConfig[] => parse(values.extraScrapeConfigs as string) as ScrapeConfig[];

describe('agent.targets: http_sd', () => {
  it('serves every target, label and module at /sd/<job> from ConfigMaps within the limit, and the values carry none', () => {
    const { manifests, chart } = synth(spec({ chart: 'prometheus', targets: 'http_sd' }));
    const inline = parseSpec(spec({ chart: 'prometheus' }));
    const address = 'blackbox-exporter.monitoring.svc:9115';
    const expected = renderScrapeJobs(inline, address);

    const values = chart.probekit.agentValues.toYaml();
    expect(values).not.toMatch(/example\.com/);
    const jobs = jobsOf(chart.probekit.agentValues.values);
    expect(jobs.map((job) => job.job_name)).toEqual(['web', 'web@1m', 'db', 'probekit-exporter']);
    for (const [index, job] of jobs.slice(0, 3).entries()) {
      expect(job.static_configs).toBeUndefined();
      expect(job.http_sd_configs).toEqual([{ url: `http://${address}/sd/${encodeURIComponent(job.job_name)}` }]);
      // The seed's three rules, untouched, and the params the inline job has.
      expect(job.relabel_configs).toEqual(relabelRules(address));
      expect(job.params).toEqual(expected[index].params);
    }

    // Prometheus' groups are the inline job's static_configs, split at most where a file ends.
    const groups = served(manifests);
    expect(Object.keys(groups)).toEqual(['web', 'web@1m', 'db']);
    for (const config of expected) {
      const targetsOf = (list: ReadonlyArray<{ targets: readonly string[]; labels?: object }>) => list.flatMap((group) => group.targets.map((target) => [target, group.labels]));
      expect(targetsOf(groups[config.job_name])).toEqual(targetsOf(config.static_configs!));
    }
    expect(groups.web.some((group) => group.labels.__param_module?.startsWith('http_2xx.headers.'))).toBe(true);

    const targetMaps = manifests.filter((object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith('blackbox-exporter-targets-'));
    expect(targetMaps.length).toBeGreaterThan(0);
    for (const configMap of targetMaps) expect(Object.values(configMap.binaryData as Record<string, string>).reduce((sum, text) => sum + text.length, 0)).toBeLessThanOrEqual(TARGET_CONFIG_MAP_BYTES);
  });

  it('reaches /sd/ as the scrapes reach the exporter: https with its CA and name, the password file', () => {
    const basicAuth = { username: 'prometheus', passwordHash: bcrypt.hashSync('agent password', 4), secretName: 'exporter-auth' };
    const { chart } = synth(spec({ chart: 'victoria-metrics-agent', targets: 'http_sd' }, { tls: { secretName: 'exporter-tls' }, basicAuth }, 10));
    const [web] = chart.probekit.agentValues.values.extraScrapeConfigs as ScrapeConfig[];
    expect(web.http_sd_configs).toEqual([{ url: 'https://blackbox-exporter.monitoring.svc:9115/sd/web', tls_config: web.tls_config, basic_auth: web.basic_auth }]);
    expect(web.tls_config).toMatchObject({ server_name: 'blackbox-exporter.monitoring.svc' });
    expect(web.basic_auth).toMatchObject({ username: 'prometheus' });
  });

  it("gives Alloy a discovery.http of each job's /sd/ in place of its targets", () => {
    const { chart } = synth(spec({ chart: 'alloy', targets: 'http_sd', remoteWrite: { url: 'https://mimir.example.com/api/v1/push' } }, undefined, 10));
    const content = chart.probekit.agentValues.values.alloy.configMap.content as string;
    expect(content).not.toMatch(/site-0/);
    expect(content).toContain('discovery.http "probekit_web" {\n  url = "http://blackbox-exporter.monitoring.svc:9115/sd/web"\n}');
    expect(content).toContain('targets = discovery.http.probekit_web.targets');
  });

  it("changes the pods' config checksum when a target changes, and leaves the exporter without the flag when inline", () => {
    const checksum = (input: SpecInput) => find(synth(input).manifests, 'Deployment').spec.template.metadata.annotations['probekit.io/config-checksum'];
    const before = spec({ chart: 'prometheus', targets: 'http_sd' }, undefined, 10);
    const after = { ...before, jobs: [before.jobs[0], { ...before.jobs[1], targets: ['db-3.example.com:5432'] }] };
    expect(checksum(after)).not.toEqual(checksum(before));
    const inline = synth(spec({ chart: 'prometheus' }, undefined, 10)).manifests;
    expect(find(inline, 'Deployment').spec.template.spec.containers[0].args.join(' ')).not.toContain('--sd.targets-dir');
    expect(inline.filter((object) => object.metadata.name.includes('-targets-'))).toEqual([]);
  });

  it('is refused with k8s-monitoring, whose Probe objects carry their targets', () => {
    expect(problemsOf(() => parseSpec(spec({ chart: 'k8s-monitoring', targets: 'http_sd' }, undefined, 1)))).toEqual([
      expect.stringMatching(/^agent\.targets: is http_sd, but k8s-monitoring's Alloy scrapes the Operator's Probe objects/),
    ]);
  });
});

describe('the size guard (agent.targets: inline)', () => {
  it('stops synth for values past what a Helm release holds, naming their size and agent.targets: http_sd', () => {
    const { chart } = synth(spec({ chart: 'prometheus' }, undefined, 25_000));
    expect(problemsOf(() => chart.probekit.agentValues.toYaml())).toEqual([
      expect.stringMatching(/^agent\.targets: the agent values carry every target: 1\.\d\d MB of scrape jobs, .*held to 1 MiB .*helm upgrade would fail: set agent\.targets: http_sd/),
    ]);
  });

  it('warns past half of it, and says nothing below', () => {
    const half = synth(spec({ chart: 'prometheus' }, undefined, 12_000)).chart.probekit.agentValues;
    half.toYaml();
    expect(half.sizeWarning).toMatch(/^the agent values carry every target: 0\.\d\d MB .*past half of it: set agent\.targets: http_sd/);
    const small = synth(spec({ chart: 'prometheus' }, undefined, 100)).chart.probekit.agentValues;
    small.toYaml();
    expect(small.sizeWarning).toBeUndefined();
  });
});

describe('agent.shards', () => {
  it('writes a values file per shard for Prometheus, each job keeping its three rules and then its hashmod share of the targets', () => {
    const { chart } = synth(spec({ chart: 'prometheus', targets: 'http_sd', shards: 2 }, undefined, 10));
    const files = chart.probekit.agentValues.files();
    expect(files.map((file) => file.fileName)).toEqual(['probes.agent-values.shard-0.yaml', 'probes.agent-values.shard-1.yaml']);
    const address = 'blackbox-exporter.monitoring.svc:9115';
    files.forEach(({ text }, index) => {
      expect(text).toMatch(new RegExp(`^# Shard ${index} of 2 \\(agent\\.shards\\)`));
      const [web] = jobsOf(parse(text) as Record<string, any>);
      expect(web.relabel_configs).toEqual([
        ...relabelRules(address),
        { source_labels: ['__param_target'], modulus: 2, target_label: '__tmp_hash', action: 'hashmod' },
        { source_labels: ['__tmp_hash'], regex: String(index), action: 'keep' },
      ]);
    });
  });

  it('gives Alloy clustered replicas instead, and refuses a count out of range or k8s-monitoring', () => {
    const { chart } = synth(spec({ chart: 'alloy', shards: 3, remoteWrite: { url: 'https://mimir.example.com/api/v1/push' } }, undefined, 10));
    expect(chart.probekit.agentValues.files().map((file) => file.fileName)).toEqual(['probes.agent-values.yaml']);
    const values = chart.probekit.agentValues.values;
    expect(values.alloy.clustering).toEqual({ enabled: true });
    expect(values.controller.replicas).toBe(3);
    expect(values.alloy.configMap.content).not.toContain('hashmod');
    expect(problemsOf(() => parseSpec(spec({ shards: 0 }, undefined, 1)))).toEqual(['agent.shards: 0 must be a whole number from 1 to 64']);
    expect(problemsOf(() => parseSpec(spec({ chart: 'k8s-monitoring', shards: 2 }, undefined, 1)))).toEqual([expect.stringMatching(/^agent\.shards: is for agents whose values carry scrape jobs/)]);
  });
});

describe('synthesize (the Pulumi program installs one agent release per cluster)', () => {
  it('refuses shards that need a release each, and values too large for a release', () => {
    expect(problemsOf(() => synthesize(parseSpec(spec({ chart: 'prometheus', targets: 'http_sd', shards: 2 }, undefined, 1))))).toEqual([
      expect.stringMatching(/^agent\.shards: is 2, which writes a values file per shard for the prometheus chart, each an agent release of its own; synthesize installs one release/),
    ]);
    expect(synthesize(parseSpec(spec({ chart: 'alloy', shards: 2, remoteWrite: { url: 'https://mimir.example.com/api/v1/push' } }, undefined, 1))).agentValues.alloy.clustering).toEqual({
      enabled: true,
    });
    expect(problemsOf(() => synthesize(parseSpec(spec({ chart: 'prometheus' }, undefined, 25_000))))).toEqual([expect.stringMatching(/^agent\.targets: the agent values carry every target/)]);
  });
});
