/**
 * The spec's public types are written by hand (src/model/spec.ts: readable hovers, declarations without zod); its
 * schemas (src/model/schema.ts) check values at run time. This file does not compile (npm run typecheck) when a
 * hand-written input type and its schema's input differ either way: a field added, dropped, made optional or
 * required, or of another type on one side only. At run time it checks that the fields listed here are the schemas'.
 */
import type { z } from 'zod';
import { exporterSchema, jobSchema, maintenanceWindowSchema, presetSchemas, receiverSchema, remoteWriteSchema, secretRefSchema, specSchema, thresholdsSchema } from '../../src/model/schema';
import type {
  AgentInput,
  AlloyRemoteWriteInput,
  AlertsInput,
  AlertThresholdsInput,
  DashboardInput,
  ExporterInput,
  HostInput,
  Http2xxPreset,
  Http2xxWithHeaderPreset,
  HttpPost2xxPreset,
  JobInput,
  MaintenanceWindowInput,
  OperatorInput,
  ReceiverInput,
  SearchEngineInput,
  SecretRef,
  SpecInput,
} from '../../src/model';

/** Arrays, records and objects alike made readonly all the way down, so that `readonly` alone is no difference. */
type DeepReadonly<T> = T extends ReadonlyArray<infer U> ? ReadonlyArray<DeepReadonly<U>> : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
/** True when A and B are the same type once both are readonly: each field, its optionality and its type. */
type Same<A, B> = (<T>() => T extends DeepReadonly<A> ? 1 : 2) extends <T>() => T extends DeepReadonly<B> ? 1 : 2 ? true : false;
/** Compiles only for `true`. */
function same<T extends true>(fields: Record<string, true>, _: T): string[] {
  return Object.keys(fields).sort();
}

type SpecShape = z.input<typeof specSchema>;
const fieldsOf = (schema: { shape: object }): string[] => Object.keys(schema.shape).sort();

