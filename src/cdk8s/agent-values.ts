/**
 * The agent chart's values (the cluster form's agent configuration) as a construct: it holds the scrape jobs and the exporter section,
 * and ProbekitApp writes it as `<chart>.agent-values.yaml` beside the chart's manifests.
 */
import { Chart } from 'cdk8s';
import { Construct, type IConstruct } from 'constructs';
import { stringify } from 'yaml';
import { DEFAULTS, type ExporterBasicAuth, type ExporterTls, type ScrapeJob } from '../model';
import { agentScrapeAccess, exporterHost } from '../render/exporter-web-config';
import { agentValuesFor, type AgentChartValues } from '../render/agent-values';
import { renderExporterScrapeJob, renderScrapeJob, type ScrapeConfig } from '../render/scrape-job';

export interface AgentValuesProps {
  /** host:port of the exporter the jobs scrape, usually `BlackboxExporter.address`. */
  readonly exporterAddress: string;
  /** Key of the agent's section in the chart's values. @default agent */
  readonly chartKey?: string;
  /** Key of the chart's exporter section. @default blackbox-exporter */
  readonly exporterKey?: string;
  /** Whether the exporter section gets `enabled: true`. @default true */
  readonly enableExporter?: boolean;
  /** @default - none; add with `addScrapeJob` */
  readonly jobs?: readonly ScrapeJob[];
  /** Whether a job scrapes the exporter's own metrics (`/metrics`), which the config-reload alert reads. @default true */
  readonly scrapeExporter?: boolean;
  /** The exporter serves https: the jobs use it, trusting its CA and checking `exporterAddress`'s host name. @default - http */
  readonly exporterTls?: ExporterTls;
  /** The exporter asks for a password: the jobs send it from the file the agent's pod mounts from its Secret. @default - none */
  readonly exporterBasicAuth?: ExporterBasicAuth;
}

export class AgentValues extends Construct {
  /** Finds every AgentValues construct below `scope`. */
  static all(scope: IConstruct): AgentValues[] {
    return scope.node.findAll().filter((child): child is AgentValues => child instanceof AgentValues);
  }

  private readonly scrapeConfigs: ScrapeConfig[] = [];

  constructor(
    scope: Construct,
    id: string,
    private readonly props: AgentValuesProps,
  ) {
    super(scope, id);
    props.jobs?.forEach((job) => this.addScrapeJob(job));
  }

  addScrapeJob(job: ScrapeJob): void {
    this.scrapeConfigs.push(this.withAccess(renderScrapeJob(job, this.props.exporterAddress)));
  }

  /** The job with the scheme, TLS settings and password the exporter asks for. */
  private withAccess<T extends ScrapeConfig>(config: T): T {
    return { ...config, ...agentScrapeAccess({ tls: this.props.exporterTls, basicAuth: this.props.exporterBasicAuth }, exporterHost(this.props.exporterAddress)) };
  }

  get values(): AgentChartValues {
    const exporterJob = this.props.scrapeExporter === false ? [] : [this.withAccess(renderExporterScrapeJob(this.props.exporterAddress))];
    return agentValuesFor(
      {
        chartKey: this.props.chartKey ?? DEFAULTS.agent.chartKey,
        exporterKey: this.props.exporterKey ?? DEFAULTS.agent.exporterKey,
        enableExporter: this.props.enableExporter ?? DEFAULTS.agent.enableExporter,
      },
      [...this.scrapeConfigs, ...exporterJob],
    );
  }

  /** The file name beside the chart's manifests: `<chart>.agent-values.yaml`. */
  get fileName(): string {
    return `${Chart.of(this).node.id}.agent-values.yaml`;
  }

  toYaml(): string {
    return stringify(this.values, { lineWidth: 0 });
  }
}
