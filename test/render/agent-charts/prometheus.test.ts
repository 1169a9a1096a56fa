/**
 * The Prometheus community chart's values: the chart's contract, the text read back as the chart reads it (after
 * `tpl`), and the Secret files mounted where the jobs read them. promtool checks the same jobs in
 * test/integration/promtool.integration.test.ts.
 */
import { parse, stringify } from 'yaml';
import { prometheusChartValues, scrapeConfigsText } from '../../../src/render/agent-charts/prometheus';
import { GUARDED, scrapeConfigs } from '../../fixtures/agent-charts';
import { mountedFiles, probekitFilesNamed, validateAgentPod } from '../../support/agent-pod';
import { contractProblems } from '../../support/chart-contracts';
import { PROMETHEUS_CHART_CONTRACT } from '../../support/chart-contracts/prometheus';
import { renderedByTpl } from '../../support/helm';

const FILE = 'probekit.agent-values.yaml';

describe('values for prometheus-community/prometheus', () => {
  it("keep the chart's contract, and its extraScrapeConfigs text is the jobs as a YAML list", () => {
    const { values } = prometheusChartValues(scrapeConfigs(), {}, 'observability', FILE);
    expect(contractProblems(PROMETHEUS_CHART_CONTRACT, values)).toEqual([]);
    expect(typeof values.extraScrapeConfigs).toBe('string');
    expect(parse(renderedByTpl(values.extraScrapeConfigs))).toEqual(scrapeConfigs());
    expect(values.server).toBeUndefined();
  });

  it('would be refused by the contract with the jobs as a list, as the generic chart has them (the check is real)', () => {
    expect(contractProblems(PROMETHEUS_CHART_CONTRACT, { extraScrapeConfigs: scrapeConfigs() })).toEqual(['/extraScrapeConfigs: must be string']);
    expect(contractProblems(PROMETHEUS_CHART_CONTRACT, { extraScrapeConfigs: '', agent: {} })).toEqual(['/: must NOT have additional properties (agent)']);
  });

  it("writes a target's {{ so that the chart's tpl prints it rather than running it", () => {
    const [job] = scrapeConfigs();
    const odd = { ...job, static_configs: [{ targets: ['https://example.com/{{ .Release.Name }}'], labels: { note: '}} {{-' } }] };
    const text = scrapeConfigsText([odd]);
    expect(text).not.toContain('{{ .Release');
    expect(renderedByTpl(text)).toBe(stringify([odd], { lineWidth: 0 }));
  });

  it('writes no text at all without jobs: the chart appends the text after its own jobs, where [] would break its YAML', () => {
    expect(prometheusChartValues([], {}, 'observability', FILE).values.extraScrapeConfigs).toBe('');
  });

  it('mounts, through server.extraVolumes, exactly the Secret keys the jobs read where they read them, and Kubernetes takes the pod', () => {
    const { values, notes } = prometheusChartValues(scrapeConfigs(GUARDED), GUARDED, 'observability', FILE);
    expect(contractProblems(PROMETHEUS_CHART_CONTRACT, values)).toEqual([]);
    const { extraVolumes, extraVolumeMounts } = values.server!;
    expect(() => validateAgentPod(extraVolumes, extraVolumeMounts)).not.toThrow();
    const files = mountedFiles(extraVolumes, extraVolumeMounts);
    expect(probekitFilesNamed(values.extraScrapeConfigs).sort()).toEqual([...files.keys()].sort());
    expect(Object.fromEntries(files)).toEqual({
      '/etc/probekit/exporter-tls/ca.crt': { secretName: 'probe-exporter-tls', key: 'ca.crt' },
      '/etc/probekit/agent-tls/tls.crt': { secretName: 'agent-client-tls', key: 'tls.crt' },
      '/etc/probekit/agent-tls/tls.key': { secretName: 'agent-client-tls', key: 'tls.key' },
      '/etc/probekit/exporter-auth/password': { secretName: 'probe-exporter-auth', key: 'password' },
    });
    expect(notes.join('\n')).toMatch(/Secrets probe-exporter-tls \(ca\.crt\), agent-client-tls \(tls\.crt, tls\.key\), probe-exporter-auth \(password\).*namespace observability/s);
  });

  it("says in its header how to install it beside the release's own values", () => {
    expect(prometheusChartValues(scrapeConfigs(), {}, 'observability', FILE).notes).toContain(
      'Install: helm upgrade --install prometheus prometheus-community/prometheus -n <namespace> -f <your values> -f probekit.agent-values.yaml',
    );
  });
});
