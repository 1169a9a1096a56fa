/** Reading the Prometheus text format in tests and the exporter harness: samples by name and labels. */
import { FAILURE_REASON_METRIC } from '../src/contract/failure-reasons';
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** Value of the one sample named `name` whose labels include `labels`; undefined when absent. */
export function metricValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

/** The distinct metric names, sorted. */
export function metricNames(samples: readonly Sample[]): string[] {
  return [...new Set(samples.map((sample) => sample.name))].sort();
}

/** Metrics of ours that upstream does not have (additive, by design): set aside when the two are compared. */
export const OURS_ONLY: ReadonlySet<string> = new Set([FAILURE_REASON_METRIC.name]);

/** The samples an upstream exporter would also return. */
export function upstreamSamples(samples: readonly Sample[]): Sample[] {
  return samples.filter((sample) => !OURS_ONLY.has(sample.name));
}
