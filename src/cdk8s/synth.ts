/**
 * Synthesis in-process: the objects `cdk8s synth` writes, as data. The Pulumi program applies these, so
 * both engines deliver the same objects.
 */
import { App } from 'cdk8s';
import type { Environment, Spec } from '../model';
import type { AgentChartValues } from '../render/agent-values';
import { ProbekitChart } from './probekit';

export interface Synthesized {
  /** Kubernetes objects, in the order of the chart's manifest file. */
  readonly manifests: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Kubernetes objects of every kind, which callers index into
  readonly agentValues: AgentChartValues;
}

export function synthesize(spec: Spec, env: Environment = {}): Synthesized {
  const chart = new ProbekitChart(new App(), 'probekit', { spec, env });
  return { manifests: chart.toJson(), agentValues: chart.probekit.agentValues.values };
}
