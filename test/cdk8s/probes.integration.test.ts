/**
 * Probes alone: a Probe per job through the exporter's address, and the ServiceMonitor of the exporter's metrics; the
 * jobs read and refused as a spec's jobs are, in the spec's words.
 */
import { App, Chart, Testing } from 'cdk8s';
import { BlackboxExporter, Probes } from '../../src/cdk8s';
import { parseSpec, type JobInput } from '../../src/model';
import { fullEnv, fullSpec } from '../fixtures/specs';
import { operatorSchemaProblems } from '../support/operator-schema';
import { problemsOf } from '../support/problems';

const spec = parseSpec(fullSpec, { env: fullEnv });
const web = { name: 'web', module: 'http_2xx', targets: ['https://example.com'] } satisfies JobInput;

/** Probes beside an exporter with the spec's modules. */
function probesIn(jobs: readonly JobInput[] = []): { chart: Chart; exporter: BlackboxExporter; probes: Probes } {
  const chart = new Chart(Testing.app(), 'probes', { namespace: 'observability' });
  const exporter = new BlackboxExporter(chart, 'exporter', { modules: { http_2xx: { preset: 'http_2xx' } } });
  return { chart, exporter, probes: new Probes(chart, 'probes', { exporter, jobs }) };
}

describe('Probes', () => {
  it('one Probe per job added, each validated by the Operator schema, and one ServiceMonitor, in the exporter namespace', async () => {
    const app = new App();
    const exporter = new BlackboxExporter(new Chart(app, 'exporter', { namespace: 'observability' }), 'exporter', { serviceName: 'probe-exporter', modules: spec.modules, env: fullEnv });
    const chart = new Chart(app, 'probes');
    const probes = new Probes(chart, 'probes', { exporter, jobs: spec.jobs.slice(0, 2) });
    probes.addJob(spec.jobs[2]);
    const objects = chart.toJson();
    expect(objects.map((object) => object.metadata.namespace)).toEqual(objects.map(() => 'observability'));
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual(['ServiceMonitor/probe-exporter', 'Probe/websites', 'Probe/api-with-token', 'Probe/api-post']);
    expect(objects[1].spec.prober.url).toBe('probe-exporter.observability.svc:9115');
    expect(await operatorSchemaProblems(objects)).toEqual(objects.map(() => undefined));
  });

  it("a job written as a spec's, with the spec's defaults", () => {
    const { chart, probes } = probesIn();
    probes.addJob({ module: 'http_2xx', targets: ['https://example.com'], scrapeInterval: '15s' });
    expect(Testing.synth(chart).find((object) => object.kind === 'Probe')!.spec).toMatchObject({ jobName: 'blackbox-exporter', interval: '15s', scrapeTimeout: '15s' });
  });
});

describe('Probes refuses, in the words a spec file gets', () => {
  const specProblems = (jobs: JobInput[]) => problemsOf(() => parseSpec({ modules: { http_2xx: { preset: 'http_2xx' } }, jobs, operator: {} }));

  it.each<[string, JobInput]>([
    ['a target that fits no prober', { ...web, targets: ['not a target at all'] }],
    ['a timeout longer than the interval', { ...web, scrapeInterval: '10s', scrapeTimeout: '1h' }],
    ['a target listed twice', { ...web, targets: ['https://example.com', 'https://example.com'] }],
  ])('%s, at the call, naming the construct', (_name, input) => {
    const { probes } = probesIn();
    expect(problemsOf(() => probes.addJob(input))).toEqual(specProblems([input]));
    expect(() => probes.addJob(input)).toThrow(/^probes\/probes: jobs\[0\]\./);
  });

  it('a second job of the same object name, which would overwrite the first', () => {
    const { probes } = probesIn([web]);
    const second = { ...web, name: 'Web', targets: ['https://other.example'] };
    expect(problemsOf(() => probes.addJob(second))).toEqual(specProblems([web, second]));
  });

  it('a module the exporter does not have, at synth, naming the construct; one added before synth is found', () => {
    const { chart, exporter } = probesIn([{ name: 'ping', module: 'ping', targets: ['example.com'] }]);
    expect(() => Testing.synth(chart)).toThrow('probes/probes: jobs[0].module: module "ping" is not defined; use one of: http_2xx, or define it under modules');
    exporter.addModule('ping', { prober: 'icmp' });
    expect(Testing.synth(chart).find((object) => object.kind === 'Probe')!.spec.module).toBe('ping');
  });
});
