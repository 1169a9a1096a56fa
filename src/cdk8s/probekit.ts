/**
 * The whole spec as constructs: the exporter, the agent's values with the scrape jobs, the endpoints dashboard,
 * the alert rules, the Prometheus Operator's objects when the spec asks for them, and the search-engine Secret.
 * Each part is usable alone; this composes them the way the spec says.
 */
import { App, Chart, type AppProps } from 'cdk8s';
import { Construct } from 'constructs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment, Spec } from '../model';
import { AgentValues } from './agent-values';
import { BlackboxExporter } from './blackbox-exporter';
import { EndpointsDashboard } from './endpoints-dashboard';
import { ProbeAlerts } from './probe-alerts';
import { Probes } from './probes';
import { SearchEngineSecret } from './search-engine-secret';

export interface ProbekitProps {
  /** A validated spec (see `parseSpec`). */
  readonly spec: Spec;
  /** The environment `fromEnv` references are read from. @default - none */
  readonly env?: Environment;
}

export class Probekit extends Construct {
  readonly exporter: BlackboxExporter;
  readonly agentValues: AgentValues;
  readonly searchEngine?: SearchEngineSecret;
  readonly dashboard?: EndpointsDashboard;
  readonly alerts?: ProbeAlerts;
  readonly probes?: Probes;

  constructor(scope: Construct, id: string, props: ProbekitProps) {
    super(scope, id);
    const { spec, env } = props;
    this.exporter = new BlackboxExporter(this, 'exporter', { ...spec.exporter, modules: spec.modules, env });
    this.agentValues = new AgentValues(this, 'agent', { ...spec.agent, exporterAddress: this.exporter.address, jobs: spec.agent.scrapeJobs ? spec.jobs : [], scrapeExporter: spec.agent.scrapeJobs });
    if (spec.dashboard.enabled) {
      this.dashboard = new EndpointsDashboard(this, 'dashboard', {
        ...spec.dashboard,
        exporterUrl: spec.exporter.externalUrl,
        certificateWarningDays: spec.alerts.thresholds.certificateWarningDays,
        certificateCriticalDays: spec.alerts.thresholds.certificateCriticalDays,
      });
    }
    if (spec.alerts.enabled) {
      this.alerts = new ProbeAlerts(this, 'alerts', { spec, prometheusRule: spec.operator?.rules ? { labels: spec.operator.labels } : undefined });
    }
    if (spec.operator?.probes) {
      this.probes = new Probes(this, 'probes', {
        exporterAddress: this.exporter.address,
        serviceName: spec.exporter.serviceName,
        namespace: spec.namespace,
        labels: spec.operator.labels,
        jobs: spec.jobs,
      });
    }
    if (spec.searchEngine) {
      this.searchEngine = new SearchEngineSecret(this, 'search-engine', {
        url: spec.searchEngine.url,
        apiToken: spec.searchEngine.apiToken,
        name: spec.searchEngine.secretName,
        env,
      });
    }
  }
}

/** A chart in the spec's namespace holding one Probekit. */
export class ProbekitChart extends Chart {
  readonly probekit: Probekit;

  constructor(scope: Construct, id: string, props: ProbekitProps) {
    super(scope, id, { namespace: props.spec.namespace, disableResourceNameHashes: false });
    this.probekit = new Probekit(this, 'probekit', props);
  }
}

/**
 * An App that also writes, beside each chart's manifests, what is not a Kubernetes object: the agent values
 * (`<chart>.agent-values.yaml`), the dashboard (`<chart>.dashboard.json`) and the rule file (`<chart>.rules.yaml`).
 */
export class ProbekitApp extends App {
  constructor(props?: AppProps) {
    super(props);
  }

  override synth(): void {
    super.synth();
    mkdirSync(this.outdir, { recursive: true });
    for (const values of AgentValues.all(this)) writeFileSync(join(this.outdir, values.fileName), values.toYaml());
    for (const dashboard of EndpointsDashboard.all(this)) writeFileSync(join(this.outdir, dashboard.fileName), dashboard.toJson());
    for (const alerts of ProbeAlerts.all(this)) writeFileSync(join(this.outdir, alerts.fileName), alerts.toYaml());
  }
}
