/**
 * AgentValues alone: the agent chart's values with the scrape jobs of one exporter, and the file they are written
 * to; the jobs read and refused as a spec's jobs are, in the spec's words.
 */
import { App, Chart, Testing } from 'cdk8s';
import { parse } from 'yaml';
import { AgentValues, BlackboxExporter, type AgentValuesProps } from '../../src/cdk8s';
import { parseSpec, ProblemsError, type JobInput, type SpecInput } from '../../src/model';
import { problemsOf } from '../support/problems';

const job = { name: 'web', module: 'http_2xx', targets: ['https://example.com'] } satisfies JobInput;

/** AgentValues beside an exporter named bb, with an http_2xx module, in the namespace probes. */
function agentValues(props: Omit<AgentValuesProps, 'exporter'> = {}, chartId = 'probes'): AgentValues {
  const chart = new Chart(new App(), chartId, { namespace: 'probes' });
  const exporter = new BlackboxExporter(chart, 'exporter', { serviceName: 'bb', modules: { http_2xx: { preset: 'http_2xx' } } });
  return new AgentValues(chart, 'agent', { exporter, ...props });
}

/** What a spec with the same module and jobs is refused with. */
function specProblems(jobs: SpecInput['jobs']): string[] {
  return problemsOf(() => parseSpec({ modules: { http_2xx: { preset: 'http_2xx' } }, jobs }));
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

  it("fills a job's defaults as the spec does: name, interval, timeout (the interval when shorter) and labels", () => {
    const agent = agentValues();
    const written = [
      { module: 'http_2xx', targets: ['https://example.com'] },
      { name: 'fast', module: 'http_2xx', targets: ['https://example.com'], scrapeInterval: '15s' },
    ];
    const added = written.map((input) => agent.addScrapeJob(input));
    expect(added).toEqual(parseSpec({ modules: { http_2xx: { preset: 'http_2xx' } }, jobs: written }).jobs);
    expect(added.map(({ name, scrapeInterval, scrapeTimeout, labels }) => ({ name, scrapeInterval, scrapeTimeout, labels }))).toEqual([
      { name: 'blackbox-exporter', scrapeInterval: '30s', scrapeTimeout: '30s', labels: {} },
      { name: 'fast', scrapeInterval: '15s', scrapeTimeout: '15s', labels: {} },
    ]);
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

describe('AgentValues refuses, in the words a spec file gets', () => {
  it.each<[string, JobInput]>([
    ['a target that fits no prober', { ...job, targets: ['https://example.com', 'not a target at all'] }],
    ['a timeout longer than the interval', { ...job, scrapeInterval: '10s', scrapeTimeout: '1h' }],
    ['a target listed twice', { ...job, targets: ['https://a.example', 'https://b.example', 'https://a.example'] }],
    ['a duration without its unit', { ...job, scrapeInterval: '10' }],
    ['a misspelt field', { ...job, modul: 'http_2xx' } as JobInput],
  ])('%s, at the call, naming the construct', (_name, input) => {
    const agent = agentValues();
    expect(problemsOf(() => agent.addScrapeJob(input))).toEqual(specProblems([input]));
    expect(() => agent.addScrapeJob(input)).toThrow(/^probes\/agent: jobs\[0\]\./);
    expect(agent.values.agent!.extraScrapeConfigs!.map((config) => config.job_name)).toEqual(['probekit-exporter']);
  });

  it('a target that fits no prober, with the message of the prober', () => {
    expect(problemsOf(() => agentValues().addScrapeJob({ ...job, targets: ['not a target at all'] }))).toEqual([expect.stringMatching(/^jobs\[0\]\.targets\[0\]: "not a target at all" /)]);
  });

  it('a second job of the same name, which Prometheus would refuse', () => {
    const agent = agentValues({ jobs: [job] });
    expect(problemsOf(() => agent.addScrapeJob({ ...job, targets: ['https://other.example'] }))).toEqual(specProblems([job, { ...job, targets: ['https://other.example'] }]));
  });

  it('a module the exporter does not have, at synth, naming the construct; one added before synth is found', () => {
    const chart = new Chart(Testing.app(), 'probes', { namespace: 'probes' });
    const exporter = new BlackboxExporter(chart, 'exporter', { modules: { http_2xx: { preset: 'http_2xx' } } });
    const agent = new AgentValues(chart, 'agent', { exporter, jobs: [{ name: 'ping', module: 'ping', targets: ['example.com'] }] });
    expect(problemsOf(() => Testing.synth(chart))).toEqual(['jobs[0].module: module "ping" is not defined; use one of: http_2xx, or define it under modules']);
    expect(() => agent.values).toThrow(ProblemsError);
    exporter.addModule('ping', { prober: 'icmp' });
    expect(() => Testing.synth(chart)).not.toThrow();
    expect(agent.values.agent!.extraScrapeConfigs![0].params).toEqual({ module: ['ping'] });
  });

  it('a job whose targets do not fit the prober of a module added after it, at synth', () => {
    const chart = new Chart(Testing.app(), 'probes');
    const exporter = new BlackboxExporter(chart, 'exporter');
    new AgentValues(chart, 'agent', { exporter, jobs: [{ name: 'ping', module: 'ping', targets: ['https://example.com/'] }] });
    exporter.addModule('ping', { prober: 'icmp' });
    expect(() => Testing.synth(chart)).toThrow(/^probes\/agent: jobs\[0\]\.targets\[0\]: "https:\/\/example\.com\/" /);
  });
});
