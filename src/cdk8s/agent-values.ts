/**
 * The agent chart's values (the cluster form's agent configuration) as a construct: it holds the scrape jobs of one
 * exporter and the exporter section, and ProbekitApp writes it as `<chart>.agent-values.yaml` beside the chart's
 * manifests. How the exporter is reached (address, https, password) is read from the exporter construct.
 */
import { Chart } from 'cdk8s';
import { Construct, type IConstruct } from 'constructs';
import { stringify } from 'yaml';
import { DEFAULTS, type JobInput, type ScrapeJob } from '../model';
import { checkDuplicateJobNames } from '../model/validate';
import { agentScrapeAccess, exporterHost } from '../render/exporter-web-config';
import { agentValuesFor, type AgentChartValues } from '../render/agent-values';
import { renderExporterScrapeJob, renderScrapeJob, type ScrapeConfig } from '../render/scrape-job';
import type { BlackboxExporter } from './blackbox-exporter';
import { ExporterJobs } from './exporter-jobs';

export interface AgentValuesProps {
  /** The exporter the jobs scrape: its address, and whether it serves https or asks for a password. */
  readonly exporter: BlackboxExporter;
  /** Key of the agent's section in the chart's values. @default agent */
  readonly chartKey?: string;
  /** Key of the chart's exporter section. @default blackbox-exporter */
  readonly exporterKey?: string;
  /** Whether the exporter section gets `enabled: true`. @default true */
  readonly enableExporter?: boolean;
  /** The jobs, as a spec writes them; each is checked as `addScrapeJob` checks it. @default - none; add with `addScrapeJob` */
  readonly jobs?: readonly JobInput[];
  /** Whether a job scrapes the exporter's own metrics (`/metrics`), which the config-reload alert reads. @default true */
  readonly scrapeExporter?: boolean;
}

export class AgentValues extends Construct {
  /** Finds every AgentValues construct below `scope`. */
  static all(scope: IConstruct): AgentValues[] {
    return scope.node.findAll().filter((child): child is AgentValues => child instanceof AgentValues);
  }

  private readonly jobs: ExporterJobs;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: AgentValuesProps,
  ) {
    super(scope, id);
    this.jobs = new ExporterJobs(this, props.exporter, checkDuplicateJobNames);
    props.jobs?.forEach((job) => this.addScrapeJob(job));
  }

  /**
   * Adds a scrape job, written as a spec's job (name, interval, timeout and labels optional, with the spec's
   * defaults) and checked as a spec's job is, against the exporter's modules: the module exists, each target fits
   * its prober, the timeout fits the interval, the name is unique. Throws a ProblemsError naming `jobs[<index>]`;
   * a module the exporter does not have yet is looked for again at synth.
   */
  addScrapeJob(job: JobInput): ScrapeJob {
    return this.jobs.add(job);
  }

  /** The values: every job scraping the exporter as it asks to be scraped (https, password), rendered here alone. */
  get values(): AgentChartValues {
    const { exporter } = this.props;
    const access = agentScrapeAccess({ tls: exporter.tls, basicAuth: exporter.basicAuth }, exporterHost(exporter.address));
    const withAccess = (config: ScrapeConfig): ScrapeConfig => ({ ...config, ...access });
    const exporterJob = this.props.scrapeExporter === false ? [] : [renderExporterScrapeJob(exporter.address)];
    return agentValuesFor(
      {
        chartKey: this.props.chartKey ?? DEFAULTS.agent.chartKey,
        exporterKey: this.props.exporterKey ?? DEFAULTS.agent.exporterKey,
        enableExporter: this.props.enableExporter ?? DEFAULTS.agent.enableExporter,
      },
      [...this.jobs.all.map((job) => renderScrapeJob(job, exporter.address)), ...exporterJob].map(withAccess),
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
