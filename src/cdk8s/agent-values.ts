/**
 * The agent chart's values (the cluster form's agent configuration) as a construct: it holds the scrape jobs and the exporter section,
 * and ProbekitApp writes it as `<chart>.agent-values.yaml` beside the chart's manifests.
 */
import { Chart } from 'cdk8s';
import { Construct, type IConstruct } from 'constructs';
import { stringify } from 'yaml';
import { DEFAULTS, type ExporterTls, type ScrapeJob } from '../model';
import { agentScrapeTls, exporterHost } from '../render/exporter-tls';
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
    this.scrapeConfigs.push(this.overTls(renderScrapeJob(job, this.props.exporterAddress)));
  }

  private overTls<T extends ScrapeConfig>(config: T): T {
    const tls = this.props.exporterTls;
    return tls ? { ...config, ...agentScrapeTls(tls, exporterHost(this.props.exporterAddress)) } : config;
  }

  get values(): AgentChartValues {
    const exporterJob = this.props.scrapeExporter === false ? [] : [this.overTls(renderExporterScrapeJob(this.props.exporterAddress))];
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
