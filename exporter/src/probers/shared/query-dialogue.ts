/**
 * The query_response dialogue of the tcp and unix probers, as upstream's query_response.go: over a
 * connection, wait for a line matching `expect`, compare `expect_bytes`, write `send` (captures of `expect`
 * expanded into it), upgrade with `starttls`; recording probe_failed_due_to_regex, probe_failed_due_to_bytes
 * and probe_expect_info.
 */
import type { Socket } from 'node:net';
import { expandGoTemplate, goMatch, type GoMatch, type Pattern } from '../../config/regexp';
import { runChecks } from './checks';
import { PROBE_EXPECT_INFO, PROBE_FAILED_DUE_TO_BYTES, PROBE_FAILED_DUE_TO_REGEX, gauge, type ProbeRegistry } from '../../metrics';
import type { ProbeDeadline, ProbeLogger, ProbeOutcome } from '../types';
import { failed, SUCCEEDED } from './failure';
import type { DeadlinePhase } from './deadline';
import { secureSocket } from './dial';
import type { Resources } from './resources';
import { recordTlsMetrics, tlsConnectionOptions, tlsConnectionState } from './tls';
import type { TlsSettings } from './tls-config';
import type { QueryStep } from './query-response';
import { StreamReader } from './stream-reader';

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
function expectInfo(registry: ProbeRegistry, labels: NonNullable<QueryStep['labels']>, match: GoMatch): void {
  const names = labels.map((label) => label.name);
  const metric = registry.getSingleMetric(PROBE_EXPECT_INFO.name) ?? gauge(registry, PROBE_EXPECT_INFO, names);
  metric.set(Object.fromEntries(labels.map((label) => [label.name, expandGoTemplate(label.value, match)])), 1);
}

/** What the walk needs from its prober. */
export interface Dialogue {
  readonly registry: ProbeRegistry;
  readonly logger: ProbeLogger;
  /** The probe's: an `expect` too costly to run here runs on a check thread under it (./checks.ts). */
  readonly deadline: ProbeDeadline;
  /** Upgrades `socket` to TLS for a `starttls` step (the prober knows its tls_config and server name). */
  startTls(socket: Socket): Promise<Socket>;
}

/** Upstream's tcp and unix probers report no cipher. */
export const STREAM_TLS_METRICS = { lastChainExpiry: true, cipher: false } as const;

/**
 * TLS over an open stream (`tls: true` on a unix socket, a `starttls` step of either prober), its metrics
 * recorded from the handshake; `serverName` is the name to verify when tls_config names none.
 */
export async function secureStream(
  socket: Socket,
  phase: DeadlinePhase,
  deadline: ProbeDeadline,
  tlsConfig: TlsSettings,
  serverName: string,
  registry: ProbeRegistry,
  resources: Resources,
): Promise<Socket> {
  const options = await tlsConnectionOptions(tlsConfig, serverName);
  const secured = await secureSocket(deadline, phase, socket, options, resources);
  recordTlsMetrics(tlsConnectionState(secured), registry, !tlsConfig.insecureSkipVerify, STREAM_TLS_METRICS);
  return secured;
}

/** `expect`'s match on `line`, here or on a check thread by its cost (./checks.ts); rejects as runChecks does. */
async function expectMatch(expect: Pattern, line: string, dialogue: Dialogue): Promise<GoMatch | null> {
  const job = { kind: 'expect', regexp: expect.source, line } as const;
  const result = await runChecks(job, { patterns: [expect], textLength: line.length }, dialogue.deadline, dialogue.logger, 'query_response regexps');
  return result.match ? goMatch(result.match) : null;
}

/**
 * Walks `steps` over `socket`; resolves to the outcome: a step that did not get what it expects fails with 'query
 * response not matched'. It does not watch the deadline: the prober runs it under beforeDeadline and destroys the sockets it owns when the probe ends; an `expect` stopped
 * at the deadline is said by withStoppedCheck (./checks.ts).
 */
export async function runQueryResponses(socket: Socket, steps: readonly QueryStep[], dialogue: Dialogue): Promise<ProbeOutcome> {
  const { registry, logger } = dialogue;
  const failedDueToRegex = gauge(registry, PROBE_FAILED_DUE_TO_REGEX);
  const failedDueToBytes = gauge(registry, PROBE_FAILED_DUE_TO_BYTES);
  let reader = new StreamReader(socket);
  for (const [index, step] of steps.entries()) {
    logger.debug('Processing query response entry', { entry_number: index });
    let send = bytesOf(step.send);
    if (step.expect !== undefined) {
      let match: GoMatch | null = null;
      let line: string | undefined;
      while (match === null && (line = await reader.line()) !== undefined) {
        logger.debug('Read line', { line });
        match = await expectMatch(step.expect, line, dialogue);
      }
      if (match === null) {
        failedDueToRegex.set(1);
        logger.error('Regexp did not match', { regexp: step.expect.source, line: line ?? '' });
        return failed('query response not matched');
      }
      logger.debug('Regexp matched', { regexp: step.expect.source, line: line ?? '' });
      failedDueToRegex.set(0);
      if (step.send !== undefined) send = expandSend(step.send, match);
      if (step.labels) expectInfo(registry, step.labels, match);
    }
    if (step.expectBytes) {
      const expected = step.expectBytes;
      const received = await reader.bytes(expected.length);
      if (received.length < expected.length) {
        logger.error('Read less data than expected', { expected: expected.toString('hex'), bytes: received.toString('hex') });
        return failed('query response not matched');
      }
      if (!received.equals(expected)) {
        failedDueToBytes.set(1);
        logger.error('Bytes did not match', { expected: expected.toString('hex'), bytes: received.toString('hex') });
        return failed('query response not matched');
      }
      failedDueToBytes.set(0);
    }
    if (send.length > 0) {
      logger.debug('Sending line', { line: send.toString('utf8') });
      await write(socket, send);
    }
    if (step.startTls) {
      reader.detach();
      socket = await dialogue.startTls(socket);
      reader = new StreamReader(socket);
      logger.debug('TLS Handshake (client) succeeded.');
    }
  }
  return SUCCEEDED;
}
