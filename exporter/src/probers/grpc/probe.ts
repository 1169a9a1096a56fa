/**
 * The grpc prober: one grpc.health.v1.Health/Check call for the module's `service`; success when the
 * answer is SERVING. Each probe opens its own connection through the probers' one dialer (TLS with the
 * module's tls_config, ALPN h2), speaks HTTP/2 over it and closes everything when it ends, whatever
 * happened: no channel, reconnection backoff or pooled connection outlives the probe.
 */
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { PROBE_SSL_EARLIEST_CERT_EXPIRY, gauge, phaseGauge } from '../../metrics';
import { GRPC_PHASES, PROBE_GRPC_DURATION, PROBE_GRPC_HEALTHCHECK_RESPONSE, PROBE_GRPC_SSL, PROBE_GRPC_STATUS_CODE } from './metrics';
import { resolveTargetAddress } from '../shared/address';
import { beforeDeadline, DeadlineExceeded, ProbeInterrupted } from '../shared/deadline';
import { dial } from '../shared/dial';
import { joinHostPort, withoutZone } from '../shared/host-port';
import { Resources } from '../shared/resources';
import { recordTlsMetrics, tlsConnectionOptions, tlsConnectionState, type TlsConnectionState } from '../shared/tls';
import type { ProbeOutcome, Prober } from '../types';
import { failed, failureOf, passedOr } from '../shared/failure';
import { GRPC_CANCELLED, GRPC_CODE_NAMES, GRPC_DEADLINE_EXCEEDED, GRPC_INTERNAL, GRPC_NOT_FOUND, GRPC_OK, GRPC_UNAVAILABLE, GRPC_UNIMPLEMENTED, GrpcCallError, unaryCall } from './call';
import { grpcTarget } from './definition';
import { decodeCheckResponse, encodeCheckRequest, HEALTH_CHECK_PATH, SERVING_STATUSES, servingStatusName } from './health';

/** Upstream's grpc prober reports neither the last chain expiry nor the cipher. */
const GRPC_TLS_METRICS = { lastChainExpiry: false, cipher: false } as const;

/**
 * The gRPC status of a call that failed with `error`: the call's own, or as grpc-go names the rest: the
 * deadline, a probe interrupted (CANCELLED), and a connection that could not be made or was lost (refused, reset, a TLS
 * handshake that failed), which is UNAVAILABLE.
 */
function statusOf(error: unknown): number {
  if (error instanceof GrpcCallError) return error.code;
  if (error instanceof DeadlineExceeded) return GRPC_DEADLINE_EXCEEDED;
  if (error instanceof ProbeInterrupted) return GRPC_CANCELLED;
  return GRPC_UNAVAILABLE;
}

/** Call statuses that say the health service does not serve: the service unknown to it, no health service, unavailable. */
const NOT_SERVING_CODES = new Set([GRPC_NOT_FOUND, GRPC_UNIMPLEMENTED, GRPC_UNAVAILABLE]);

