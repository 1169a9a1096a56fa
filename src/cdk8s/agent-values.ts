/**
 * The agent chart's values (the cluster form's agent configuration) as a construct: the scrape jobs of one exporter
 * in the layout of the chart that runs the agent (`chart`: generic, prometheus, victoria-metrics-agent, alloy,
 * k8s-monitoring), and ProbekitApp writes them as `<chart>.agent-values.yaml` beside the chart's manifests, with a
 * header saying how to install them. How the exporter is reached (address, https, password) is read from the
 * exporter construct.
 */
import { Chart } from 'cdk8s';
import { Construct, type IConstruct } from 'constructs';
import { ProblemsError, type Problem } from '@probekit/exporter';
import {
  agentChartOf,
  agentShardsOf,
  agentTargetsOf,
  genericChartTemplateProblems,
  scrapesProbeObjects,
  type AgentChart,
  type AgentChartInput,
  type AgentTargets,
  type JobInput,
  type ScrapeJob,
} from '../model';
import { jobParts } from '../model/targets';
import { checkDuplicateJobNames } from '../model/validate';
import { agentValuesText, renderAgentChartValues, type AgentChartValues } from '../render/agent-charts';
import { valuesSize, valuesSizeVerdict } from '../render/agent-charts/release-size';
import { agentScrapeAccess, exporterHost } from '../render/exporter-web-config';
import { INLINE_TARGETS, renderExporterScrapeJob, renderJobScrapeConfigs, targetGroups, type ScrapeConfig, type TargetsSource } from '../render/scrape-job';
import type { BlackboxExporter } from './blackbox-exporter';
import { ExporterJobs } from './exporter-jobs';

export interface AgentValuesProps extends AgentChartInput {
  /** The exporter the jobs scrape: its address, and whether it serves https or asks for a password. */
  readonly exporter: BlackboxExporter;
  /** The jobs, as a spec writes them; each is checked as `addScrapeJob` checks it. @default - none; add with `addScrapeJob` */
  readonly jobs?: readonly JobInput[];
  /** Whether a job scrapes the exporter's own metrics (`/metrics`), which the config-reload alert reads. @default true */
  readonly scrapeExporter?: boolean;
  /** This deployment's location (the spec's `location`): the exporter's own job carries it, as the spec's jobs do. @default - none */
  readonly location?: string;
}

export class AgentValues extends Construct {
  /** Finds every AgentValues construct below `scope`. */
  static all(scope: IConstruct): AgentValues[] {
    return scope.node.findAll().filter((child): child is AgentValues => child instanceof AgentValues);
  }

