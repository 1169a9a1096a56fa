/**
 * The unix prober: connect to the stream socket at the target path (optionally with TLS), then walk the
 * module's query_response steps as the tcp prober does, and succeed when every step passed before the deadline.
 */
import { unixTarget } from './definition';
import { beforeDeadline } from '../shared/deadline';
import { connectUnix } from '../shared/dial';
import { runQueryResponses, secureStream } from '../shared/query-dialogue';
import { withStoppedCheck } from '../shared/checks';
import { Resources } from '../shared/resources';
import type { Prober } from '../types';
import { failed, failureOf } from '../shared/failure';

/** A socket path has no host name: only tls_config's server_name names the server, as upstream. */
const NO_SERVER_NAME = '';

export const probeUnix: Prober<'unix'> = async (deadline, target, module, registry, logger) => {
  const settings = module.unix;
  const parsed = unixTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Error dialing unix', { target, err: parsed.problem });
    return failed('target or module not usable');
  }
  const resources = new Resources(logger);
  try {
    logger.debug(settings.tls ? 'Dialing unix with TLS' : 'Dialing unix without TLS', { path: parsed.target });
    let socket = await connectUnix(deadline, parsed.target, resources);
    if (settings.tls) socket = await secureStream(socket, 'tls', deadline, settings.tlsConfig, NO_SERVER_NAME, registry, resources);
    logger.debug('Successfully dialed');
    const work = runQueryResponses(socket, settings.steps, {
      registry,
      logger,
      deadline,
      startTls: (plain) => secureStream(plain, 'starttls', deadline, settings.tlsConfig, NO_SERVER_NAME, registry, resources),
    });
    return await beforeDeadline(deadline, 'query_response', work);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A permission error says so, as upstream's does: the exporter's user cannot open the socket.
    const message = code === 'EACCES' || code === 'EPERM' ? `permission denied connecting to unix socket ${target}: ${(error as Error).message}` : (error as Error).message;
    logger.error('Error dialing unix', { err: message });
    return withStoppedCheck(failureOf(error, 'connection failed'), deadline);
  } finally {
    resources.destroyAll();
  }
};
