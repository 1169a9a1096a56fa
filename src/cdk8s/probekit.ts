/**
 * The whole spec as constructs: the exporter, the agent's values with the scrape jobs, and the
 * search-engine Secret. Each part is usable alone; this composes them the way the spec says.
 */
import { App, Chart, type AppProps } from 'cdk8s';
import { Construct } from 'constructs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment, Spec } from '../model';
import { AgentValues } from './agent-values';
import { BlackboxExporter } from './blackbox-exporter';
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

  constructor(scope: Construct, id: string, props: ProbekitProps) {
    super(scope, id);
    const { spec, env } = props;
    this.exporter = new BlackboxExporter(this, 'exporter', { ...spec.exporter, modules: spec.modules, env });
    this.agentValues = new AgentValues(this, 'agent', { ...spec.agent, exporterAddress: this.exporter.address, jobs: spec.jobs });
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

/** An App that also writes each chart's agent values as `<chart>.agent-values.yaml` beside its manifests. */
export class ProbekitApp extends App {
  constructor(props?: AppProps) {
    super(props);
  }

  override synth(): void {
    super.synth();
    mkdirSync(this.outdir, { recursive: true });
    for (const values of AgentValues.all(this)) writeFileSync(join(this.outdir, values.fileName), values.toYaml());
  }
}
