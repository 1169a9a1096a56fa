/**
 * The scrape config the Prometheus Operator generates for a Probe with static targets, as its generateProbeConfig
 * (pkg/prometheus/promcfg.go) writes it for a Prometheus of one shard, so that a test can run Prometheus with it
 * where no Operator or Kubernetes API server can run. In the Operator's order: the job's name into a temporary
 * label, `job` set to `jobName`, the three blackbox rules (target into `__param_target`, `__param_target` into
 * `instance`, the prober's URL into `__address__`), then its sharding rules, whose `$(SHARD)` the Operator's config
 * reloader replaces with the shard's number (0). It adds the Probe's namespace to the targets' labels.
 */
import type { ProbeObject } from '../../src/render';

export function operatorProbeScrapeConfig(probe: ProbeObject): Record<string, unknown> {
  const { metadata, spec } = probe;
  const { staticConfig } = spec.targets;
  if (staticConfig === undefined) throw new Error(`Probe ${metadata.name}: only a Probe of static targets runs without a cluster`);
  return {
    job_name: `probe/${metadata.namespace}/${metadata.name}`,
    honor_timestamps: true,
    metrics_path: spec.prober.path,
    scrape_interval: spec.interval,
    scrape_timeout: spec.scrapeTimeout,
    params: { module: [spec.module] },
    static_configs: [{ targets: staticConfig.static, labels: { namespace: metadata.namespace, ...staticConfig.labels } }],
    relabel_configs: [
      { source_labels: ['job'], target_label: '__tmp_prometheus_job_name' },
      { target_label: 'job', replacement: spec.jobName },
      { source_labels: ['__address__'], target_label: '__param_target' },
      { source_labels: ['__param_target'], target_label: 'instance' },
      { target_label: '__address__', replacement: spec.prober.url },
      { source_labels: ['__param_target', '__tmp_hash'], target_label: '__tmp_hash', regex: '(.+);', replacement: '$1', action: 'replace' },
      { source_labels: ['__tmp_hash'], target_label: '__tmp_hash', modulus: 1, action: 'hashmod' },
      { source_labels: ['__tmp_hash', '__tmp_disable_sharding'], regex: '0;|.+;.+', action: 'keep' },
    ],
  };
}
