/**
 * AgentValues alone: the agent's values with the scrape jobs of one exporter, in the layout of the chart given, and
 * the file they are written to; the jobs and the chart's settings read and refused as a spec's are, in its words.
 */
import { App, Chart, Testing } from 'cdk8s';
import { parse } from 'yaml';
import { AgentValues, BlackboxExporter, type AgentValuesProps } from '../../src/cdk8s';
import { parseSpec, ProblemsError, type JobInput, type SpecInput } from '../../src/model';
import type { ScrapeConfig } from '../../src/render';
import { problemsOf } from '../support/problems';

const job = { name: 'web', module: 'http_2xx', targets: ['https://example.com'] } satisfies JobInput;

/** AgentValues beside an exporter named bb, with an http_2xx module, in the namespace probes. */
function agentValues(props: Omit<AgentValuesProps, 'exporter'> = {}, chartId = 'probes'): AgentValues {
  const chart = new Chart(new App(), chartId, { namespace: 'probes' });
  const exporter = new BlackboxExporter(chart, 'exporter', { serviceName: 'bb', modules: { http_2xx: { preset: 'http_2xx' } } });
  return new AgentValues(chart, 'agent', { exporter, ...props });
}

/** The generic chart's jobs, under its default key. */
const genericJobs = (agent: AgentValues): ScrapeConfig[] => agent.values.agent.extraScrapeConfigs;
const jobNames = (configs: readonly ScrapeConfig[]) => configs.map((config) => config.job_name);

/** What a spec with the same module and jobs is refused with. */
function specProblems(jobs: SpecInput['jobs']): string[] {
  return problemsOf(() => parseSpec({ modules: { http_2xx: { preset: 'http_2xx' } }, jobs }));
}

