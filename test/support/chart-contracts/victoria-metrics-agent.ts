/**
 * VictoriaMetrics/helm-charts victoria-metrics-agent, chart 0.46.0 (charts/victoria-metrics-agent/values.yaml,
 * templates/configmap.yaml). The chart has no values.schema.json; its values.yaml defaults `extraScrapeConfigs`,
 * `extraVolumes` and `extraVolumeMounts` to empty lists, and the ConfigMap template `concat`s `extraScrapeConfigs`
 * onto `config.scrape_configs`, which needs a list of scrape-config objects (each with its `job_name`); with
 * `config.useTpl` it writes them out with `toYaml` and passes the text through `tpl`.
 */
import { NAMED_LIST, only } from './index';

export const VICTORIA_METRICS_AGENT_CHART_CONTRACT = only(
  {
    config: only({ useTpl: { type: 'boolean' } }),
    extraScrapeConfigs: { type: 'array', items: { type: 'object', required: ['job_name'], properties: { job_name: { type: 'string', minLength: 1 } } } },
    extraVolumes: NAMED_LIST,
    extraVolumeMounts: NAMED_LIST,
  },
  ['extraScrapeConfigs'],
);
