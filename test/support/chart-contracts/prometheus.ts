/**
 * prometheus-community/prometheus, chart 29.27.0 (charts/prometheus/values.schema.json, values.yaml,
 * templates/cm.yaml, templates/deploy.yaml). The chart's schema gives `extraScrapeConfigs` as a string and
 * `server.extraVolumes` / `server.extraVolumeMounts` as arrays; the ConfigMap template appends the string, through
 * `tpl`, under the server's `scrape_configs:` indented by four, so it must be a YAML list of scrape configs (which
 * the tests read back and give to promtool), and the deployment template writes the two arrays into the pod as they
 * are.
 */
import { NAMED_LIST, only } from './index';

export const PROMETHEUS_CHART_CONTRACT = only(
  {
    extraScrapeConfigs: { type: 'string' },
    server: only({ extraVolumes: NAMED_LIST, extraVolumeMounts: NAMED_LIST }, ['extraVolumes', 'extraVolumeMounts']),
  },
  ['extraScrapeConfigs'],
);
