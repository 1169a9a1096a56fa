/**
 * The tcp prober: connect (optionally with TLS), then walk the module's query_response steps (the dialogue
 * it shares with the unix prober, ../shared/query-response.ts), and succeed when every step passed before
 * the deadline.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tcpTarget, type TcpSettings } from './definition';
import { resolveTargetAddress, type ResolvedAddress } from '../shared/address';
import { beforeDeadline } from '../shared/deadline';
import { Resources } from '../shared/resources';
import { dial } from '../shared/dial';
import { runQueryResponses, secureStream, STREAM_TLS_METRICS } from '../shared/query-dialogue';
import { withStoppedCheck } from '../shared/checks';
import { recordTlsMetrics, tlsConnectionOptions, tlsConnectionState } from '../shared/tls';
import type { ProbeDeadline, ProbeLogger, Prober } from '../types';
import { failed, failureOf } from '../shared/failure';
import type { ProbeRegistry } from '../../metrics';

async function openConnection(
  deadline: ProbeDeadline,
  host: string,
  port: number,
  resolved: ResolvedAddress,
  settings: TcpSettings,
  registry: ProbeRegistry,
  logger: ProbeLogger,
  resources: Resources,
): Promise<Socket> {
  if (settings.sourceAddress) logger.debug('Using local address', { srcIP: settings.sourceAddress });
  const tlsOptions = settings.tls ? await tlsConnectionOptions(settings.tlsConfig, host) : undefined;
  logger.debug(settings.tls ? 'Dialing TCP with TLS' : 'Dialing TCP without TLS', { address: resolved.address, port });
  const endpoint = { address: resolved.address, port, family: resolved.family, source: settings.sourceAddress };
  const socket = await dial(deadline, endpoint, tlsOptions, resources);
  if (tlsOptions) recordTlsMetrics(tlsConnectionState(socket as TLSSocket), registry, !settings.tlsConfig.insecureSkipVerify, STREAM_TLS_METRICS);
  return socket;
}

export const probeTcp: Prober<'tcp'> = async (deadline, target, module, registry, logger, options) => {
  const settings = module.tcp;
  const parsed = tcpTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Error splitting target address and port', { target, err: parsed.problem });
    return failed('target or module not usable');
  }
  const { host, port } = parsed.target;
  let resolved: ResolvedAddress;
  try {
    resolved = await resolveTargetAddress(host, settings.ip, deadline, registry, logger, options.guard, port);
  } catch (error) {
    logger.error('Error during TCP probe', { err: (error as Error).message });
    return failureOf(error, 'resolve failed');
  }
  const resources = new Resources(logger);
  try {
    const socket = await openConnection(deadline, host, port, resolved, settings, registry, logger, resources);
    logger.debug('Successfully dialed');
    const work = runQueryResponses(socket, settings.steps, {
      registry,
      logger,
      deadline,
      startTls: (plain) => secureStream(plain, 'starttls', deadline, settings.tlsConfig, host, registry, resources),
    });
    return await beforeDeadline(deadline, 'query_response', work);
  } catch (error) {
    logger.error('Error during TCP probe', { err: (error as Error).message });
    return withStoppedCheck(failureOf(error, 'connection failed'), deadline);
  } finally {
    resources.destroyAll();
  }
};
