/**
 * The tcp prober: connect (optionally with TLS), then walk the module's query_response steps — wait for a
 * line matching `expect`, compare `expect_bytes`, write `send` (captures of `expect` expanded into it),
 * upgrade with `starttls` — and succeed when every step passed before the deadline.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Gauge, type Registry } from 'prom-client';
import { tcpSectionSchema, type QueryResponse, type TcpSection } from './definition';
import { compileGoRegexp, expandGoTemplate } from '../../config/regexp';
import { PROBE_FAILED_DUE_TO_REGEX, gauge } from '../../metrics';
import { PROBE_EXPECT_INFO, PROBE_FAILED_DUE_TO_BYTES } from './metrics';
import { resolveTargetAddress } from '../shared/address';
import { beforeDeadline } from '../shared/deadline';
import { portNumber, splitHostPort } from '../shared/host-port';
import { Resources } from '../shared/resources';
import { dial, secureSocket } from '../shared/dial';
import { recordTlsMetrics, tlsConnectionOptions } from '../shared/tls';
import type { ProbeDeadline, ProbeLogger, Prober } from '../types';

/** Upstream's tcp prober reports no cipher. */
const TCP_TLS_METRICS = { lastChainExpiry: true, cipher: false } as const;

/** Go's bufio.Scanner gives up on longer lines; so does this reader, rather than buffering without end. */
const MAX_LINE_BYTES = 64 * 1024;

/**
 * Lines and exact byte counts from a stream, read as they arrive. Lines end at `\n`, a `\r` before it is
 * dropped, and the unterminated rest counts as a last line at end of stream, as Go's line scanner does.
 */
class StreamReader {
  private buffered = Buffer.alloc(0);
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly stream: Socket) {
    stream.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.notify();
    });
    stream.on('end', () => {
      this.ended = true;
      this.notify();
    });
    stream.on('error', (error) => {
      this.failure = error;
      this.notify();
    });
  }

  /** Stops delivering data, so that a TLS upgrade can take the socket over. */
  detach(): void {
    this.stream.removeAllListeners('data');
    this.stream.removeAllListeners('end');
    this.stream.pause();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async more(): Promise<void> {
    if (this.failure) throw this.failure;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    if (this.failure) throw this.failure;
  }

  /** The next line, or undefined at end of stream. */
  async line(): Promise<string | undefined> {
    for (;;) {
      const newline = this.buffered.indexOf(0x0a);
      if (newline >= 0) {
        const line = this.buffered.subarray(0, newline);
        this.buffered = this.buffered.subarray(newline + 1);
        return (line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line).toString('utf8');
      }
      if (this.buffered.length > MAX_LINE_BYTES) throw new Error(`line longer than ${MAX_LINE_BYTES} bytes`);
      if (this.ended) {
        if (this.buffered.length === 0) return undefined;
        const rest = this.buffered;
        this.buffered = Buffer.alloc(0);
        return rest.toString('utf8');
      }
      await this.more();
    }
  }

  /** The next `count` bytes, or fewer when the stream ends first. */
  async bytes(count: number): Promise<Buffer> {
    while (this.buffered.length < count && !this.ended) await this.more();
    const taken = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(taken.length);
    return taken;
  }
}


interface Connection {
  socket: Socket;
  reader: StreamReader;
  /** Every socket of the probe (TCP, TLS on it, TLS after starttls), destroyed when it ends. */
  readonly resources: Resources;
}

async function openConnection(
  deadline: ProbeDeadline,
  host: string,
  port: number,
  settings: TcpSection,
  registry: Registry,
  logger: ProbeLogger,
  resources: Resources,
): Promise<Socket> {
  const resolved = await resolveTargetAddress(host, settings, deadline, registry, logger);
  if (settings.source_ip_address) logger.info('Using local address', { srcIP: settings.source_ip_address });
  const tlsOptions = settings.tls ? await tlsConnectionOptions(settings.tls_config, host) : undefined;
  logger.info(settings.tls ? 'Dialing TCP with TLS' : 'Dialing TCP without TLS', { address: resolved.address, port });
  const endpoint = { address: resolved.address, port, family: resolved.family, source: settings.source_ip_address };
  const socket = await dial(deadline, endpoint, tlsOptions, resources);
  if (tlsOptions) recordTlsMetrics(socket as TLSSocket, registry, !settings.tls_config.insecure_skip_verify, TCP_TLS_METRICS);
  return socket;
}

async function startTls(connection: Connection, deadline: ProbeDeadline, host: string, settings: TcpSection, registry: Registry): Promise<void> {
  const options = await tlsConnectionOptions(settings.tls_config, host);
  connection.reader.detach();
  const secured = await secureSocket(deadline, 'starttls', connection.socket, options, connection.resources);
  connection.socket = secured;
  connection.reader = new StreamReader(secured);
  recordTlsMetrics(secured, registry, !settings.tls_config.insecure_skip_verify, TCP_TLS_METRICS);
}

