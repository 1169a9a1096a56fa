/**
 * The unix prober: connect to the stream socket at the target path (optionally with TLS), then walk the
 * module's query_response steps as the tcp prober does, and succeed when every step passed before the deadline.
 */
import type { Socket } from 'node:net';
import type { Registry } from 'prom-client';
import { unixTarget, type UnixSettings } from './definition';
import { beforeDeadline } from '../shared/deadline';
import { connectUnix, secureSocket } from '../shared/dial';
import { runQueryResponses } from '../shared/query-dialogue';
import { Resources } from '../shared/resources';
import { recordTlsMetrics, tlsConnectionOptions, tlsConnectionState } from '../shared/tls';
import type { ProbeDeadline, Prober } from '../types';

/** Upstream's unix prober reports what its tcp prober does over TLS: no cipher. */
const UNIX_TLS_METRICS = { lastChainExpiry: true, cipher: false } as const;

/** TLS over `socket`; a socket path has no host name, so only tls_config's server_name names the server, as upstream. */
async function secure(socket: Socket, phase: string, deadline: ProbeDeadline, settings: UnixSettings, registry: Registry, resources: Resources): Promise<Socket> {
  const options = await tlsConnectionOptions(settings.tlsConfig, '');
  const secured = await secureSocket(deadline, phase, socket, options, resources);
  recordTlsMetrics(tlsConnectionState(secured), registry, !settings.tlsConfig.insecureSkipVerify, UNIX_TLS_METRICS);
  return secured;
}

export const probeUnix: Prober<'unix'> = async (deadline, target, module, registry, logger) => {
  const settings = module.unix;
  const parsed = unixTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Error dialing unix', { target, err: parsed.problem });
    return false;
  }
  const resources = new Resources(logger);
  try {
    logger.debug(settings.tls ? 'Dialing unix with TLS' : 'Dialing unix without TLS', { path: parsed.target });
    let socket = await connectUnix(deadline, parsed.target, resources);
    if (settings.tls) socket = await secure(socket, 'tls', deadline, settings, registry, resources);
    logger.debug('Successfully dialed');
    const work = runQueryResponses(socket, settings.steps, { registry, logger, startTls: (plain) => secure(plain, 'starttls', deadline, settings, registry, resources) });
    return await beforeDeadline(deadline, 'query_response', work);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A permission error says so, as upstream's does: the exporter's user cannot open the socket.
    const message = code === 'EACCES' || code === 'EPERM' ? `permission denied connecting to unix socket ${target}: ${(error as Error).message}` : (error as Error).message;
    logger.error('Error dialing unix', { err: message });
    return false;
  } finally {
    resources.destroyAll();
  }
};
