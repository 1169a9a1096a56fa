/**
 * Which Helm chart runs the agent that scrapes the exporter (`agent.chart`), and what each one needs to be told.
 * The values file is written in that chart's own layout: a chart ignores keys it does not know, so values written
 * for another chart install without a word and scrape nothing.
 */

/** The charts whose values probekit writes, `generic` first (the default). */
export const AGENT_CHARTS = ['generic', 'prometheus', 'victoria-metrics-agent', 'alloy', 'k8s-monitoring'] as const;
export type AgentChartName = (typeof AGENT_CHARTS)[number];

/** A key of a Secret in the agent's namespace. */
export interface SecretKeyRef {
  readonly name: string;
  readonly key: string;
}

/**
 * Where Alloy sends what it scrapes: a `prometheus.remote_write` component, named by its label. With `url`,
 * probekit writes that component (an Alloy release of its own); without, the component is the user's, in the same
 * Alloy configuration. Credentials come from a Secret mounted as a file, never from the values.
 */
export interface AlloyRemoteWrite {
  /** The component's label: `prometheus.remote_write.<name>`. */
  readonly name: string;
  /** The remote-write endpoint; absent when the component is the user's. */
  readonly url?: string;
  /** The endpoint's user name, and the Secret key holding its password. */
  readonly basicAuth?: { readonly username: string; readonly passwordSecret: SecretKeyRef };
  /** The Secret key holding a bearer token for the endpoint. */
  readonly bearerTokenSecret?: SecretKeyRef;
}

/** The generic agent chart: the jobs under `<chartKey>.extraScrapeConfigs`, and its exporter section switched as told. */
export interface GenericAgentChart {
  readonly chart: 'generic';
  readonly chartKey: string;
  readonly exporterKey: string;
  /** Whether the chart's own exporter runs; false unless asked, since probekit's exporter is the one the jobs scrape. */
  readonly enableExporter: boolean;
}

/** The agent's chart and the settings it alone has; every field filled in. */
export type AgentChart =
  | GenericAgentChart
  | { readonly chart: 'prometheus' }
  | { readonly chart: 'victoria-metrics-agent' }
  | { readonly chart: 'alloy'; readonly remoteWrite: AlloyRemoteWrite }
  | { readonly chart: 'k8s-monitoring' };

/** The label probekit gives the `prometheus.remote_write` component it writes when the spec names none. */
export const PROBEKIT_REMOTE_WRITE = 'probekit';

/** Whether the chart scrapes the Operator's Probe objects rather than scrape jobs of its values. */
export function scrapesProbeObjects(agent: Pick<AgentChart, 'chart'>): boolean {
  return agent.chart === 'k8s-monitoring';
}
