/**
 * The tcp prober: connect (optionally with TLS), then walk the module's query_response steps — wait for a
 * line matching `expect`, compare `expect_bytes`, write `send` (captures of `expect` expanded into it),
 * upgrade with `starttls` — and succeed when every step passed before the deadline.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Gauge, type Registry } from 'prom-client';
import { tcpTarget, type QueryStep, type TcpSettings } from './definition';
import { expandGoTemplate, type GoMatch } from '../../config/regexp';
import { PROBE_FAILED_DUE_TO_REGEX, gauge } from '../../metrics';
import { PROBE_EXPECT_INFO, PROBE_FAILED_DUE_TO_BYTES } from './metrics';
import { resolveTargetAddress } from '../shared/address';
import { beforeDeadline } from '../shared/deadline';
import { Resources } from '../shared/resources';
import { dial, secureSocket } from '../shared/dial';
import { recordTlsMetrics, tlsConnectionOptions, tlsConnectionState } from '../shared/tls';
import type { ProbeDeadline, ProbeLogger, Prober } from '../types';
import { StreamReader } from './stream-reader';

/** Upstream's tcp prober reports no cipher. */
const TCP_TLS_METRICS = { lastChainExpiry: true, cipher: false } as const;

interface Connection {
  socket: Socket;
  reader: StreamReader;
  /** Every socket of the probe (TCP, TLS on it, TLS after starttls), destroyed when it ends. */
  readonly resources: Resources;
}

async function openConnection(deadline: ProbeDeadline, host: string, port: number, settings: TcpSettings, registry: Registry, logger: ProbeLogger, resources: Resources): Promise<Socket> {
  const resolved = await resolveTargetAddress(host, settings.ip, deadline, registry, logger);
  if (settings.sourceAddress) logger.info('Using local address', { srcIP: settings.sourceAddress });
  const tlsOptions = settings.tls ? await tlsConnectionOptions(settings.tlsConfig, host) : undefined;
  logger.info(settings.tls ? 'Dialing TCP with TLS' : 'Dialing TCP without TLS', { address: resolved.address, port });
  const endpoint = { address: resolved.address, port, family: resolved.family, source: settings.sourceAddress };
  const socket = await dial(deadline, endpoint, tlsOptions, resources);
  if (tlsOptions) recordTlsMetrics(tlsConnectionState(socket as TLSSocket), registry, !settings.tlsConfig.insecureSkipVerify, TCP_TLS_METRICS);
  return socket;
}

async function startTls(connection: Connection, deadline: ProbeDeadline, host: string, settings: TcpSettings, registry: Registry): Promise<void> {
  const options = await tlsConnectionOptions(settings.tlsConfig, host);
  connection.reader.detach();
  const secured = await secureSocket(deadline, 'starttls', connection.socket, options, connection.resources);
  connection.socket = secured;
  connection.reader = new StreamReader(secured);
  recordTlsMetrics(tlsConnectionState(secured), registry, !settings.tlsConfig.insecureSkipVerify, TCP_TLS_METRICS);
}

/** Writes `line` and a newline, as upstream's Fprintf("%s\n"). */
function write(socket: Socket, line: Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(Buffer.concat([line, Buffer.from('\n')]), (error) => (error ? reject(error) : resolve())));
}

/** Text as UTF-8; `!!binary` bytes as they are. */
function bytesOf(value: string | Buffer | undefined): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : (value ?? Buffer.alloc(0));
}

/**
 * `send` with `expect`'s captures expanded. Bytes are expanded as Latin-1 text, which maps each byte to
 * one character and back, so the bytes around a `${1}` stay exactly as they were.
 */
function expandSend(send: string | Buffer, match: GoMatch): Buffer {
  if (typeof send === 'string') return Buffer.from(expandGoTemplate(send, match), 'utf8');
  return Buffer.from(expandGoTemplate(send.toString('latin1'), match), 'latin1');
}

