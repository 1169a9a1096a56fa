/** The agent values in each chart's layout, as one call renders them, and the file they are written to. */
import { parse } from 'yaml';
import { AGENT_CHARTS, type AgentChart } from '../../../src/model';
import { agentValuesText, renderAgentChartValues } from '../../../src/render/agent-charts';
import { GUARDED, scrapeConfigs } from '../../fixtures/agent-charts';

const AGENTS: Record<(typeof AGENT_CHARTS)[number], AgentChart> = {
  generic: { chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false },
  prometheus: { chart: 'prometheus' },
  'victoria-metrics-agent': { chart: 'victoria-metrics-agent' },
  alloy: { chart: 'alloy', remoteWrite: { name: 'probekit', url: 'https://mimir.example.com/api/v1/push' } },
  'k8s-monitoring': { chart: 'k8s-monitoring' },
};

describe('renderAgentChartValues', () => {
  const render = (agent: AgentChart) =>
    renderAgentChartValues({ agent, scrapeConfigs: scrapeConfigs(GUARDED), access: GUARDED, exporterNamespace: 'observability', file: 'probekit.agent-values.yaml' });

  it("writes each chart's values under that chart's own top-level keys", () => {
    expect(Object.fromEntries(AGENT_CHARTS.map((chart) => [chart, Object.keys(render(AGENTS[chart]).values)]))).toEqual({
      generic: ['agent', 'blackbox-exporter'],
      prometheus: ['extraScrapeConfigs', 'server'],
      'victoria-metrics-agent': ['config', 'extraScrapeConfigs', 'extraVolumes', 'extraVolumeMounts'],
      alloy: ['alloy', 'controller'],
      'k8s-monitoring': ['prometheusOperatorObjects', 'alloy-metrics'],
    });
  });

  it('writes a file whose header comment says what the values are for and how to install them, and whose YAML is the values', () => {
    for (const chart of AGENT_CHARTS) {
      const rendered = render(AGENTS[chart]);
      const text = agentValuesText(rendered);
      expect(text.startsWith(rendered.notes.map((note) => `# ${note}\n`).join(''))).toBe(true);
      expect(rendered.notes.some((note) => note.startsWith('Install: helm upgrade --install '))).toBe(true);
      expect(parse(text)).toEqual(rendered.values);
    }
  });

  it('names no secret value, only Secrets and the files they become', () => {
    for (const chart of AGENT_CHARTS) expect(agentValuesText(render(AGENTS[chart]))).not.toContain(GUARDED.basicAuth!.passwordHash);
  });
});
