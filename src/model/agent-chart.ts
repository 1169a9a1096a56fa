/**
 * Which Helm chart runs the agent that scrapes the exporter (`agent.chart`), and what each one needs to be told.
 * The values file is written in that chart's own layout: a chart ignores keys it does not know, so values written
 * for another chart install without a word and scrape nothing. The spec's `agent` section and the AgentValues
 * construct's props are read here alike: the same defaults, the same problems in the same words.
 */
import type { FieldPath, Problem } from '@probekit/exporter';
import { DEFAULTS } from './spec';

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
export interface AlloyRemoteWriteInput {
  /** The component's label: `prometheus.remote_write.<name>`. Required without `url`. @default probekit */
  readonly name?: string;
  /** The remote-write endpoint (http or https); set, probekit writes the component. @default - the component is yours */
  readonly url?: string;
  /** The endpoint's user name, and the Secret key (in the agent's namespace) holding its password. @default - none */
  readonly basicAuth?: { readonly username: string; readonly passwordSecret: SecretKeyRef };
  /** The Secret key (in the agent's namespace) holding a bearer token for the endpoint. @default - none */
  readonly bearerTokenSecret?: SecretKeyRef;
}

export type AlloyRemoteWrite = AlloyRemoteWriteInput & { readonly name: string };

/** The chart and its own settings, as a spec's `agent` section or AgentValues' props give them. */
export interface AgentChartInput {
  /** The chart that runs the agent, in whose layout the values are written. @default generic */
  readonly chart?: AgentChartName;
  /** generic only: key of the agent's section in the chart's values. @default agent */
  readonly chartKey?: string;
  /** generic only: key of the chart's exporter section. @default blackbox-exporter */
  readonly exporterKey?: string;
  /**
   * generic only: whether the chart's own exporter runs. Off unless asked: the jobs scrape probekit's exporter, so
   * the chart's would be a second one nobody scrapes. @default false
   */
  readonly enableExporter?: boolean;
  /** alloy only, and required there: the `prometheus.remote_write` the scrapes forward to. */
  readonly remoteWrite?: AlloyRemoteWriteInput;
  /**
   * Where the agent finds the targets: in its values (`inline`), or from the exporter's `/sd/<job>` (`http_sd`), which
   * serves them from target files in the exporter's own ConfigMaps, for specs too large for a Helm release
   * (docs/scale.md). @default inline
   */
  readonly targets?: AgentTargets;
  /**
   * How many agents share the scraping, each a disjoint part of the targets by a hash of the target (Prometheus'
   * `hashmod`): one values file per shard for the Prometheus-configured charts, Alloy's clustering for alloy
   * (docs/scale.md#sharded-agents). @default 1
   */
  readonly shards?: number;
}

/** Where the agent finds the targets (`agent.targets`). */
export const AGENT_TARGETS = ['inline', 'http_sd'] as const;
export type AgentTargets = (typeof AGENT_TARGETS)[number];

/** The most shards probekit writes: each is an agent (a release, or a replica) of its own. */
export const MOST_SHARDS = 64;

/** How many agents share the scraping (`agent.shards`); undefined when `problems` got why not. */
export function agentShardsOf(input: Pick<AgentChartInput, 'chart' | 'shards'>, path: FieldPath, problems: Problem[]): number | undefined {
  const shards = input.shards ?? DEFAULTS.agent.shards;
  const at: FieldPath = [...path, 'shards'];
  if (!Number.isInteger(shards) || shards < 1 || shards > MOST_SHARDS) {
    problems.push({ path: at, message: `${JSON.stringify(shards)} must be a whole number from 1 to ${MOST_SHARDS}` });
    return undefined;
  }
  if (shards > 1 && scrapesProbeObjects({ chart: input.chart ?? DEFAULTS.agent.chart })) {
    problems.push({
      path: at,
      message: "is for agents whose values carry scrape jobs; k8s-monitoring's collectors share Probe objects by their own clustering (alloy-metrics' values): remove shards",
    });
    return undefined;
  }
  return shards;
}

