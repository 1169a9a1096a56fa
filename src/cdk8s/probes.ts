/**
 * The jobs as Prometheus Operator objects, for clusters whose Prometheus the Operator runs: one Probe per job,
 * probed through the exporter's Service, and a ServiceMonitor for the exporter's own metrics. They can replace the
 * agent values' scrape jobs (`agent.scrapeJobs: false`) or sit beside them. They sit in the exporter's namespace, and
 * reach it as it asks to be reached (https, password), read from the exporter construct.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import type { JobInput } from '../model';
import { checkProbeObjectNames } from '../model/validate';
import { exporterHost, operatorScrapeAccess } from '../render/exporter-web-config';
import { renderExporterServiceMonitor, renderProbes, type OperatorTarget } from '../render/operator-objects';
import type { BlackboxExporter } from './blackbox-exporter';
import { ExporterJobs } from './exporter-jobs';

export interface ProbesProps {
  /** The exporter that probes the jobs' targets, whose Service the ServiceMonitor selects. */
  readonly exporter: BlackboxExporter;
  /** Labels for the Prometheus resource's probeSelector and serviceMonitorSelector. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** The jobs, as a spec writes them; each is checked as `addJob` checks it. @default - none; add with `addJob` */
  readonly jobs?: readonly JobInput[];
  /** This deployment's location (the spec's `location`), on the exporter's own metrics as on the jobs'. @default - none */
  readonly location?: string;
}

export class Probes extends Construct {
  readonly serviceMonitor: ApiObject;
  private readonly target: OperatorTarget;
  private readonly exporter: BlackboxExporter;
  private readonly jobs: ExporterJobs;

  constructor(scope: Construct, id: string, props: ProbesProps) {
    super(scope, id);
    this.exporter = props.exporter;
    this.jobs = new ExporterJobs(this, props.exporter, checkProbeObjectNames);
    this.target = { namespace: props.exporter.namespace, labels: props.labels ?? {} };
    const monitor = renderExporterServiceMonitor(props.exporter.service.name, this.target, props.location);
    const access = this.access();
    this.serviceMonitor = new ApiObject(this, 'exporter-metrics', {
      ...monitor,
      spec: { ...monitor.spec, endpoints: monitor.spec.endpoints.map((endpoint) => ({ ...endpoint, ...(props.exporter.tls && { scheme: 'https' }), ...access })) },
    });
    props.jobs?.forEach((job) => this.addJob(job));
  }

  /**
   * The Probes of one more job (one per module and label set of its targets), written and checked as a spec's job
   * (see AgentValues.addScrapeJob); their object names are the job's name made fit for Kubernetes (numbered from -2
   * after the first), which no other job of these Probes may make.
   */
  addJob(input: JobInput): ApiObject[] {
    const job = this.jobs.add(input);
    return renderProbes(job, this.exporter.modules[job.module]!, this.exporter.address, this.target).map((probe) => {
      const prober = this.exporter.tls ? { ...probe.spec.prober, scheme: 'https' } : probe.spec.prober;
      return new ApiObject(this, `probe-${probe.metadata.name}`, { ...probe, spec: { ...probe.spec, prober, ...this.access() } });
    });
  }

  /** tlsConfig and basicAuth for scraping the exporter, as far as it asks for them. */
  private access(): ReturnType<typeof operatorScrapeAccess> {
    return operatorScrapeAccess({ tls: this.exporter.tls, basicAuth: this.exporter.basicAuth }, exporterHost(this.exporter.address));
  }
}
