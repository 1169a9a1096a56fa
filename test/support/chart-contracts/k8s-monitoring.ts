/**
 * grafana/k8s-monitoring, chart 2.0.31 (charts/k8s-monitoring/values.schema.json, values.yaml,
 * templates/_validations.tpl, templates/features/_feature_prometheus_operator_obejcts.tpl, and the feature's subchart
 * charts/feature-prometheus-operator-objects/values.schema.json and values.yaml). The chart's schema gives
 * `prometheusOperatorObjects` (enabled: boolean, destinations: unique strings, collector: string) and
 * `alloy-metrics` (an Alloy collector; enabled: boolean); the subchart's gives `probes` and `serviceMonitors` as
 * objects whose `enabled` is a boolean. `cluster.name` is a string there; its templates refuse to render without it,
 * without a metrics destination, or with a feature whose collector is not enabled: INSTALLABLE states those.
 */
import type { AnySchema } from 'ajv';
import { only } from './index';

const ENABLED = only({ enabled: { type: 'boolean' } }, ['enabled']);

export const K8S_MONITORING_CHART_CONTRACT = only(
  {
    prometheusOperatorObjects: only(
      {
        enabled: { type: 'boolean' },
        destinations: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        collector: { type: 'string' },
        probes: ENABLED,
        serviceMonitors: ENABLED,
      },
      ['enabled'],
    ),
    'alloy-metrics': ENABLED,
  },
  ['prometheusOperatorObjects', 'alloy-metrics'],
);

/** What the chart's templates ask of the whole values before they render (the user's part included). */
export const K8S_MONITORING_INSTALLABLE: AnySchema = {
  type: 'object',
  required: ['cluster', 'destinations', 'prometheusOperatorObjects', 'alloy-metrics'],
  properties: {
    cluster: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
    destinations: { type: 'array', minItems: 1, contains: { type: 'object', required: ['type', 'url'], properties: { type: { const: 'prometheus' }, url: { type: 'string', minLength: 1 } } } },
    prometheusOperatorObjects: { type: 'object', required: ['enabled'], properties: { enabled: { const: true } } },
    'alloy-metrics': { type: 'object', required: ['enabled'], properties: { enabled: { const: true } } },
  },
};