/** Where the scrape jobs' targets travel, read from a spec's `agent` or AgentValues' props; undefined when `problems` got why not. */
export function agentTargetsOf(input: Pick<AgentChartInput, 'chart' | 'targets'>, path: FieldPath, problems: Problem[]): AgentTargets | undefined {
  const targets = input.targets ?? DEFAULTS.agent.targets;
  if (targets === 'http_sd' && scrapesProbeObjects({ chart: input.chart ?? DEFAULTS.agent.chart })) {
    problems.push({
      path: [...path, 'targets'],
      message:
        "is http_sd, but k8s-monitoring's Alloy scrapes the Operator's Probe objects, which carry their targets themselves (a Probe has no HTTP service discovery); remove targets, or choose an agent.chart whose values carry scrape jobs (prometheus, victoria-metrics-agent, alloy, generic)",
    });
    return undefined;
  }
  return targets;
}

/** The generic agent chart: the jobs under `<chartKey>.extraScrapeConfigs`, and its exporter section switched as told. */
export interface GenericAgentChart {
  readonly chart: 'generic';
  readonly chartKey: string;
  readonly exporterKey: string;
  readonly enableExporter: boolean;
}

/** The agent's chart and the settings it alone has; every field filled in. */
export type AgentChart =
  | GenericAgentChart
  | { readonly chart: 'prometheus' }
  | { readonly chart: 'victoria-metrics-agent' }
  | { readonly chart: 'alloy'; readonly remoteWrite: AlloyRemoteWrite }
  | { readonly chart: 'k8s-monitoring' };

/** Whether the chart scrapes the Operator's Probe objects rather than scrape jobs of its values. */
export function scrapesProbeObjects(agent: Pick<AgentChart, 'chart'>): boolean {
  return agent.chart === 'k8s-monitoring';
}

/** Where each chart other than generic reads the jobs from, for the messages refusing generic-only fields. */
const WHERE_JOBS_GO: Readonly<Record<Exclude<AgentChartName, 'generic'>, string>> = {
  prometheus: 'reads its jobs from the top-level extraScrapeConfigs',
  'victoria-metrics-agent': 'reads its jobs from the top-level extraScrapeConfigs',
  alloy: 'reads an Alloy configuration (alloy.configMap.content)',
  'k8s-monitoring': "scrapes the Prometheus Operator's Probe objects",
};

const GENERIC_ONLY = ['chartKey', 'exporterKey', 'enableExporter'] as const;

/**
 * A top-level key of a chart's values as charts name their sections (`agent`, `blackbox-exporter`,
 * `prometheus-blackbox-exporter`): the key is written into the values and named in their header, so a line
 * break, a `:` or a `#` in it would write other values than the user's.
 */
const VALUES_KEY = /^[A-Za-z0-9_-]{1,253}$/;

/**
 * Texts of a job that the generic chart's values carry into the scrape jobs (its targets, its labels, any text of
 * the job) holding `{{`: a chart that passes extraScrapeConfigs through Helm's `tpl` runs it as a Go template
 * action, one that does not writes it as it is, and the generic chart is no chart probekit knows, so no one
 * spelling means the text in both. Job and module names hold no braces already; a `{{` anywhere else is refused
 * for this chart, naming the charts whose values probekit writes for their `tpl`.
 */
export function genericChartTemplateProblems(job: object, path: FieldPath): Problem[] {
  const problems: Problem[] = [];
  const visit = (value: unknown, at: FieldPath): void => {
    if (typeof value === 'string' && value.includes('{{')) {
      problems.push({
        path: at,
        message: `holds "{{", which the generic agent chart may run as a Go template (a chart that passes extraScrapeConfigs through Helm's tpl) or write as it is; remove it, or set agent.chart to the chart that runs the agent (prometheus, victoria-metrics-agent and alloy are written for their tpl)`,
      });
    } else if (Array.isArray(value)) value.forEach((each, index) => visit(each, [...at, index]));
    else if (typeof value === 'object' && value !== null) for (const [key, each] of Object.entries(value)) visit(each, [...at, key]);
  };
  // The job's name and module have rules of their own, which refuse braces, as does a target's module when it names
  // one. A target is reported at its `target` field whether it was written as a string or as an object, so the
  // spec (which reads strings as objects) and AgentValues name it alike.
  for (const [key, value] of Object.entries(job)) {
    if (key === 'name' || key === 'module') continue;
    if (key !== 'targets' || !Array.isArray(value)) {
      visit(value, [...path, key]);
      continue;
    }
    value.forEach((target: unknown, index) => {
      const fields = typeof target === 'string' ? { target } : target;
      if (typeof fields !== 'object' || fields === null) return visit(fields, [...path, key, index]);
      for (const [field, each] of Object.entries(fields)) if (!(field === 'module' && typeof each === 'string')) visit(each, [...path, key, index, field]);
    });
  }
  return problems;
}

