/**
 * Whether agent values with the targets inline fit the agent's Helm release, said before Helm says it.
 *
 * Two caps bind, both Kubernetes' 1 MiB on an object's data (a Secret's, a ConfigMap's):
 *
 * - The chart writes the scrape jobs into the agent's configuration file, one ConfigMap (prometheus.yml, vmagent's
 *   scrape config, Alloy's config.alloy): the jobs as text must fit 1 MiB. This binds first.
 * - Helm stores each release revision in a Secret (its default `secrets` driver): the release (chart, values and the
 *   rendered manifests) as JSON, gzipped at best compression, then base64, under the key `release`. Base64 makes
 *   4 bytes of 3, so the gzipped release must fit 3/4 MiB (786,432 bytes). The release holds the jobs twice: in the
 *   values, and rendered into that ConfigMap in the manifest; it is estimated as twice the gzipped values (the
 *   chart's own templates come on top).
 *
 * Over either cap synth stops; past half of either it warns.
 */
import { gzipSync } from 'node:zlib';

/** Kubernetes' cap on the data of one Secret or ConfigMap: 1 MiB. */
export const OBJECT_DATA_BYTES = 1024 * 1024;

/** The most a release may take gzipped: its base64 (4 bytes for 3) must fit a Secret. */
export const RELEASE_GZIP_BYTES = (OBJECT_DATA_BYTES / 4) * 3;

export interface ValuesSize {
  /** The values as the chart writes the jobs into its ConfigMap: the values file's text, in bytes. */
  readonly configBytes: number;
  /** The release's share that the values make, gzipped as Helm gzips it: twice the gzipped values' JSON. */
  readonly releaseGzipBytes: number;
}

export function valuesSize(values: object, valuesText: string): ValuesSize {
  return { configBytes: Buffer.byteLength(valuesText), releaseGzipBytes: 2 * gzipSync(JSON.stringify(values), { level: 9 }).length };
}

const megabytes = (bytes: number): string => `${(bytes / 1_000_000).toFixed(2)} MB`;

/** What synth says of values of this size: an error over a cap, a warning past half of one, else nothing. */
export function valuesSizeVerdict(size: ValuesSize): { readonly error?: string; readonly warning?: string } {
  const configShare = size.configBytes / OBJECT_DATA_BYTES;
  const releaseShare = size.releaseGzipBytes / RELEASE_GZIP_BYTES;
  const said =
    `the agent values carry every target: ${megabytes(size.configBytes)} of scrape jobs, which the agent's chart writes into one ConfigMap, held to 1 MiB (${OBJECT_DATA_BYTES} bytes) ` +
    `by Kubernetes (${Math.round(configShare * 100)} %), and about ${megabytes(size.releaseGzipBytes)} gzipped in the Helm release, whose Secret holds at most ${RELEASE_GZIP_BYTES} bytes gzipped (${Math.round(releaseShare * 100)} %)`;
  const fix = 'set agent.targets: http_sd, so that the exporter serves the targets at /sd/<job> from ConfigMaps of its own and the values carry none (docs/scale.md)';
  if (configShare > 1 || releaseShare > 1) return { error: `${said}; helm upgrade would fail: ${fix}` };
  if (configShare > 0.5 || releaseShare > 0.5) return { warning: `${said}; past half of it: ${fix} before the spec grows past it` };
  return {};
}
