import { agentValuesFor, renderExporterScrapeJob, renderScrapeJobs } from '../../src/render';
import { parseSpec } from '../../src/model';
import { fullEnv, fullSpec } from '../fixtures/specs';

const spec = parseSpec(fullSpec, { env: fullEnv });
const jobs = [...renderScrapeJobs(spec), renderExporterScrapeJob('probe-exporter.observability.svc:9115')];

describe("the agent chart's values", () => {
  it('puts the jobs under <chartKey>.extraScrapeConfigs and enables the exporter section', () => {
    const values = agentValuesFor(spec.agent, jobs);
    expect(Object.keys(values)).toEqual(['k8s-monitoring', 'prometheus-blackbox-exporter']);
    expect(values['k8s-monitoring'].extraScrapeConfigs).toEqual(jobs);
    expect(values['prometheus-blackbox-exporter']).toEqual({ enabled: true });
  });

  it('leaves the exporter section out when told to', () => {
    const values = agentValuesFor({ ...spec.agent, enableExporter: false }, jobs);
    expect(Object.keys(values)).toEqual(['k8s-monitoring']);
  });
});