/** Label names of probe_expect_info are the module's; one gauge serves every step that names the same ones. */
function expectInfo(registry: Registry, labels: NonNullable<QueryStep['labels']>, match: GoMatch): void {
  const names = labels.map((label) => label.name);
  let metric = registry.getSingleMetric(PROBE_EXPECT_INFO.name) as Gauge | undefined;
  metric ??= new Gauge({ name: PROBE_EXPECT_INFO.name, help: PROBE_EXPECT_INFO.help, labelNames: names, registers: [registry] });
  metric.set(Object.fromEntries(labels.map((label) => [label.name, expandGoTemplate(label.value, match)])), 1);
}

async function queryResponses(
  connection: Connection,
  steps: readonly QueryStep[],
  deadline: ProbeDeadline,
  host: string,
  settings: TcpSettings,
  registry: Registry,
  logger: ProbeLogger,
  failedDueToRegex: Gauge,
  failedDueToBytes: Gauge | undefined,
): Promise<boolean> {
  for (const [index, step] of steps.entries()) {
    logger.info('Processing query response entry', { entry_number: index });
    let send = bytesOf(step.send);
    if (step.expect !== undefined) {
      const pattern = step.expect.regexp;
      let match: GoMatch | null = null;
      let line: string | undefined;
      while (match === null && (line = await connection.reader.line()) !== undefined) {
        logger.debug('Read line', { line });
        match = pattern.exec(line);
      }
      if (match === null) {
        failedDueToRegex.set(1);
        logger.error('Regexp did not match', { regexp: step.expect.source, line: line ?? '' });
        return false;
      }
      logger.info('Regexp matched', { regexp: step.expect.source, line: line ?? '' });
      failedDueToRegex.set(0);
      if (step.send !== undefined) send = expandSend(step.send, match);
      if (step.labels) expectInfo(registry, step.labels, match);
    }
    if (step.expectBytes) {
      const expected = step.expectBytes;
      const received = await connection.reader.bytes(expected.length);
      if (received.length < expected.length) {
        logger.error('Read less data than expected', { expected: expected.toString('hex'), bytes: received.toString('hex') });
        return false;
      }
      if (!received.equals(expected)) {
        failedDueToBytes?.set(1);
        logger.error('Bytes did not match', { expected: expected.toString('hex'), bytes: received.toString('hex') });
        return false;
      }
      failedDueToBytes?.set(0);
    }
    if (send.length > 0) {
      logger.debug('Sending line', { line: send.toString('utf8') });
      await write(connection.socket, send);
    }
    if (step.startTls) {
      await startTls(connection, deadline, host, settings, registry);
      logger.info('TLS Handshake (client) succeeded.');
    }
  }
  return true;
}

export const probeTcp: Prober<'tcp'> = async (deadline, target, module, registry, logger) => {
  const settings = module.tcp;
  const steps = settings.steps;
  const failedDueToRegex = gauge(registry, PROBE_FAILED_DUE_TO_REGEX);
  // Registered only where used: blackbox_exporter 0.23 has no expect_bytes and so no such metric.
  const failedDueToBytes = steps.some((step) => step.expectBytes) ? gauge(registry, PROBE_FAILED_DUE_TO_BYTES) : undefined;
  const parsed = tcpTarget.parse(target);
  if (!parsed.ok) {
    logger.error('Error splitting target address and port', { target, err: parsed.problem });
    return false;
  }
  const { host, port } = parsed.target;
  const resources = new Resources(logger);
  try {
    const socket = await openConnection(deadline, host, port, settings, registry, logger, resources);
    const connection: Connection = { socket, reader: new StreamReader(socket), resources };
    logger.info('Successfully dialed');
    const work = queryResponses(connection, steps, deadline, host, settings, registry, logger, failedDueToRegex, failedDueToBytes);
    return await beforeDeadline(deadline, 'query_response', work);
  } catch (error) {
    logger.error('Error during TCP probe', { err: (error as Error).message });
    return false;
  } finally {
    resources.destroyAll();
  }
};
