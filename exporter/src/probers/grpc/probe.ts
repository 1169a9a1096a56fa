/**
 * The grpc prober: one grpc.health.v1.Health/Check call for the module's `service`; success when the
 * answer is SERVING. Each probe has its own channel, closed when the probe ends, whatever happened.
 */
import type { ConnectionOptions } from 'node:tls';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { Gauge } from 'prom-client';
import { PROBE_SSL_EARLIEST_CERT_EXPIRY, gauge, phaseGauge } from '../../metrics';
import { GRPC_PHASES, PROBE_GRPC_DURATION, PROBE_GRPC_HEALTHCHECK_RESPONSE, PROBE_GRPC_SSL, PROBE_GRPC_STATUS_CODE } from './metrics';
import { resolveTargetAddress } from '../shared/address';
import { joinHostPort } from '../shared/host-port';
import { HealthClient, SERVING_STATUSES, type HealthCheckResponse, type ServingStatus } from './health';
import { Resources } from '../shared/resources';
import { recordTlsMetrics, tlsConnectionOptions, tlsConnectionState, type TlsConnectionState } from '../shared/tls';
import type { Prober } from '../types';
import { ProbeCredentials } from './credentials';
import { grpcTarget } from './definition';

/** Upstream's grpc prober reports neither the last chain expiry nor the cipher. */
const GRPC_TLS_METRICS = { lastChainExpiry: false, cipher: false } as const;

export const probeGrpc: Prober<'grpc'> = async (deadline, target, module, registry, logger) => {
  const settings = module.grpc;
  const durations = phaseGauge(registry, PROBE_GRPC_DURATION, GRPC_PHASES);
  const ssl = gauge(registry, PROBE_GRPC_SSL);
  const statusCode = gauge(registry, PROBE_GRPC_STATUS_CODE);
  const healthResponse = new Gauge({
    name: PROBE_GRPC_HEALTHCHECK_RESPONSE.name,
    help: PROBE_GRPC_HEALTHCHECK_RESPONSE.help,
    labelNames: ['serving_status'],
    registers: [registry],
  });

  const parsed = grpcTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Could not parse target', { target, err: parsed.problem });
    return false;
  }
  const host = parsed.target.host;
  const port = parsed.target.port ?? (settings.tls ? 443 : 80);

  let address: string;
  try {
    const resolved = await resolveTargetAddress(host, settings.ip, deadline, registry, logger);
    address = resolved.address;
    durations.set({ phase: 'resolve' }, resolved.lookupSeconds);
  } catch (error) {
    logger.error('Error resolving address', { err: (error as Error).message });
    return false;
  }

  let tls: TlsConnectionState | undefined;
  let tlsOptions: ConnectionOptions | undefined;
  if (settings.tls) {
    try {
      tlsOptions = await tlsConnectionOptions(settings.tlsConfig, host);
    } catch (error) {
      logger.error('Error creating TLS configuration', { err: (error as Error).message });
      return false;
    }
  }
  const resources = new Resources(logger);
  const channelCredentials = new ProbeCredentials(deadline, resources, tlsOptions, (socket) => {
    tls = tlsConnectionState(socket);
  });

  const checkStarted = performance.now();
  const client = new HealthClient(joinHostPort(address, port), channelCredentials, {
    // The name the server sees is the target's, though the channel connects to the address chosen above.
    'grpc.default_authority': joinHostPort(host, port),
    // A channel of its own: no connection is shared with, or kept for, another probe.
    'grpc.use_local_subchannel_pool': 1,
    'grpc.enable_retries': 0,
  });
  logger.info('Checking gRPC health', { address, port, service: settings.service, tls: settings.tls });
  let servingStatus: ServingStatus | undefined;
  let code: number;
  let cancel: (() => void) | undefined;
  try {
    const response = await new Promise<HealthCheckResponse>((resolve, reject) => {
      const call = client.Check({ service: settings.service }, { deadline: new Date(deadline.at) }, (error: ServiceError | null, answer: HealthCheckResponse) =>
        error ? reject(error) : resolve(answer),
      );
      // The signal may fire before grpc-js's own deadline timer (the handler aborts on its own terms).
      cancel = () => call.cancel();
      deadline.signal.addEventListener('abort', cancel, { once: true });
    });
    servingStatus = response.status;
    code = GrpcStatus.OK;
    // As upstream, the TLS facts are reported for a call that got an answer.
    if (tls) recordTlsMetrics(tls, registry, !settings.tlsConfig.insecureSkipVerify, GRPC_TLS_METRICS);
  } catch (error) {
    const failure = error as ServiceError;
    code = typeof failure.code === 'number' ? failure.code : GrpcStatus.UNKNOWN;
    // Cancelled by the deadline's signal rather than grpc-js's timer: the same event, named as Go names it.
    if (code === GrpcStatus.CANCELLED && deadline.signal.aborted) code = GrpcStatus.DEADLINE_EXCEEDED;
    logger.error("can't connect grpc server", { err: failure.details ?? failure.message, code: GrpcStatus[code] });
  } finally {
    if (cancel) deadline.signal.removeEventListener('abort', cancel);
    channelCredentials.close();
    client.close();
    resources.destroyAll();
  }
  durations.set({ phase: 'check' }, (performance.now() - checkStarted) / 1000);

  for (const name of SERVING_STATUSES) healthResponse.set({ serving_status: name }, name === servingStatus ? 1 : 0);
  statusCode.set(code);
  const answeredOverTls = servingStatus !== undefined && tls !== undefined;
  ssl.set(answeredOverTls ? 1 : 0);
  if (!answeredOverTls) {
    // Upstream registers this one whatever happened; kept so that the metric names stay the same.
    gauge(registry, PROBE_SSL_EARLIEST_CERT_EXPIRY).set(0);
  }
  if (servingStatus === undefined) return false;
  logger.info('Health check answered', { serving_status: servingStatus });
  return servingStatus === 'SERVING';
};
