/**
 * agent.chart in a spec: each chart's settings and defaults, and the refusals of settings a chart does not have,
 * in the words AgentValues' props get too (test/cdk8s/agent-values.test.ts).
 */
import { parseSpec, type AgentInput, type SpecInput } from '../../src/model';
import { problemsOf } from '../support/problems';

const withAgent = (agent: AgentInput, more: Partial<SpecInput> = {}): SpecInput => ({
  modules: { http_2xx: { preset: 'http_2xx' } },
  jobs: [{ module: 'http_2xx', targets: ['https://example.com'] }],
  agent,
  ...more,
});

describe('agent.chart', () => {
  it("is generic unless given, with the chart's exporter section off: probekit's exporter is the one the jobs scrape", () => {
    expect(parseSpec(withAgent({})).agent).toEqual({ chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false, scrapeJobs: true });
    expect(parseSpec(withAgent({ chartKey: 'k8s-monitoring', exporterKey: 'prometheus-blackbox-exporter', enableExporter: true })).agent).toMatchObject({ enableExporter: true });
  });

  it('takes each chart by its name, alloy with the remote_write its scrapes forward to', () => {
    expect(['prometheus', 'victoria-metrics-agent'].map((chart) => parseSpec(withAgent({ chart: chart as AgentInput['chart'] })).agent)).toEqual([
      { chart: 'prometheus', scrapeJobs: true },
      { chart: 'victoria-metrics-agent', scrapeJobs: true },
    ]);
    expect(parseSpec(withAgent({ chart: 'alloy', remoteWrite: { url: 'https://mimir.example.com/api/v1/push' } })).agent).toEqual({
      chart: 'alloy',
      remoteWrite: { name: 'probekit', url: 'https://mimir.example.com/api/v1/push' },
      scrapeJobs: true,
    });
    expect(parseSpec(withAgent({ chart: 'alloy', remoteWrite: { name: 'default' } })).agent).toEqual({ chart: 'alloy', remoteWrite: { name: 'default' }, scrapeJobs: true });
  });

  it('with k8s-monitoring: Probe objects without operator, and values without scrape jobs', () => {
    const spec = parseSpec(withAgent({ chart: 'k8s-monitoring' }));
    expect(spec.agent).toEqual({ chart: 'k8s-monitoring', scrapeJobs: false });
    expect(spec.operator).toBeUndefined();
  });

  it("refuses the generic chart's fields with any other chart, naming the field, where that chart reads the jobs, and the fix", () => {
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'prometheus', chartKey: 'agent', exporterKey: 'prometheus-blackbox-exporter', enableExporter: false })))).toEqual(
      ['chartKey', 'exporterKey', 'enableExporter'].map(
        (field) =>
          `agent.${field}: applies to the generic chart only: the prometheus chart reads its jobs from the top-level extraScrapeConfigs and has no exporter section (probekit's exporter is the one the jobs scrape); remove ${field}`,
      ),
    );
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'alloy', remoteWrite: { name: 'default' }, enableExporter: true })))).toEqual([
      "agent.enableExporter: applies to the generic chart only: the alloy chart reads an Alloy configuration (alloy.configMap.content) and has no exporter section (probekit's exporter is the one the jobs scrape); remove enableExporter",
    ]);
  });

  it('refuses remoteWrite except with alloy, and alloy without a component to forward to', () => {
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'victoria-metrics-agent', remoteWrite: { url: 'https://mimir.example.com/push' } })))).toEqual([
      'agent.remoteWrite: applies to the alloy chart only: the victoria-metrics-agent chart sends what it scrapes where its own values say; remove remoteWrite',
    ]);
    const choose =
      'give url (probekit writes a prometheus.remote_write "probekit" for an Alloy release of its own) or name (the label of your own prometheus.remote_write, in the Alloy configuration this one joins)';
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'alloy' })))).toEqual([`agent.remoteWrite: required with chart alloy: ${choose}`]);
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'alloy', remoteWrite: {} })))).toEqual([`agent.remoteWrite: names no component: ${choose}`]);
  });

  it("refuses credentials for a component that is the user's, two ways of signing in, and names Alloy would not take", () => {
    const secret = { name: 'mimir', key: 'password' };
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'alloy', remoteWrite: { name: 'default', basicAuth: { username: 'u', passwordSecret: secret } } })))).toEqual([
      'agent.remoteWrite.basicAuth: applies to the component probekit writes, which needs url; your own component keeps its own credentials: remove basicAuth, or give url',
    ]);
    expect(
      problemsOf(() =>
        parseSpec(withAgent({ chart: 'alloy', remoteWrite: { url: 'https://mimir.example.com/push', basicAuth: { username: 'u', passwordSecret: secret }, bearerTokenSecret: secret } })),
      ),
    ).toEqual(['agent.remoteWrite.bearerTokenSecret: give basicAuth or bearerTokenSecret, not both: an endpoint signs in one way']);
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'alloy', remoteWrite: { name: 'my-remote' } })))).toEqual([
      "agent.remoteWrite.name: must be an Alloy identifier (the component's label): letters, digits and _, not starting with a digit",
    ]);
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'alloy', remoteWrite: { url: 'mimir:9009' } })))[0]).toMatch(/^agent\.remoteWrite\.url: must be an http or https URL/);
  });

  it('refuses a chart it does not know, listing those it does', () => {
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'grafana-agent' as AgentInput['chart'] })))).toEqual([
      'agent.chart: the text "grafana-agent" is not allowed; use one of generic, prometheus, victoria-metrics-agent, alloy, k8s-monitoring',
    ]);
  });

  it("refuses one key for both of the generic chart's sections, and k8s-monitoring with scrape jobs or without Probe objects", () => {
    expect(problemsOf(() => parseSpec(withAgent({ chartKey: 'agent', exporterKey: 'agent' })))).toEqual([
      'agent.exporterKey: "agent" is the key of both the agent\'s section and the exporter\'s; give each a key of its own',
    ]);
    expect(problemsOf(() => parseSpec(withAgent({ chart: 'k8s-monitoring', scrapeJobs: true }, { operator: { probes: false } })))).toEqual([
      "agent.scrapeJobs: is true, but k8s-monitoring's values carry no scrape jobs: its Alloy scrapes the Probe objects; remove scrapeJobs",
      'operator.probes: is false, but agent.chart k8s-monitoring scrapes the Probe objects, so nothing would probe the targets; remove probes: false, or choose another agent.chart',
    ]);
  });
});
