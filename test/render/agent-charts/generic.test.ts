/** The generic agent chart's values: the spec's layout, and the chart's exporter section said explicitly. */
import { genericChartValues } from '../../../src/render/agent-charts/generic';
import { scrapeConfigs } from '../../fixtures/agent-charts';
import { contractProblems } from '../../support/chart-contracts';
import { genericChartContract } from '../../support/chart-contracts/generic';

const agent = { chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false } as const;

describe('values for the generic agent chart', () => {
  it("put the jobs under <chartKey>.extraScrapeConfigs and switch the chart's exporter off, saying so", () => {
    const { values, notes } = genericChartValues(agent, scrapeConfigs(), 'probekit.agent-values.yaml');
    expect(contractProblems(genericChartContract('agent', 'blackbox-exporter'), values)).toEqual([]);
    expect(values).toEqual({ agent: { extraScrapeConfigs: scrapeConfigs() }, 'blackbox-exporter': { enabled: false } });
    expect(notes[0]).toMatch(/blackbox-exporter disabled \(the jobs scrape probekit's exporter\)/);
  });

  it("switch the chart's exporter on only when asked, and say it runs beside probekit's", () => {
    const { values, notes } = genericChartValues({ ...agent, enableExporter: true }, scrapeConfigs(), 'probekit.agent-values.yaml');
    expect(values['blackbox-exporter']).toEqual({ enabled: true });
    expect(notes[0]).toMatch(/enabled \(it runs beside probekit's, which the jobs scrape\)/);
  });

  it('would be refused by the contract without the exporter section (the check is real)', () => {
    expect(contractProblems(genericChartContract('agent', 'blackbox-exporter'), { agent: { extraScrapeConfigs: [] } })).toEqual(["/: must have required property 'blackbox-exporter'"]);
  });
});
