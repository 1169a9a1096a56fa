/** The generic agent chart's values: the spec's layout, and the chart's exporter section said explicitly. */
import { genericChartValues } from '../../../src/render/agent-charts/generic';
import { GUARDED, scrapeConfigs } from '../../fixtures/agent-charts';
import { probekitFilesNamed } from '../../support/agent-pod';
import { contractProblems } from '../../support/chart-contracts';
import { genericChartContract } from '../../support/chart-contracts/generic';

const agent = { chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false } as const;

describe('values for the generic agent chart', () => {
  it("put the jobs under <chartKey>.extraScrapeConfigs and switch the chart's exporter off, saying so", () => {
    const { values, notes } = genericChartValues(agent, scrapeConfigs(), {}, 'observability', 'probekit.agent-values.yaml');
    expect(contractProblems(genericChartContract('agent', 'blackbox-exporter'), values)).toEqual([]);
    expect(values).toEqual({ agent: { extraScrapeConfigs: scrapeConfigs() }, 'blackbox-exporter': { enabled: false } });
    expect(notes[0]).toMatch(/blackbox-exporter disabled \(the jobs scrape probekit's exporter\)/);
  });

  it("switch the chart's exporter on only when asked, and say it runs beside probekit's", () => {
    const { values, notes } = genericChartValues({ ...agent, enableExporter: true }, scrapeConfigs(), {}, 'observability', 'probekit.agent-values.yaml');
    expect(values['blackbox-exporter']).toEqual({ enabled: true });
    expect(notes[0]).toMatch(/enabled \(it runs beside probekit's, which the jobs scrape\)/);
  });

  it("say where the agent's pod must mount the Secret keys the jobs read, when the exporter asks for https and a password", () => {
    const { notes } = genericChartValues(agent, scrapeConfigs(GUARDED), GUARDED, 'observability', 'probekit.agent-values.yaml');
    expect(notes).toContain(
      "Mount into the agent's pod (the chart's extra volumes) the Secret keys the jobs read: ca.crt of probe-exporter-tls in /etc/probekit/exporter-tls/; tls.crt, tls.key of agent-client-tls in /etc/probekit/agent-tls/; password of probe-exporter-auth in /etc/probekit/exporter-auth/.",
    );
    const named = probekitFilesNamed(JSON.stringify(scrapeConfigs(GUARDED)));
    expect(named.sort()).toEqual(['/etc/probekit/agent-tls/tls.crt', '/etc/probekit/agent-tls/tls.key', '/etc/probekit/exporter-auth/password', '/etc/probekit/exporter-tls/ca.crt']);
  });

  it('would be refused by the contract without the exporter section (the check is real)', () => {
    expect(contractProblems(genericChartContract('agent', 'blackbox-exporter'), { agent: { extraScrapeConfigs: [] } })).toEqual(["/: must have required property 'blackbox-exporter'"]);
  });
});
