import { parseSpec } from '../../src/model';
import { renderAgentValues, renderExporterScrapeJob, renderScrapeJobs } from '../../src/render';
import { fullEnv, fullSpec } from '../fixtures/specs';

const spec = parseSpec(fullSpec, { env: fullEnv });

describe("the agent chart's values", () => {
  it('puts the jobs under <chartKey>.extraScrapeConfigs and enables the exporter section', () => {
    const values = renderAgentValues(spec);
    expect(Object.keys(values)).toEqual(['k8s-monitoring', 'prometheus-blackbox-exporter']);
    expect(values['k8s-monitoring'].extraScrapeConfigs).toEqual([...renderScrapeJobs(spec), renderExporterScrapeJob('probe-exporter.observability.svc:9115')]);
    expect(values['prometheus-blackbox-exporter']).toEqual({ enabled: true });
  });

  it('carries no scrape job when Probe objects replace them (agent.scrapeJobs: false)', () => {
    const values = renderAgentValues(parseSpec({ ...fullSpec, agent: { ...fullSpec.agent, scrapeJobs: false }, operator: {} }, { env: fullEnv }));
    expect(values['k8s-monitoring'].extraScrapeConfigs).toEqual([]);
  });

  it('leaves the exporter section out when told to', () => {
    const values = renderAgentValues(parseSpec({ ...fullSpec, agent: { enableExporter: false } }, { env: fullEnv }));
    expect(Object.keys(values)).toEqual(['agent']);
  });
});