describe('AgentValues', () => {
  it("holds the jobs given and added, scraping the exporter's address, under <chartKey>.extraScrapeConfigs, the chart's exporter off", () => {
    const agent = agentValues({ jobs: [job] });
    agent.addScrapeJob({ ...job, name: 'api', targets: ['https://api.example.com'] });
    const configs = genericJobs(agent);
    expect(configs.map((config) => config.job_name)).toEqual(['web', 'api', 'probekit-exporter']);
    expect(configs.slice(0, 2).map((config) => config.relabel_configs![2])).toEqual([
      { target_label: '__address__', replacement: 'bb.probes.svc:9115' },
      { target_label: '__address__', replacement: 'bb.probes.svc:9115' },
    ]);
    expect(configs[2].static_configs).toEqual([{ targets: ['bb.probes.svc:9115'] }]);
    expect(configs.map((config) => config.scheme)).toEqual([undefined, undefined, undefined]);
    expect(agent.values['blackbox-exporter']).toEqual({ enabled: false });
    expect(agent.chart).toEqual({ chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false });
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

  it("takes the chart keys, switches the chart's exporter on when asked, and leaves the exporter's own job out when told to", () => {
    const agent = agentValues({ chartKey: 'k8s-monitoring', exporterKey: 'prometheus-blackbox-exporter', enableExporter: true, jobs: [job], scrapeExporter: false });
    expect(Object.keys(agent.values)).toEqual(['k8s-monitoring', 'prometheus-blackbox-exporter']);
    expect(jobNames(agent.values['k8s-monitoring'].extraScrapeConfigs)).toEqual(['web']);
    expect(agent.values['prometheus-blackbox-exporter']).toEqual({ enabled: true });
  });

  it('writes the jobs in the layout of the chart given', () => {
    expect(jobNames(parse(agentValues({ chart: 'prometheus', jobs: [job] }).values.extraScrapeConfigs))).toEqual(['web', 'probekit-exporter']);
    expect(jobNames(agentValues({ chart: 'victoria-metrics-agent', jobs: [job] }).values.extraScrapeConfigs)).toEqual(['web', 'probekit-exporter']);
    const alloy = agentValues({ chart: 'alloy', remoteWrite: { url: 'https://mimir.example.com/api/v1/push' }, jobs: [job] });
    expect(alloy.values.alloy.configMap.content).toMatch(/prometheus\.scrape "probekit_web"[\s\S]*prometheus\.scrape "probekit_exporter"[\s\S]*prometheus\.remote_write "probekit"/);
    expect(agentValues({ chart: 'k8s-monitoring' }).values).toEqual({
      prometheusOperatorObjects: { enabled: true, probes: { enabled: true }, serviceMonitors: { enabled: true } },
      'alloy-metrics': { enabled: true },
    });
  });

  it('is written as <chart>.agent-values.yaml: a header saying what it is for and how to install it, then YAML of its values', () => {
    const agent = agentValues({ chart: 'victoria-metrics-agent', jobs: [job] }, 'prod');
    expect(agent.fileName).toBe('prod.agent-values.yaml');
    const text = agent.toYaml();
    expect(text.split('\n')[0]).toBe('# Values for the vm/victoria-metrics-agent chart: the scrape jobs in extraScrapeConfigs, written for config.useTpl: true, which they set.');
    expect(text).toContain('# Install: helm upgrade --install vmagent vm/victoria-metrics-agent -n <namespace> -f <your values> -f prod.agent-values.yaml\n');
    expect(parse(text)).toEqual(agent.values);
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
  it('settings its chart does not have, named after the construct', () => {
    expect(() => agentValues({ chart: 'prometheus', exporterKey: 'prometheus-blackbox-exporter' })).toThrow(ProblemsError);
    expect(problemsOf(() => agentValues({ chart: 'prometheus', exporterKey: 'prometheus-blackbox-exporter' }))).toEqual([
      "exporterKey: applies to the generic chart only: the prometheus chart reads its jobs from the top-level extraScrapeConfigs and has no exporter section (probekit's exporter is the one the jobs scrape); remove exporterKey",
    ]);
    expect(() => agentValues({ chart: 'alloy' })).toThrow(/^probes\/agent: remoteWrite: required with chart alloy/);
  });

  it('scrape jobs with k8s-monitoring, whose Alloy scrapes Probe objects', () => {
    const agent = agentValues({ chart: 'k8s-monitoring' });
    expect(problemsOf(() => agent.addScrapeJob(job))).toEqual([
      "jobs: k8s-monitoring's values carry no scrape jobs, its Alloy scrapes Probe objects: give the job to Probes (new Probes(scope, id, { exporter, jobs }))",
    ]);
  });

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
    expect(jobNames(genericJobs(agent))).toEqual(['probekit-exporter']);
  });

  it('with the generic chart, a job text holding {{, as the spec does; a chart written for its tpl takes it', () => {
    const templated = { ...job, targets: ['https://example.com/?q={{ .Release.Name }}'], labels: { team: 'a{{b' } } satisfies JobInput;
    const agent = agentValues();
    expect(problemsOf(() => agent.addScrapeJob(templated))).toEqual(specProblems([templated]));
    expect(problemsOf(() => agent.addScrapeJob(templated)).map((problem) => problem.split(':')[0])).toEqual(['jobs[0].targets[0].target', 'jobs[0].labels.team']);
    expect(() => agentValues({ jobs: [templated] })).toThrow(/^probes\/agent: jobs\[0\]\.targets\[0\]\.target: holds "\{\{"/);
    expect(agentValues({ chart: 'prometheus', jobs: [templated] }).values.extraScrapeConfigs).toContain('{{ `{` }}{ .Release.Name }}');
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
    expect(genericJobs(agent)[0].params).toEqual({ module: ['ping'] });
  });

  it('a job whose targets do not fit the prober of a module added after it, at synth', () => {
    const chart = new Chart(Testing.app(), 'probes');
    const exporter = new BlackboxExporter(chart, 'exporter');
    new AgentValues(chart, 'agent', { exporter, jobs: [{ name: 'ping', module: 'ping', targets: ['https://example.com/'] }] });
    exporter.addModule('ping', { prober: 'icmp' });
    expect(() => Testing.synth(chart)).toThrow(/^probes\/agent: jobs\[0\]\.targets\[0\]: "https:\/\/example\.com\/" /);
  });
});
