/**
 * The tcp prober: connect (optionally with TLS), then walk the module's query_response steps (the dialogue
 * it shares with the unix prober, ../shared/query-response.ts), and succeed when every step passed before
 * the deadline.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Registry } from 'prom-client';
import { tcpTarget, type TcpSettings } from './definition';
import { resolveTargetAddress } from '../shared/address';
import { beforeDeadline } from '../shared/deadline';
import { Resources } from '../shared/resources';
import { dial, secureSocket } from '../shared/dial';
import { runQueryResponses } from '../shared/query-dialogue';
import { recordTlsMetrics, tlsConnectionOptions, tlsConnectionState } from '../shared/tls';
import type { ProbeDeadline, ProbeLogger, Prober } from '../types';

/** Upstream's tcp prober reports no cipher. */
const TCP_TLS_METRICS = { lastChainExpiry: true, cipher: false } as const;

async function openConnection(deadline: ProbeDeadline, host: string, port: number, settings: TcpSettings, registry: Registry, logger: ProbeLogger, resources: Resources): Promise<Socket> {
  const resolved = await resolveTargetAddress(host, settings.ip, deadline, registry, logger);
  if (settings.sourceAddress) logger.debug('Using local address', { srcIP: settings.sourceAddress });
  const tlsOptions = settings.tls ? await tlsConnectionOptions(settings.tlsConfig, host) : undefined;
  logger.debug(settings.tls ? 'Dialing TCP with TLS' : 'Dialing TCP without TLS', { address: resolved.address, port });
  const endpoint = { address: resolved.address, port, family: resolved.family, source: settings.sourceAddress };
  const socket = await dial(deadline, endpoint, tlsOptions, resources);
  if (tlsOptions) recordTlsMetrics(tlsConnectionState(socket as TLSSocket), registry, !settings.tlsConfig.insecureSkipVerify, TCP_TLS_METRICS);
  return socket;
}

/** Upgrades the connection for a `starttls` step; the server name defaults to the target's host, as upstream's. */
async function startTls(socket: Socket, deadline: ProbeDeadline, host: string, settings: TcpSettings, registry: Registry, resources: Resources): Promise<Socket> {
  const options = await tlsConnectionOptions(settings.tlsConfig, host);
  const secured = await secureSocket(deadline, 'starttls', socket, options, resources);
  recordTlsMetrics(tlsConnectionState(secured), registry, !settings.tlsConfig.insecureSkipVerify, TCP_TLS_METRICS);
  return secured;
}

export const probeTcp: Prober<'tcp'> = async (deadline, target, module, registry, logger) => {
  const settings = module.tcp;
  const parsed = tcpTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Error splitting target address and port', { target, err: parsed.problem });
    return false;
  }
  const { host, port } = parsed.target;
  const resources = new Resources(logger);
  try {
    const socket = await openConnection(deadline, host, port, settings, registry, logger, resources);
    logger.debug('Successfully dialed');
    const work = runQueryResponses(socket, settings.steps, { registry, logger, startTls: (plain) => startTls(plain, deadline, host, settings, registry, resources) });
    return await beforeDeadline(deadline, 'query_response', work);
  } catch (error) {
    logger.error('Error during TCP probe', { err: (error as Error).message });
    return false;
  } finally {
    resources.destroyAll();
  }
};
