/**
 * The icmp prober: one echo request to the target, success when the matching echo reply arrives before
 * the deadline. As upstream on Linux, it tries the kernel's unprivileged ping socket first and a raw
 * socket (root or CAP_NET_RAW) second; without either the probe fails with a line saying what is missing.
 */
import { icmpTarget, type IcmpSettings } from './definition';
import { gauge, phaseGauge } from '../../metrics';
import { ICMP_PHASES, PROBE_ICMP_DURATION, PROBE_ICMP_REPLY_HOP_LIMIT } from './metrics';
import { resolveTargetAddress } from '../shared/address';
import { icmpAddonProblem, openIcmpSocket, type IcmpFamily, type IcmpSocket, type IcmpSocketError } from './socket';
import { echoRequest, isExpectedReply } from './echo';
import type { ProbeDeadline, ProbeLogger, Prober } from '../types';
import { failed, failureOf, SUCCEEDED } from '../shared/failure';
import { ProbeInterrupted } from '../shared/deadline';

let lastSequence = 0;

function nextSequence(): number {
  lastSequence = (lastSequence + 1) & 0xffff;
  return lastSequence;
}

/**
 * The echo identifier of a probe on a raw socket: each probe in flight has its own (from this process's id
 * on), so that the kernel's filter hands each probe's socket its own replies only.
 */
let lastRawIdentifier = process.pid;

function nextRawIdentifier(): number {
  lastRawIdentifier = (lastRawIdentifier + 1) & 0xffff;
  return lastRawIdentifier;
}

interface OpenedSocket {
  readonly socket: IcmpSocket;
  readonly raw: boolean;
}

const PERMISSION_ERRORS = new Set(['EPERM', 'EACCES']);

/**
 * A ping socket if the kernel allows one to this process's group (net.ipv4.ping_group_range), else a raw
 * socket. Throws with the capability named when neither is allowed.
 */
function openEchoSocket(
  family: IcmpFamily,
  settings: IcmpSettings,
  rawIdentifier: number,
  onMessage: (message: Buffer, from: string, hopLimit: number, raw: boolean) => void,
  logger: ProbeLogger,
): OpenedSocket {
  const common = { family, source: settings.sourceAddress, ttl: settings.ttl, dontFragment: settings.dontFragment };
  let pingError: IcmpSocketError;
  try {
    const socket = openIcmpSocket({ ...common, raw: false }, (message, from, hopLimit) => onMessage(message, from, hopLimit, false));
    return { socket, raw: false };
  } catch (error) {
    pingError = error as IcmpSocketError;
    logger.debug('Unprivileged ping socket refused, trying a raw socket', { err: pingError.message });
  }
  try {
    const socket = openIcmpSocket({ ...common, raw: true, echoIdentifier: rawIdentifier }, (message, from, hopLimit) => onMessage(message, from, hopLimit, true));
    return { socket, raw: true };
  } catch (error) {
    const rawError = error as IcmpSocketError;
    if (PERMISSION_ERRORS.has(rawError.code ?? '') && PERMISSION_ERRORS.has(pingError.code ?? '')) {
      const group = typeof process.getgid === 'function' ? process.getgid() : 'of this process';
      throw new Error(
        `ICMP needs the CAP_NET_RAW capability (or root) for a raw socket, or net.ipv4.ping_group_range including group ${group} for a ping socket; neither is granted (${rawError.message})`,
      );
    }
    throw rawError;
  }
}

export const probeIcmp: Prober<'icmp'> = async (deadline, target, module, registry, logger, options) => {
  const settings = module.icmp;
  const durations = phaseGauge(registry, PROBE_ICMP_DURATION, ICMP_PHASES);
  // A missing addon is a broken install, not a target's failure: said first, with where the addon belongs.
  const addonProblem = icmpAddonProblem();
  if (addonProblem !== undefined) {
    logger.error('The ICMP addon is missing; icmp probes cannot run', { err: addonProblem });
    return failed('internal error');
  }

  const parsed = icmpTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Could not parse target', { target, err: parsed.problem });
    return failed('target or module not usable');
  }
  let family: IcmpFamily;
  let address: string;
  try {
    const resolved = await resolveTargetAddress(parsed.target, settings.ip, deadline, registry, logger, options.guard);
    family = resolved.family;
    address = resolved.address;
    durations.set({ phase: 'resolve' }, resolved.lookupSeconds);
  } catch (error) {
    logger.warn('Error resolving address', { err: (error as Error).message });
    return failureOf(error, 'resolve failed');
  }

  const setupStarted = performance.now();
  const sequence = nextSequence();
  const payload = settings.payload;
  let reply: ((hopLimit: number) => void) | undefined;
  let identifier = nextRawIdentifier();

  const onMessage = (message: Buffer, from: string, hopLimit: number, raw: boolean): void => {
    const expected = { family, from: address, identifier: raw ? identifier : undefined, sequence, payload };
    if (isExpectedReply(message, from, expected)) reply?.(hopLimit);
  };

  let opened: OpenedSocket;
  try {
    logger.debug('Creating socket', { family: `ip${family}` });
    opened = openEchoSocket(family, settings, identifier, onMessage, logger);
  } catch (error) {
    logger.error('Error listening to socket', { err: (error as Error).message });
    // No ICMP socket (no CAP_NET_RAW, no ping group): no echo could go out, which the log says in words.
    return failureOf(error, 'connection failed');
  }

  try {
    if (!opened.raw) identifier = opened.socket.localPort();
    const request = echoRequest(family, identifier, sequence, payload);
    durations.set({ phase: 'setup' }, (performance.now() - setupStarted) / 1000);
    logger.debug('Writing out packet', { seq: sequence, id: identifier, raw: opened.raw });
    const rttStarted = performance.now();
    const replied = waitForReply(deadline, (resolve) => {
      reply = resolve;
    });
    try {
      opened.socket.send(request, address);
    } catch (error) {
      logger.warn('Error writing to socket', { err: (error as Error).message });
      reply?.(Number.NaN);
      return failureOf(error, 'connection failed');
    }
    const hopLimit = await replied;
    if (hopLimit === undefined) {
      logger.warn('Timeout reading from socket', { seq: sequence });
      return deadline.signal.reason instanceof ProbeInterrupted ? failed('probe interrupted') : failed('ICMP no reply');
    }
    durations.set({ phase: 'rtt' }, (performance.now() - rttStarted) / 1000);
    if (hopLimit >= 0) {
      const hopLimitGauge = gauge(registry, PROBE_ICMP_REPLY_HOP_LIMIT);
      hopLimitGauge.set(hopLimit);
    }
    logger.debug('Found matching reply packet', { seq: sequence });
    return SUCCEEDED;
  } finally {
    opened.socket.close();
  }
};

/** The hop limit of the reply, or undefined when the deadline passes first. */
function waitForReply(deadline: ProbeDeadline, register: (resolve: (hopLimit: number) => void) => void): Promise<number | undefined> {
  return new Promise((resolve) => {
    const finish = (hopLimit: number | undefined): void => {
      deadline.signal.removeEventListener('abort', onAbort);
      resolve(hopLimit);
    };
    const onAbort = (): void => finish(undefined);
    if (deadline.signal.aborted) return finish(undefined);
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    register((hopLimit) => finish(Number.isNaN(hopLimit) ? undefined : hopLimit));
  });
}