/** The chart with its defaults filled in, or undefined when `problems` got what is wrong (at `path`). */
export function agentChartOf(input: AgentChartInput, path: FieldPath, problems: Problem[]): AgentChart | undefined {
  const chart = input.chart ?? DEFAULTS.agent.chart;
  const at = (...field: Array<string | number>): FieldPath => [...path, ...field];
  const found: Problem[] = [];
  if (chart !== 'generic') {
    for (const field of GENERIC_ONLY.filter((name) => input[name] !== undefined)) {
      found.push({
        path: at(field),
        message: `applies to the generic chart only: the ${chart} chart ${WHERE_JOBS_GO[chart]} and has no exporter section (probekit's exporter is the one the jobs scrape); remove ${field}`,
      });
    }
  }
  if (chart !== 'alloy' && input.remoteWrite !== undefined) {
    found.push({ path: at('remoteWrite'), message: `applies to the alloy chart only: the ${chart} chart sends what it scrapes where its own values say; remove remoteWrite` });
  }
  if (chart === 'alloy') found.push(...remoteWriteProblems(input.remoteWrite, at('remoteWrite')));
  const chartKey = input.chartKey ?? DEFAULTS.agent.chartKey;
  const exporterKey = input.exporterKey ?? DEFAULTS.agent.exporterKey;
  for (const field of ['chartKey', 'exporterKey'] as const) {
    const key = input[field];
    if (key !== undefined && !VALUES_KEY.test(key)) {
      found.push({
        path: at(field),
        message: `${JSON.stringify(key)} is not a key of a chart's values; write it as the chart's values name the section: letters, digits, - and _, as in ${DEFAULTS.agent[field]}`,
      });
    }
  }
  if (chart === 'generic' && chartKey === exporterKey) {
    found.push({
      path: at(input.exporterKey === undefined ? 'chartKey' : 'exporterKey'),
      message: `"${exporterKey}" is the key of both the agent's section and the exporter's; give each a key of its own`,
    });
  }
  problems.push(...found);
  if (found.length > 0) return undefined;
  switch (chart) {
    case 'generic':
      return { chart, chartKey, exporterKey, enableExporter: input.enableExporter ?? DEFAULTS.agent.enableExporter };
    case 'alloy':
      return { chart, remoteWrite: { ...input.remoteWrite, name: input.remoteWrite?.name ?? DEFAULTS.agent.remoteWriteName } };
    default:
      return { chart };
  }
}

function remoteWriteProblems(remoteWrite: AlloyRemoteWriteInput | undefined, path: FieldPath): Problem[] {
  const choose =
    'give url (probekit writes a prometheus.remote_write "probekit" for an Alloy release of its own) or name (the label of your own prometheus.remote_write, in the Alloy configuration this one joins)';
  if (remoteWrite === undefined) return [{ path, message: `required with chart alloy: ${choose}` }];
  if (remoteWrite.url === undefined && remoteWrite.name === undefined) return [{ path, message: `names no component: ${choose}` }];
  const credentials = (['basicAuth', 'bearerTokenSecret'] as const).filter((field) => remoteWrite[field] !== undefined);
  if (remoteWrite.url === undefined) {
    return credentials.map((field) => ({
      path: [...path, field],
      message: `applies to the component probekit writes, which needs url; your own component keeps its own credentials: remove ${field}, or give url`,
    }));
  }
  return credentials.length > 1 ? [{ path: [...path, 'bearerTokenSecret'], message: 'give basicAuth or bearerTokenSecret, not both: an endpoint signs in one way' }] : [];
}
