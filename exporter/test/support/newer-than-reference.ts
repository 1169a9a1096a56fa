/**
 * What blackbox_exporter 0.24 to 0.28 added to a probe's metrics, which ours returns and the reference
 * (Debian's 0.23) does not: taken out of our samples before the two are compared, so that the differential
 * tests check everything 0.23 has while ours matches 0.28.
 */
import type { Sample } from '../../loopback/metrics-text';

/** Metrics 0.23 does not have at all. */
const NEWER_METRICS = new Set(['probe_tls_cipher_info', 'probe_failed_due_to_bytes', 'probe_failed_due_to_cel']);

/** Labels 0.23 does not have, by metric: 0.26 added the leaf's serial number. */
const NEWER_LABELS: Readonly<Record<string, readonly string[]>> = { probe_ssl_last_chain_info: ['serialnumber'] };

/** Our samples as 0.23 would return them. */
export function asReference(ours: readonly Sample[]): Sample[] {
  return ours
    .filter((sample) => !NEWER_METRICS.has(sample.name))
    .map((sample) => {
      const dropped = NEWER_LABELS[sample.name];
      if (!dropped) return sample;
      return { ...sample, labels: Object.fromEntries(Object.entries(sample.labels).filter(([name]) => !dropped.includes(name))) };
    });
}

/**
 * The reference's samples as 0.28 would return them: since 0.28 the tcp prober registers
 * probe_failed_due_to_regex only once connected, so a tcp probe that never connected has none.
 */
export function asNewer(reference: readonly Sample[], ours: readonly Sample[]): Sample[] {
  const oursHasRegex = ours.some((sample) => sample.name === 'probe_failed_due_to_regex');
  return reference.filter((sample) => oursHasRegex || sample.name !== 'probe_failed_due_to_regex' || sample.value !== 0);
}
