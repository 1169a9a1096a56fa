/**
 * The whole spec as constructs: the exporter, the agent's values with the scrape jobs, the endpoints dashboard,
 * the alert rules, the Prometheus Operator's objects when the spec asks for them, and the search-engine Secret.
 * Each part is usable alone; this composes them the way the spec says.
 */
import { ApiObject, App, Chart, type AppProps } from 'cdk8s';
import { Construct } from 'constructs';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { join } from 'node:path';
import { ProblemsError, type Problem } from '@probekit/exporter';
import { scrapesProbeObjects, type Environment, type Spec } from '../model';
import { renderDiscoveryRbac } from '../render/discovery';
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

/**
 * What a valid spec asks that the cluster form cannot do: a job whose module probes a unix socket, which the
 * exporter would look for inside its own container, where no other workload's socket is, so every probe would
 * fail (the host form probes the sockets of its machine). The construct refuses these at synth; the Pulumi
 * program checks its stack's specs with it first, to name the stack's key.
 */
export function clusterFormProblems(spec: Spec): Problem[] {
  return spec.jobs.flatMap((job, index): Problem[] =>
    spec.modules[job.module]?.prober === 'unix'
      ? [
          {
            path: ['jobs', index, 'module'],
            message: `"${job.module}" probes a unix socket, which the exporter's pod does not have (it would look in its own container); probe the workload's port with a tcp or http module, or install the host form on the machine that has the socket`,
          },
        ]
      : [],
  );
}

export class Probekit extends Construct {
  readonly exporter: BlackboxExporter;
  readonly agentValues: AgentValues;
  readonly searchEngine?: SearchEngineSecret;
  readonly dashboard?: EndpointsDashboard;
  readonly alerts?: ProbeAlerts;
  readonly probes?: Probes;
  /** The Roles (or ClusterRole) and bindings the agent's discovery jobs need; none when no job discovers. */
  readonly discoveryAccess: readonly ApiObject[];

  constructor(scope: Construct, id: string, props: ProbekitProps) {
    super(scope, id);
    const { spec, env } = props;
    const unreachable = clusterFormProblems(spec);
    if (unreachable.length > 0) throw new ProblemsError(unreachable);
    this.exporter = new BlackboxExporter(this, 'exporter', { ...spec.exporter, modules: spec.modules, env });
    this.agentValues = new AgentValues(this, 'agent', {
      ...spec.agent,
      exporter: this.exporter,
      jobs: spec.agent.scrapeJobs ? spec.jobs : [],
      scrapeExporter: spec.agent.scrapeJobs,
      ...(spec.location === undefined ? {} : { location: spec.location }),
    });
    const discovering = spec.agent.scrapeJobs ? spec.jobs.filter((job) => job.discover !== undefined) : [];
    // What the agent needs to list the objects its discovery jobs find (docs/targets.md#rbac).
    this.discoveryAccess = renderDiscoveryRbac(discovering, spec.agent.serviceAccount).map((object) => new ApiObject(this, `${object.kind}-${object.metadata.namespace ?? 'cluster'}`, object));
    if (spec.dashboard.enabled) {
      this.dashboard = new EndpointsDashboard(this, 'dashboard', {
        ...spec.dashboard,
        exporter: this.exporter,
        certificateWarningDays: spec.alerts.thresholds.certificateWarningDays,
        certificateCriticalDays: spec.alerts.thresholds.certificateCriticalDays,
        locations: spec.locations,
        maintenance: spec.maintenance,
      });
    }
    if (spec.alerts.enabled) {
      this.alerts = new ProbeAlerts(this, 'alerts', {
        spec,
        prometheusRule: spec.operator?.rules ? { labels: spec.operator.labels } : undefined,
        alertmanagerConfig: spec.operator?.alertmanagerConfig ? { labels: spec.operator.labels } : undefined,
      });
    }
    if (spec.operator?.probes || scrapesProbeObjects(spec.agent)) {
      this.probes = new Probes(this, 'probes', { exporter: this.exporter, labels: spec.operator?.labels, jobs: spec.jobs, location: spec.location });
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

/** Whether a manifest file holds a Secret with values (data or stringData), rather than references to Secrets. */
export function holdsSecretValues(text: string): boolean {
  return parseAllDocuments(text).some((document) => {
    const object = document.toJS() as { kind?: string; data?: object; stringData?: object } | null;
    return object?.kind === 'Secret' && Object.keys({ ...object.data, ...object.stringData }).length > 0;
  });
}

/**
 * An App that also writes, beside each chart's manifests, what is not a Kubernetes object: the agent values
 * (`<chart>.agent-values.yaml`), the dashboard (`<chart>.dashboard.json`), the rule file (`<chart>.rules.yaml`) and, when
 * the spec routes its alerts, Alertmanager's file (`<chart>.alertmanager.yaml`).
 */
export class ProbekitApp extends App {
  /** What synth found worth saying without failing: agent values past half of what a Helm release holds. */
  readonly warnings: string[] = [];

  constructor(props?: AppProps) {
    super(props);
  }

  /**
   * Every file is created readable by its owner only, and those without a secret value are opened up (0644)
   * afterwards: a manifest holding a Secret's values stays 0600. Creating files open and closing them later
   * would leave a moment in which the values are readable.
   */
  override synth(): void {
    const umask = process.umask(0o077);
    const written: string[] = [];
    try {
      super.synth();
      mkdirSync(this.outdir, { recursive: true });
      const write = (fileName: string, content: string): void => {
        writeFileSync(join(this.outdir, fileName), content);
        written.push(fileName);
      };
      for (const values of AgentValues.all(this)) {
        for (const { fileName, text } of values.files()) write(fileName, text);
        if (values.sizeWarning !== undefined) this.warnings.push(`${values.fileName}: ${values.sizeWarning}`);
      }
      for (const dashboard of EndpointsDashboard.all(this)) write(dashboard.fileName, dashboard.toJson());
      for (const alerts of ProbeAlerts.all(this)) {
        write(alerts.fileName, alerts.toYaml());
        if (alerts.alertmanagerYaml !== undefined) write(alerts.alertmanagerFileName, alerts.alertmanagerYaml);
      }
    } finally {
      process.umask(umask);
    }
    // cdk8s names each chart's file (`probekit.k8s.yaml`, or numbered when charts depend on each other).
    const manifests = readdirSync(this.outdir)
      .filter((name) => name.endsWith('.k8s.yaml'))
      .map((name) => join(this.outdir, name));
    for (const file of [...manifests, ...written.map((name) => join(this.outdir, name))]) chmodSync(file, holdsSecretValues(readFileSync(file, 'utf8')) ? 0o600 : 0o644);
  }
}
