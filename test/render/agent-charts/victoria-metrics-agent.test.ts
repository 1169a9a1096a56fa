/** VictoriaMetrics' agent chart's values: the chart's contract, the jobs as its list, the Secret files mounted. */
import { victoriaMetricsAgentChartValues } from '../../../src/render/agent-charts/victoria-metrics-agent';
import { GUARDED, scrapeConfigs } from '../../fixtures/agent-charts';
import { mountedFiles, probekitFilesNamed, validateAgentPod } from '../../support/agent-pod';
import { contractProblems } from '../../support/chart-contracts';
import { VICTORIA_METRICS_AGENT_CHART_CONTRACT } from '../../support/chart-contracts/victoria-metrics-agent';

describe('values for vm/victoria-metrics-agent', () => {
  it("keep the chart's contract: the jobs as the top-level extraScrapeConfigs list", () => {
    const { values, notes } = victoriaMetricsAgentChartValues(scrapeConfigs(), {}, 'observability', 'probekit.agent-values.yaml');
    expect(contractProblems(VICTORIA_METRICS_AGENT_CHART_CONTRACT, values)).toEqual([]);
    expect(values).toEqual({ config: { useTpl: true }, extraScrapeConfigs: scrapeConfigs() });
    expect(notes).toContain('Install: helm upgrade --install vmagent vm/victoria-metrics-agent -n <namespace> -f <your values> -f probekit.agent-values.yaml');
  });

  it('would be refused by the contract as text or under an agent section (the check is real)', () => {
    expect(contractProblems(VICTORIA_METRICS_AGENT_CHART_CONTRACT, { extraScrapeConfigs: '- job_name: x' })).toEqual(['/extraScrapeConfigs: must be array']);
    expect(contractProblems(VICTORIA_METRICS_AGENT_CHART_CONTRACT, { agent: { extraScrapeConfigs: [] } })).toEqual([
      "/: must have required property 'extraScrapeConfigs'",
      '/: must NOT have additional properties (agent)',
    ]);
  });

  it('mounts exactly the Secret keys the jobs read, where they read them, and Kubernetes takes the pod', () => {
    const { values } = victoriaMetricsAgentChartValues(scrapeConfigs(GUARDED), GUARDED, 'observability', 'probekit.agent-values.yaml');
    expect(contractProblems(VICTORIA_METRICS_AGENT_CHART_CONTRACT, values)).toEqual([]);
    expect(() => validateAgentPod(values.extraVolumes!, values.extraVolumeMounts!)).not.toThrow();
    expect(probekitFilesNamed(JSON.stringify(values.extraScrapeConfigs)).sort()).toEqual([...mountedFiles(values.extraVolumes!, values.extraVolumeMounts!).keys()].sort());
  });
});
