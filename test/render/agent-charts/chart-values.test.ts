/**
 * Values a chart passes through Helm's `tpl` (the Prometheus chart's extraScrapeConfigs text, the Alloy chart's
 * configuration, the VictoriaMetrics agent's scrape configs with config.useTpl) read back as the chart reads them:
 * hostile targets, labels and job names come out as written, and no action of theirs runs.
 */
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import type { ScrapeConfig } from '../../../src/render';
import { alloyChartValues, renderAlloyConfig } from '../../../src/render/agent-charts/alloy';
import { agentValuesText } from '../../../src/render/agent-charts/chart-values';
import { prometheusChartValues } from '../../../src/render/agent-charts/prometheus';
import { victoriaMetricsAgentChartValues } from '../../../src/render/agent-charts/victoria-metrics-agent';
import { scrapeConfigs } from '../../fixtures/agent-charts';
import { renderedByTpl } from '../../support/helm';
import { hostileText, samples, templateText } from '../../support/hostile-text';

const FILE = 'probekit.agent-values.yaml';

/** Jobs whose names, targets and label values hold hostile text, each a `{{` among it. */
const hostileJobs: ScrapeConfig[] = samples(fc.tuple(templateText, fc.array(hostileText(), { minLength: 1, maxLength: 4 }), templateText), 60).map(([name, targets, label], index) => {
  const [job] = scrapeConfigs();
  return { ...job, job_name: `${name}-${index}`, static_configs: [{ targets: [...targets, `https://example.com/${name}`], labels: { ...job.static_configs![0].labels, note: label } }] };
});

describe('values a chart passes through tpl', () => {
  it('prometheus: the extraScrapeConfigs text reads back as the jobs', () => {
    const { values } = prometheusChartValues(hostileJobs, {}, 'observability', FILE);
    expect(parse(renderedByTpl(values.extraScrapeConfigs))).toEqual(hostileJobs);
  });

  it('victoria-metrics-agent: the jobs, written out by the chart and passed through tpl (config.useTpl, which the values set), read back as the jobs', () => {
    const { values } = victoriaMetricsAgentChartValues(hostileJobs, {}, 'observability', FILE);
    expect(values.config).toEqual({ useTpl: true });
    // The chart's toYaml, in both of the quoting styles a YAML writer may choose for a text.
    for (const defaultStringType of ['PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'] as const) {
      const written = stringify(values.extraScrapeConfigs, { lineWidth: 0, defaultStringType, defaultKeyType: 'PLAIN' });
      expect(parse(renderedByTpl(written))).toEqual(hostileJobs);
    }
  });

  it('alloy: the configuration reads back as the one rendered from the jobs', () => {
    const remoteWrite = { name: 'probekit', url: 'https://mimir.example.com/api/v1/push' };
    const { values } = alloyChartValues(hostileJobs, remoteWrite, {}, 'observability', FILE);
    expect(renderedByTpl(values.alloy.configMap.content)).toBe(renderAlloyConfig(hostileJobs, remoteWrite));
  });
});

describe('the values file', () => {
  it('comments out every line of a note, whatever line break YAML would read in it, so a name quoted in a note writes no values', () => {
    fc.assert(
      fc.property(hostileText(['\n', '\r', '\r\n', '\u0085', '\u2028', '\u2029', 'enabled: true', '#', ': ']), (name) => {
        const text = agentValuesText({ values: { agent: { extraScrapeConfigs: [] } }, notes: [`Values for the agent chart: the scrape jobs under ${name}.extraScrapeConfigs`] });
        expect(parse(text)).toEqual({ agent: { extraScrapeConfigs: [] } });
        expect(text.split('\n').filter((line) => !line.startsWith('# '))).toEqual(['agent:', '  extraScrapeConfigs: []', '']);
      }),
    );
  });
});
