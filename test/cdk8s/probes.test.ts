/** Probes alone: a Probe per job through the exporter's address, and the ServiceMonitor of the exporter's metrics. */
import { App, Chart } from 'cdk8s';
import { BlackboxExporter, Probes } from '../../src/cdk8s';
import { parseSpec } from '../../src/model';
import { fullEnv, fullSpec } from '../fixtures/specs';
import { operatorSchemaProblems } from '../support/operator-schema';

const spec = parseSpec(fullSpec, { env: fullEnv });

describe('Probes', () => {
  it('one Probe per job added, each validated by the Operator schema, and one ServiceMonitor', async () => {
    const app = new App();
    const exporter = new BlackboxExporter(new Chart(app, 'exporter', { namespace: 'observability' }), 'exporter', { serviceName: 'probe-exporter' });
    const chart = new Chart(app, 'probes');
    const probes = new Probes(chart, 'probes', { exporter, jobs: spec.jobs.slice(0, 2) });
    probes.addJob(spec.jobs[2]);
    const objects = chart.toJson();
    expect(objects.map((object) => object.metadata.namespace)).toEqual(objects.map(() => 'observability'));
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual(['ServiceMonitor/probe-exporter', 'Probe/websites', 'Probe/api-with-token', 'Probe/api-post']);
    expect(objects[1].spec.prober.url).toBe('probe-exporter.observability.svc:9115');
    expect(await operatorSchemaProblems(objects)).toEqual(objects.map(() => undefined));
  });

  it('refuses a second job of the same object name, which would overwrite the first', () => {
    const chart = new Chart(new App(), 'c');
    const probes = new Probes(chart, 'probes', { exporter: new BlackboxExporter(chart, 'exporter'), jobs: [spec.jobs[0]] });
    expect(() => probes.addJob({ ...spec.jobs[1], name: 'Websites' })).toThrow(/probe-websites/);
  });
});