describe("the spec's hand-written types equal its schemas' inputs", () => {
  it('the spec, apart from modules (each entry is checked by its own schema)', () => {
    const fields: Record<keyof SpecInput, true> = {
      namespace: true,
      exporter: true,
      modules: true,
      jobs: true,
      agent: true,
      searchEngine: true,
      dashboard: true,
      alerts: true,
      operator: true,
      host: true,
      location: true,
      locations: true,
      maintenance: true,
    };
    expect(same(fields, true satisfies Same<Omit<SpecInput, 'modules'>, Omit<SpecShape, 'modules'>>)).toEqual(fieldsOf(specSchema));
  });

  it('each part of the spec', () => {
    const exporter: Record<keyof ExporterInput, true> = {
      image: true,
      replicas: true,
      resources: true,
      autoscaling: true,
      sizeFromTargets: true,
      serviceName: true,
      externalUrl: true,
      networkPolicy: true,
      podDisruptionBudget: true,
      allowedTargets: true,
      tls: true,
      basicAuth: true,
    };
    expect(same(exporter, true satisfies Same<ExporterInput, z.input<typeof exporterSchema>>)).toEqual(fieldsOf(exporterSchema));
    const job: Record<keyof JobInput, true> = { name: true, module: true, targets: true, scrapeInterval: true, scrapeTimeout: true, labels: true, alerts: true, slo: true, discover: true };
    expect(same(job, true satisfies Same<JobInput, z.input<typeof jobSchema>>)).toEqual(fieldsOf(jobSchema));
    const thresholds: Record<keyof AlertThresholdsInput, true> = { downFor: true, slowerThan: true, slowFor: true, certificateWarningDays: true, certificateCriticalDays: true };
    expect(same(thresholds, true satisfies Same<AlertThresholdsInput, z.input<typeof thresholdsSchema>>)).toEqual(fieldsOf(thresholdsSchema));
    const shape = specSchema.shape;
    const agent: Record<keyof AgentInput, true> = {
      chart: true,
      chartKey: true,
      exporterKey: true,
      enableExporter: true,
      remoteWrite: true,
      scrapeJobs: true,
      serviceAccount: true,
      targets: true,
      shards: true,
    };
    expect(same(agent, true satisfies Same<AgentInput, NonNullable<SpecShape['agent']>>)).toEqual(fieldsOf(shape.agent.unwrap()));
    const remoteWrite: Record<keyof AlloyRemoteWriteInput, true> = { name: true, url: true, basicAuth: true, bearerTokenSecret: true };
    expect(same(remoteWrite, true satisfies Same<AlloyRemoteWriteInput, z.input<typeof remoteWriteSchema>>)).toEqual(fieldsOf(remoteWriteSchema));
    const searchEngine: Record<keyof SearchEngineInput, true> = { url: true, apiToken: true, secretName: true };
    expect(same(searchEngine, true satisfies Same<SearchEngineInput, NonNullable<SpecShape['searchEngine']>>)).toEqual(fieldsOf(shape.searchEngine.unwrap()));
    const dashboard: Record<keyof DashboardInput, true> = { enabled: true, title: true, uid: true, labels: true };
    expect(same(dashboard, true satisfies Same<DashboardInput, NonNullable<SpecShape['dashboard']>>)).toEqual(fieldsOf(shape.dashboard.unwrap()));
    const alerts: Record<keyof AlertsInput, true> = {
      enabled: true,
      thresholds: true,
      failingLocations: true,
      evaluationInterval: true,
      receivers: true,
      groupWait: true,
      groupInterval: true,
      repeatInterval: true,
    };
    expect(same(alerts, true satisfies Same<AlertsInput, NonNullable<SpecShape['alerts']>>)).toEqual(fieldsOf(shape.alerts.unwrap()));
    const operator: Record<keyof OperatorInput, true> = { probes: true, rules: true, labels: true, alertmanagerConfig: true };
    expect(same(operator, true satisfies Same<OperatorInput, NonNullable<SpecShape['operator']>>)).toEqual(fieldsOf(shape.operator.unwrap()));
    const host: Record<keyof HostInput, true> = { listenAddress: true };
    expect(same(host, true satisfies Same<HostInput, NonNullable<SpecShape['host']>>)).toEqual(fieldsOf(shape.host.unwrap()));
    const window: Record<keyof MaintenanceWindowInput, true> = { name: true, jobs: true, targets: true, weekly: true, once: true };
    expect(same(window, true satisfies Same<MaintenanceWindowInput, z.input<typeof maintenanceWindowSchema>>)).toEqual(fieldsOf(maintenanceWindowSchema));
    const receiver: Record<keyof ReceiverInput, true> = { name: true, severities: true, webhookUrl: true };
    expect(same(receiver, true satisfies Same<ReceiverInput, z.input<typeof receiverSchema>>)).toEqual(fieldsOf(receiverSchema));
  });

  it('the presets and secret references', () => {
    expect(same({ preset: true }, true satisfies Same<Http2xxPreset, z.input<typeof presetSchemas.http_2xx>>)).toEqual(fieldsOf(presetSchemas.http_2xx));
    const withHeader: Record<keyof Http2xxWithHeaderPreset, true> = { preset: true, accessToken: true, acceptLanguage: true };
    expect(same(withHeader, true satisfies Same<Http2xxWithHeaderPreset, z.input<typeof presetSchemas.http_2xx_with_header>>)).toEqual(fieldsOf(presetSchemas.http_2xx_with_header));
    const post: Record<keyof HttpPost2xxPreset, true> = { preset: true, body: true };
    expect(same(post, true satisfies Same<HttpPost2xxPreset, z.input<typeof presetSchemas.http_post_2xx>>)).toEqual(fieldsOf(presetSchemas.http_post_2xx));
    expect(secretRefSchema.safeParse({ fromEnv: 'TOKEN', prefix: 'Bearer ' } satisfies SecretRef).success).toBe(true);
  });
});