/** Writes `line` and a newline, as upstream's Fprintf("%s\n"). */
function write(socket: Socket, line: Buffer): Promise<void> {
  return new Promise((resolve, reject) => socket.write(Buffer.concat([line, Buffer.from('\n')]), (error) => (error ? reject(error) : resolve())));
}

/** Text as UTF-8; `!!binary` bytes as they are. */
function bytesOf(value: string | Uint8Array): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
}

/**
 * `send` with `expect`'s captures expanded. Bytes are expanded as Latin-1 text, which maps each byte to
 * one character and back, so the bytes around a `${1}` stay exactly as they were.
 */
function expandSend(send: string | Uint8Array, match: RegExpExecArray): Buffer {
  if (typeof send === 'string') return Buffer.from(expandGoTemplate(send, match), 'utf8');
  return Buffer.from(expandGoTemplate(Buffer.from(send).toString('latin1'), match), 'latin1');
}

/** Label names of probe_expect_info are the module's; one gauge serves every step that names the same ones. */
function expectInfo(registry: Registry, labels: NonNullable<QueryResponse['labels']>, match: RegExpExecArray): void {
  const names = labels.map((label) => label.name);
  let metric = registry.getSingleMetric(PROBE_EXPECT_INFO.name) as Gauge | undefined;
  metric ??= new Gauge({ name: PROBE_EXPECT_INFO.name, help: PROBE_EXPECT_INFO.help, labelNames: names, registers: [registry] });
  metric.set(Object.fromEntries(labels.map((label) => [label.name, expandGoTemplate(label.value, match)])), 1);
}

async function queryResponses(
  connection: Connection,
  steps: readonly QueryResponse[],
  deadline: ProbeDeadline,
  host: string,
  settings: TcpSection,
  registry: Registry,
  logger: ProbeLogger,
  failedDueToRegex: Gauge,
  failedDueToBytes: Gauge | undefined,
): Promise<boolean> {
  for (const [index, step] of steps.entries()) {
    logger.info('Processing query response entry', { entry_number: index });
    let send = bytesOf(step.send ?? '');
    if (step.expect !== undefined) {
      const pattern = compileGoRegexp(step.expect);
      let match: RegExpExecArray | null = null;
      let line: string | undefined;
      while (match === null && (line = await connection.reader.line()) !== undefined) {
        logger.debug('Read line', { line });
        match = pattern.exec(line);
      }
      if (match === null) {
        failedDueToRegex.set(1);
        logger.error('Regexp did not match', { regexp: step.expect, line: line ?? '' });
        return false;
      }
      logger.info('Regexp matched', { regexp: step.expect, line: line ?? '' });
      failedDueToRegex.set(0);
      if (step.send !== undefined) send = expandSend(step.send, match);
      if (step.labels) expectInfo(registry, step.labels, match);
    }
    if (step.expect_bytes) {
      const expected = bytesOf(step.expect_bytes);
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
    if (step.starttls) {
      await startTls(connection, deadline, host, settings, registry);
      logger.info('TLS Handshake (client) succeeded.');
    }
  }
  return true;
}

export const probeTcp: Prober = async (deadline, target, module, registry, logger) => {
  const settings = module.tcp ?? tcpSectionSchema.parse({});
  const steps = settings.query_response ?? [];
  const failedDueToRegex = gauge(registry, PROBE_FAILED_DUE_TO_REGEX);
  // Registered only where used: blackbox_exporter 0.23 has no expect_bytes and so no such metric.
  const failedDueToBytes = steps.some((step) => step.expect_bytes) ? gauge(registry, PROBE_FAILED_DUE_TO_BYTES) : undefined;
  const split = splitHostPort(target);
  const port = split ? portNumber(split.port) : undefined;
  if (!split || port === undefined) {
    logger.error('Error splitting target address and port', { target, err: 'the target must be host:port' });
    return false;
  }
  const resources = new Resources();
  try {
    const socket = await openConnection(deadline, split.host, port, settings, registry, logger, resources);
    const connection: Connection = { socket, reader: new StreamReader(socket), resources };
    logger.info('Successfully dialed');
    const work = queryResponses(connection, steps, deadline, split.host, settings, registry, logger, failedDueToRegex, failedDueToBytes);
    return await beforeDeadline(deadline, 'query_response', work);
  } catch (error) {
    logger.error('Error during TCP probe', { err: (error as Error).message });
    return false;
  } finally {
    resources.destroyAll();
  }
};
