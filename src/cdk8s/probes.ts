/**
 * The jobs as Prometheus Operator objects, for clusters whose Prometheus the Operator runs: one Probe per job,
 * probed through the exporter's Service, and a ServiceMonitor for the exporter's own metrics. They can replace the
 * agent values' scrape jobs (`agent.scrapeJobs: false`) or sit beside them.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import type { ExporterBasicAuth, ExporterTls, Job } from '../model';
import { exporterHost, operatorScrapeAccess } from '../render/exporter-web-config';
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
  /** The exporter serves https: the Probes and the ServiceMonitor use it, with the Secrets by reference. @default - http */
  readonly exporterTls?: ExporterTls;
  /** The exporter asks for a password: the Probes and the ServiceMonitor send it from its Secret. @default - none */
  readonly exporterBasicAuth?: ExporterBasicAuth;
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
    const monitor = renderExporterServiceMonitor(props.serviceName, this.target);
    const access = this.access();
    this.serviceMonitor = new ApiObject(this, 'exporter-metrics', {
      ...monitor,
      spec: { ...monitor.spec, endpoints: monitor.spec.endpoints.map((endpoint) => ({ ...endpoint, ...(props.exporterTls && { scheme: 'https' }), ...access })) },
    });
    props.jobs?.forEach((job) => this.addJob(job));
  }

  /** A Probe for one more job; its object name is the job's name made fit for Kubernetes. */
  addJob(job: Job): ApiObject {
    const probe = renderProbe(job, this.props.exporterAddress, this.target);
    const prober = this.props.exporterTls ? { ...probe.spec.prober, scheme: 'https' } : probe.spec.prober;
    return new ApiObject(this, `probe-${probe.metadata.name}`, { ...probe, spec: { ...probe.spec, prober, ...this.access() } });
  }

  /** tlsConfig and basicAuth for scraping the exporter, as far as it asks for them. */
  private access(): ReturnType<typeof operatorScrapeAccess> {
    return operatorScrapeAccess({ tls: this.props.exporterTls, basicAuth: this.props.exporterBasicAuth }, exporterHost(this.props.exporterAddress));
  }
}