export const probeGrpc: Prober<'grpc'> = async (deadline, target, module, registry, logger, options) => {
  const settings = module.grpc;
  const durations = phaseGauge(registry, PROBE_GRPC_DURATION, GRPC_PHASES);
  const ssl = gauge(registry, PROBE_GRPC_SSL);
  const statusCode = gauge(registry, PROBE_GRPC_STATUS_CODE);
  const healthResponse = gauge(registry, PROBE_GRPC_HEALTHCHECK_RESPONSE, ['serving_status']);

  const parsed = grpcTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Could not parse target', { target, err: parsed.problem });
    return failed('target or module not usable');
  }
  const host = parsed.target.host;
  const port = parsed.target.port ?? (settings.tls ? 443 : 80);

  let address: string;
  let family: 4 | 6;
  try {
    const resolved = await resolveTargetAddress(host, settings.ip, deadline, registry, logger, options.guard, port);
    ({ address, family } = resolved);
    durations.set({ phase: 'resolve' }, resolved.lookupSeconds);
  } catch (error) {
    logger.error('Error resolving address', { err: (error as Error).message });
    return failureOf(error, 'resolve failed');
  }

  let tlsOptions: ConnectionOptions | undefined;
  if (settings.tls) {
    try {
      tlsOptions = await tlsConnectionOptions(settings.tlsConfig, host);
    } catch (error) {
      logger.error('Error creating TLS configuration', { err: (error as Error).message });
      return failureOf(error, 'target or module not usable');
    }
  }

  const checkStarted = performance.now();
  const resources = new Resources(logger);
  // The deadline may fire while a phase waits; destroying everything then ends the stream at once.
  const abort = (): void => resources.destroyAll();
  deadline.signal.addEventListener('abort', abort, { once: true });
  logger.debug('Checking gRPC health', { address, port, service: settings.service, tls: settings.tls });
  let servingStatus: string | undefined;
  let code: number;
  let callFailure: ProbeOutcome | undefined;
  let tls: TlsConnectionState | undefined;
  try {
    const socket = await dial(deadline, { address, port, family }, tlsOptions && { ...tlsOptions, ALPNProtocols: ['h2'] }, resources);
    if (tlsOptions) tls = tlsConnectionState(socket as TLSSocket);
    // The name the server sees is the target's, though the connection goes to the address chosen above.
    const authority = joinHostPort(withoutZone(host), port);
    const scheme = tlsOptions ? 'https' : 'http';
    const session: ClientHttp2Session = resources.own(http2Connect(`${scheme}://${authority}`, { createConnection: () => socket, settings: { enablePush: false } }));
    const call = unaryCall(session, { scheme, authority, path: HEALTH_CHECK_PATH, message: encodeCheckRequest(settings.service), metadata: settings.metadata }, resources);
    const answer = await beforeDeadline(deadline, 'check', call);
    try {
      servingStatus = servingStatusName(decodeCheckResponse(answer));
    } catch (error) {
      throw new GrpcCallError(GRPC_INTERNAL, `cannot decode the HealthCheckResponse: ${(error as Error).message}`);
    }
    code = GRPC_OK;
    // As upstream, the TLS facts are reported for a call that got an answer.
    if (tls) recordTlsMetrics(tls, registry, !settings.tlsConfig.insecureSkipVerify, GRPC_TLS_METRICS);
  } catch (error) {
    code = statusOf(error);
    callFailure = error instanceof GrpcCallError && NOT_SERVING_CODES.has(error.code) ? failed('gRPC not serving') : failureOf(error, 'protocol error');
    logger.error("can't connect grpc server", { err: (error as Error).message, code: GRPC_CODE_NAMES[code] ?? String(code) });
  } finally {
    deadline.signal.removeEventListener('abort', abort);
    resources.destroyAll();
  }
  durations.set({ phase: 'check' }, (performance.now() - checkStarted) / 1000);

  for (const name of SERVING_STATUSES) healthResponse.set({ serving_status: name }, name === servingStatus ? 1 : 0);
  // A status health.proto does not list gets a series of its own, named by its number, as upstream's does.
  if (servingStatus !== undefined && !(SERVING_STATUSES as readonly string[]).includes(servingStatus)) healthResponse.set({ serving_status: servingStatus }, 1);
  statusCode.set(code);
  const answeredOverTls = servingStatus !== undefined && tls !== undefined;
  ssl.set(answeredOverTls ? 1 : 0);
  if (!answeredOverTls) {
    // Upstream registers this one whatever happened; kept so that the metric names stay the same.
    gauge(registry, PROBE_SSL_EARLIEST_CERT_EXPIRY).set(0);
  }
  if (servingStatus === undefined) return callFailure ?? failed('protocol error');
  logger.debug('Health check answered', { serving_status: servingStatus });
  return passedOr(servingStatus === 'SERVING', 'gRPC not serving');
};
