/**
 * grafana/alloy, chart 1.11.1, Alloy v1.18.1 (operations/helm/charts/alloy/values.yaml, templates/configmap.yaml,
 * templates/containers/_agent.yaml, templates/controllers/_pod.yaml). The chart has no values.schema.json; its
 * values.yaml defaults `alloy.configMap.content` to a string (put through `tpl` into the ConfigMap as the only
 * configuration file, /etc/alloy/config.alloy), `alloy.clustering.enabled` to false (true: the replicas form one cluster, and the scrapes that opt into clustering share their targets), `alloy.mounts.extra` and `controller.volumes.extra` to lists written
 * into the pod as they are, `controller.replicas` to a number, and says `controller.type` must be one of daemonset,
 * deployment or statefulset.
 */
import { NAMED_LIST, only } from './index';

export const ALLOY_CHART_CONTRACT = only(
  {
    alloy: only(
      { configMap: only({ content: { type: 'string', minLength: 1 } }, ['content']), mounts: only({ extra: NAMED_LIST }, ['extra']), clustering: only({ enabled: { type: 'boolean' } }, ['enabled']) },
      ['configMap'],
    ),
    controller: only({
      type: { enum: ['daemonset', 'deployment', 'statefulset'] },
      replicas: { type: 'integer', minimum: 0 },
      volumes: only({ extra: NAMED_LIST }, ['extra']),
    }),
  },
  ['alloy'],
);