  /** The chart that runs the agent, with its settings' defaults filled in. */
  readonly chart: AgentChart;
  /** Where the jobs' targets travel: in the values, or served by the exporter at `/sd/<job>`. */
  readonly targets: AgentTargets;
  /** How many agents share the scraping: a values file per shard, or for Alloy clustered replicas. */
  readonly shards: number;
  private readonly jobs: ExporterJobs;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: AgentValuesProps,
  ) {
    super(scope, id);
    const problems: Problem[] = [];
    const chart = agentChartOf(props, [], problems);
    const targets = agentTargetsOf(props, [], problems);
    const shards = agentShardsOf(props, [], problems);
    if (chart === undefined || targets === undefined || shards === undefined) throw new ProblemsError(problems, this.node.path);
    this.chart = chart;
    this.targets = targets;
    this.shards = shards;
    this.jobs = new ExporterJobs(this, props.exporter, checkDuplicateJobNames);
    props.jobs?.forEach((job) => this.addScrapeJob(job));
  }

  /**
   * Adds a scrape job, written as a spec's job (name, interval, timeout and labels optional, with the spec's
   * defaults) and checked as a spec's job is, against the exporter's modules: the module exists, each target fits
   * its prober, the timeout fits the interval, the name is unique. Throws a ProblemsError naming `jobs[<index>]`;
   * a module the exporter does not have yet is looked for again at synth. k8s-monitoring's values take no job: its
   * Alloy scrapes Probe objects.
   */
  addScrapeJob(job: JobInput): ScrapeJob {
    if (scrapesProbeObjects(this.chart)) {
      const message = "k8s-monitoring's values carry no scrape jobs, its Alloy scrapes Probe objects: give the job to Probes (new Probes(scope, id, { exporter, jobs }))";
      throw new ProblemsError([{ path: ['jobs'], message }], this.node.path);
    }
    if (this.chart.chart === 'generic') {
      const problems = genericChartTemplateProblems(job, ['jobs', this.jobs.count]);
      if (problems.length > 0) throw new ProblemsError(problems, this.node.path);
    }
    const added = this.jobs.add(job);
    // With http_sd the exporter serves each part's groups under the part's scrape job name.
    if (this.targets === 'http_sd') for (const part of jobParts(added)) this.props.exporter.serveTargets(part.name, targetGroups(part));
    return added;
  }

  /** The values and their header (the first shard's when each shard has a file, see `files`). */
  get rendered(): AgentChartValues<object> {
    return this.renderShard(this.shardFiles ? 0 : undefined);
  }

  /**
   * Whether each shard gets a values file of its own: Prometheus (and vmagent, and a chart probekit does not know)
   * read no environment variable in relabel rules, so each shard's number is written into its own values, installed
   * as an agent of its own. Alloy's replicas share the targets by clustering instead.
   */
  get shardFiles(): boolean {
    return this.shards > 1 && this.chart.chart !== 'alloy';
  }

  /** The values of shard `index` (its hashmod rules), or of every target: every job scraping the exporter as it asks (https, password). */
  private renderShard(index: number | undefined): AgentChartValues<object> {
    const { exporter } = this.props;
    const access = { tls: exporter.tls, basicAuth: exporter.basicAuth };
    const withAccess = (config: ScrapeConfig): ScrapeConfig => {
      const { scheme, ...client } = agentScrapeAccess(access, exporterHost(exporter.address));
      // The exporter's /sd/ is behind the same web config as its probes: the same CA, certificate and password.
      const http_sd_configs = config.http_sd_configs?.map((sd) => ({ ...sd, ...client }));
      return { ...config, ...(scheme && { scheme }), ...client, ...(http_sd_configs && { http_sd_configs }) };
    };
    const exporterJob = this.props.scrapeExporter === false || scrapesProbeObjects(this.chart) ? [] : [renderExporterScrapeJob(exporter.address, this.props.location)];
    const source: TargetsSource = this.targets === 'http_sd' ? { kind: 'http_sd', baseUrl: exporter.url } : INLINE_TARGETS;
    const shard = index === undefined ? undefined : { index, count: this.shards };
    const scrapeConfigs = [...this.jobs.all.flatMap((job) => renderJobScrapeConfigs(job, exporter.modules, exporter.address, source, shard)), ...exporterJob].map(withAccess);
    const file = index === undefined ? this.fileName : this.shardFileName(index);
    const rendered = renderAgentChartValues({ agent: this.chart, scrapeConfigs, access, exporterNamespace: exporter.namespace, file, shards: this.shards });
    if (index === undefined) return rendered;
    const note = `Shard ${index} of ${this.shards} (agent.shards): it scrapes the targets whose hash modulo ${this.shards} is ${index}; install each shard's file as an agent (a release) of its own.`;
    return { ...rendered, notes: [note, ...rendered.notes] };
  }

  private shardFileName(index: number): string {
    return `${Chart.of(this).node.id}.agent-values.shard-${index}.yaml`;
  }

  /** The values files: one, or one per shard (`<chart>.agent-values.shard-<i>.yaml`) for charts configured as Prometheus is. */
  files(): Array<{ readonly fileName: string; readonly text: string }> {
    if (!this.shardFiles) return [{ fileName: this.fileName, text: this.toYaml() }];
    return Array.from({ length: this.shards }, (_, index) => ({ fileName: this.shardFileName(index), text: this.checkedText(this.renderShard(index)) }));
  }

  /** The values, in the chart's layout. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one of five charts' layouts, which callers index into
  get values(): Record<string, any> {
    return this.rendered.values;
  }

  /** The file name beside the chart's manifests: `<chart>.agent-values.yaml`. */
  get fileName(): string {
    return `${Chart.of(this).node.id}.agent-values.yaml`;
  }

  /**
   * The values file's text. With the targets inline, values too large for the agent's Helm release (the chart's
   * ConfigMap, the release's Secret) throw a ProblemsError at `agent.targets` naming their size and the fix; past
   * half of it, `warning` says so.
   */
  toYaml(): string {
    return this.checkedText(this.rendered);
  }

  private checkedText(rendered: AgentChartValues<object>): string {
    const text = agentValuesText(rendered);
    if (this.targets === 'inline') {
      const { error, warning } = valuesSizeVerdict(valuesSize(rendered.values, text));
      if (error !== undefined) throw new ProblemsError([{ path: ['agent', 'targets'], message: error }], this.node.path);
      this.sizeWarning = warning;
    }
    return text;
  }

  /** Set by `toYaml` when the inline values take more than half of what a Helm release holds. */
  sizeWarning?: string;
}
