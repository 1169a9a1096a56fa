/**
 * The jobs as Prometheus Operator objects, for clusters whose Prometheus the Operator runs: one Probe per job,
 * probed through the exporter's Service, and a ServiceMonitor for the exporter's own metrics. They can replace the
 * agent values' scrape jobs (`agent.scrapeJobs: false`) or sit beside them.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import type { Job } from '../model';
import { renderExporterServiceMonitor, renderProbe, type OperatorTarget } from '../render/operator-objects';

export interface ProbesProps {
  /** host:port of the exporter, usually `BlackboxExporter.address`. */
  readonly exporterAddress: string;
  /** The exporter's Service, which the ServiceMonitor selects. */
  readonly serviceName: string;
  readonly namespace: string;
  /** Labels for the Prometheus resource's probeSelector and serviceMonitorSelector. @default - none */
  readonly labels?: Readonly<Record<string, string>>;
  /** @default - none; add with `addJob` */
  readonly jobs?: readonly Job[];
}

export class Probes extends Construct {
  readonly serviceMonitor: ApiObject;
  private readonly target: OperatorTarget;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ProbesProps,
  ) {
    super(scope, id);
    this.target = { namespace: props.namespace, labels: props.labels ?? {} };
    this.serviceMonitor = new ApiObject(this, 'exporter-metrics', renderExporterServiceMonitor(props.serviceName, this.target));
    props.jobs?.forEach((job) => this.addJob(job));
  }

  /** A Probe for one more job; its object name is the job's name made fit for Kubernetes. */
  addJob(job: Job): ApiObject {
    const probe = renderProbe(job, this.props.exporterAddress, this.target);
    return new ApiObject(this, `probe-${probe.metadata.name}`, probe);
  }
}
