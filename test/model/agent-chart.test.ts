/**
 * agent.chart in a spec: each chart's settings and defaults, and the refusals of settings a chart does not have,
 * in the words AgentValues' props get too (test/cdk8s/agent-values.test.ts).
 */
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { parseSpec, type AgentInput, type SpecInput } from '../../src/model';
import { renderExporterScrapeJob, renderScrapeJobs } from '../../src/render';
import { agentValuesText, renderAgentChartValues } from '../../src/render/agent-charts';
import { renderedByTpl } from '../support/helm';
import { hostileText } from '../support/hostile-text';
import { problemsOf } from '../support/problems';

const withAgent = (agent: AgentInput, more: Partial<SpecInput> = {}): SpecInput => ({
  modules: { http_2xx: { preset: 'http_2xx' } },
  jobs: [{ module: 'http_2xx', targets: ['https://example.com'] }],
  agent,
  ...more,
});

describe('agent.chart', () => {
  it("is generic unless given, with the chart's exporter section off: probekit's exporter is the one the jobs scrape", () => {
    expect(parseSpec(withAgent({})).agent).toEqual({ chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false, scrapeJobs: true, targets: 'inline', shards: 1 });
    expect(parseSpec(withAgent({ chartKey: 'k8s-monitoring', exporterKey: 'prometheus-blackbox-exporter', enableExporter: true })).agent).toMatchObject({ enableExporter: true });
  });

  it('takes each chart by its name, alloy with the remote_write its scrapes forward to', () => {
    expect(['prometheus', 'victoria-metrics-agent'].map((chart) => parseSpec(withAgent({ chart: chart as AgentInput['chart'] })).agent)).toEqual([
      { chart: 'prometheus', scrapeJobs: true, targets: 'inline', shards: 1 },
      { chart: 'victoria-metrics-agent', scrapeJobs: true, targets: 'inline', shards: 1 },
    ]);
    expect(parseSpec(withAgent({ chart: 'alloy', remoteWrite: { url: 'https://mimir.example.com/api/v1/push' } })).agent).toEqual({
      chart: 'alloy',
      remoteWrite: { name: 'probekit', url: 'https://mimir.example.com/api/v1/push' },
      scrapeJobs: true,
      targets: 'inline',
      shards: 1,
    });
    expect(parseSpec(withAgent({ chart: 'alloy', remoteWrite: { name: 'default' } })).agent).toEqual({
      chart: 'alloy',
      remoteWrite: { name: 'default' },
      scrapeJobs: true,
      targets: 'inline',
      shards: 1,
    });
  });

  it('with k8s-monitoring: Probe objects without operator, and values without scrape jobs', () => {
    const spec = parseSpec(withAgent({ chart: 'k8s-monitoring' }));
    expect(spec.agent).toEqual({ chart: 'k8s-monitoring', scrapeJobs: false, targets: 'inline', shards: 1 });
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

  /** Hostile text, and text with one of the fragments that end a YAML comment or key. */
  const anyText = fc.oneof(hostileText(), fc.string({ unit: 'binary', maxLength: 20 }), hostileText(['\r', '\u2028', '\u0085', '\r\n', '{{', ':', '#']));

  it('with the generic chart, refuses every job text holding {{ at its field, and writes every other text as itself (property)', () => {
    fc.assert(
      fc.property(anyText, anyText, (labelValue, query) => {
        const target = `https://example.com/?q=${encodeURIComponent(query).replace(/%7B/g, '{').replace(/%7D/g, '}')}`;
        const input = withAgent({}, { jobs: [{ module: 'http_2xx', targets: [target], labels: { team: labelValue } }] });
        const templated = [target, labelValue].map((text) => text.includes('{{'));
        if (templated.some(Boolean)) {
          const problems = problemsOf(() => parseSpec(input));
          const expected = [templated[0] && 'jobs[0].targets[0].target', templated[1] && 'jobs[0].labels.team'].filter(Boolean);
          expect(problems.map((problem) => problem.split(':')[0])).toEqual(expected);
          for (const problem of problems) expect(problem).toMatch(/holds "\{\{", which the generic agent chart may run as a Go template .* set agent\.chart to the chart that runs the agent/);
          // The charts probekit writes for their tpl take the same texts.
          expect(parseSpec({ ...input, agent: { chart: 'prometheus' } }).jobs[0].labels.team).toBe(labelValue);
          return;
        }
        const spec = parseSpec(input);
        const rendered = renderAgentChartValues({
          agent: spec.agent as Extract<typeof spec.agent, { chart: 'generic' }>,
          scrapeConfigs: [...renderScrapeJobs(spec, 'bb:9115'), renderExporterScrapeJob('bb:9115')],
          access: {},
          exporterNamespace: 'probes',
          file: 'probes.agent-values.yaml',
        });
        const values = parse(agentValuesText(rendered)) as { agent: { extraScrapeConfigs: Array<{ static_configs: Array<{ targets: string[]; labels: Record<string, string> }> }> } };
        expect(Object.keys(values)).toEqual(['agent', 'blackbox-exporter']);
        expect(values.agent.extraScrapeConfigs[0].static_configs[0]).toMatchObject({ targets: [target], labels: { team: labelValue } });
        // A chart that passes the jobs through tpl reads the same texts: no action in them.
        const jobsText = stringify(values.agent.extraScrapeConfigs);
        expect(renderedByTpl(jobsText)).toBe(jobsText);
      }),
    );
  });

  it("refuses a chartKey or exporterKey that is not a plain key, and writes a plain one as the values' only sections (property)", () => {
    fc.assert(
      fc.property(anyText, (key) => {
        const input = withAgent({ chartKey: key });
        if (!/^[A-Za-z0-9_-]+$/.test(key) || key === 'blackbox-exporter') {
          expect(problemsOf(() => parseSpec(input))[0]).toMatch(/^agent\.chartKey: /);
          return;
        }
        const spec = parseSpec(input);
        const rendered = renderAgentChartValues({ agent: spec.agent as Extract<typeof spec.agent, { chart: 'generic' }>, scrapeConfigs: [], access: {}, exporterNamespace: 'probes', file: 'f.yaml' });
        expect(Object.keys(parse(agentValuesText(rendered)) as object)).toEqual([key, 'blackbox-exporter']);
      }),
    );
    expect(problemsOf(() => parseSpec(withAgent({ chartKey: 'agent\nblackbox-exporter:\n  enabled: true', exporterKey: 'a.b' })))).toEqual([
      'agent.chartKey: "agent\\nblackbox-exporter:\\n  enabled: true" is not a key of a chart\'s values; write it as the chart\'s values name the section: letters, digits, - and _, as in agent',
      'agent.exporterKey: "a.b" is not a key of a chart\'s values; write it as the chart\'s values name the section: letters, digits, - and _, as in blackbox-exporter',
    ]);
  });
});
