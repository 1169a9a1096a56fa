/** AgentValues alone: the agent chart's values with the scrape jobs of one exporter, and the file they are written to. */
import { App, Chart } from 'cdk8s';
import { parse } from 'yaml';
import { AgentValues, BlackboxExporter, type AgentValuesProps } from '../../src/cdk8s';
import type { ScrapeJob } from '../../src/model';

const job: ScrapeJob = { name: 'web', module: 'http_2xx', targets: ['https://example.com'], scrapeInterval: '30s', scrapeTimeout: '30s', labels: {} };

/** AgentValues beside an exporter named bb in the namespace probes. */
function agentValues(props: Omit<AgentValuesProps, 'exporter'> = {}, chartId = 'probes'): AgentValues {
  const chart = new Chart(new App(), chartId, { namespace: 'probes' });
  const exporter = new BlackboxExporter(chart, 'exporter', { serviceName: 'bb' });
  return new AgentValues(chart, 'agent', { exporter, ...props });
}

describe('AgentValues', () => {
  it("holds the jobs given and added, scraping the exporter's address, under <chartKey>.extraScrapeConfigs", () => {
    const agent = agentValues({ jobs: [job] });
    agent.addScrapeJob({ ...job, name: 'api', targets: ['https://api.example.com'] });
    const configs = agent.values.agent!.extraScrapeConfigs!;
    expect(configs.map((config) => config.job_name)).toEqual(['web', 'api', 'probekit-exporter']);
    expect(configs.slice(0, 2).map((config) => config.relabel_configs![2])).toEqual([
      { target_label: '__address__', replacement: 'bb.probes.svc:9115' },
      { target_label: '__address__', replacement: 'bb.probes.svc:9115' },
    ]);
    expect(configs[2].static_configs).toEqual([{ targets: ['bb.probes.svc:9115'] }]);
    expect(configs.map((config) => config.scheme)).toEqual([undefined, undefined, undefined]);
    expect(agent.values['blackbox-exporter']).toEqual({ enabled: true });
  });

  it("takes the chart keys, and leaves the exporter section out when told to, and the exporter's own job", () => {
    const agent = agentValues({ chartKey: 'k8s-monitoring', exporterKey: 'prometheus-blackbox-exporter', enableExporter: false, jobs: [job], scrapeExporter: false });
    expect(Object.keys(agent.values)).toEqual(['k8s-monitoring']);
    expect(agent.values['k8s-monitoring'].extraScrapeConfigs!.map((config) => config.job_name)).toEqual(['web']);
  });

  it('is written as <chart>.agent-values.yaml, YAML of its values', () => {
    const agent = agentValues({ jobs: [job] }, 'prod');
    expect(agent.fileName).toBe('prod.agent-values.yaml');
    expect(parse(agent.toYaml())).toEqual(agent.values);
  });

  it('finds every AgentValues of a tree', () => {
    const app = new App();
    const [first, second] = ['a', 'b'].map((id) => {
      const chart = new Chart(app, id);
      return new AgentValues(chart, 'agent', { exporter: new BlackboxExporter(chart, 'exporter') });
    });
    expect(AgentValues.all(app)).toEqual([first, second]);
  });
});
