/** AgentValues alone: the agent chart's values with the scrape jobs, and the file they are written to. */
import { App, Chart } from 'cdk8s';
import { parse } from 'yaml';
import { AgentValues } from '../../src/cdk8s';
import type { ScrapeJob } from '../../src/model';

const job: ScrapeJob = { name: 'web', module: 'http_2xx', targets: ['https://example.com'], scrapeInterval: '30s', scrapeTimeout: '30s', labels: {} };

function agentValues(props: Partial<ConstructorParameters<typeof AgentValues>[2]> = {}, chartId = 'probes'): AgentValues {
  return new AgentValues(new Chart(new App(), chartId), 'agent', { exporterAddress: 'bb.probes.svc:9115', ...props });
}

describe('AgentValues', () => {
  it('holds the jobs given and added, scraping the exporter address, under <chartKey>.extraScrapeConfigs', () => {
    const agent = agentValues({ jobs: [job] });
    agent.addScrapeJob({ ...job, name: 'api', targets: ['https://api.example.com'] });
    const configs = agent.values.agent!.extraScrapeConfigs!;
    expect(configs.map((config) => config.job_name)).toEqual(['web', 'api', 'probekit-exporter']);
    expect(configs.slice(0, 2).map((config) => config.relabel_configs![2])).toEqual([
      { target_label: '__address__', replacement: 'bb.probes.svc:9115' },
      { target_label: '__address__', replacement: 'bb.probes.svc:9115' },
    ]);
    expect(agent.values['blackbox-exporter']).toEqual({ enabled: true });
  });

  it('takes the chart keys, and leaves the exporter section out when told to', () => {
    const agent = agentValues({ chartKey: 'k8s-monitoring', exporterKey: 'prometheus-blackbox-exporter', enableExporter: false, jobs: [job] });
    expect(Object.keys(agent.values)).toEqual(['k8s-monitoring']);
  });

  it('is written as <chart>.agent-values.yaml, YAML of its values', () => {
    const agent = agentValues({ jobs: [job] }, 'prod');
    expect(agent.fileName).toBe('prod.agent-values.yaml');
    expect(parse(agent.toYaml())).toEqual(agent.values);
  });

  it('finds every AgentValues of a tree', () => {
    const app = new App();
    const first = new AgentValues(new Chart(app, 'a'), 'agent', { exporterAddress: 'x:9115' });
    const second = new AgentValues(new Chart(app, 'b'), 'agent', { exporterAddress: 'y:9115' });
    expect(AgentValues.all(app)).toEqual([first, second]);
  });
});
