/**
 * Probe outcomes, and the reason of a failure told from what failed: the deadline and its phase, the
 * dialer's TLS handshake, a socket's error code. Each prober names the reasons it decides itself (a
 * status, a regexp, an rcode) where it decides them, and passes errors through `failureOf`; no error
 * text is read.
 */
import type { FailureReason, TimeoutPhase } from '../../contract/failure-reasons';
import type { ProbeOutcome } from '../types';
import { ConfiguredFileError } from './config-file';
import { DEADLINE_PHASES, DeadlineExceeded, ProbeInterrupted } from './deadline';
import { TargetRefused } from './target-guard';

export const SUCCEEDED: ProbeOutcome = { success: true };

export function failed(reason: FailureReason, phase?: TimeoutPhase): ProbeOutcome {
  return phase === undefined ? { success: false, reason } : { success: false, reason, phase };
}

/** A failure for `reason` with what exactly was not accepted (ProbeFailure's detail). */
export function failedBecause(reason: FailureReason, detail: string): ProbeOutcome {
  return { success: false, reason, detail };
}

/** The outcome of a check: success when it passed, else a failure for `reason`. */
export function passedOr(passed: boolean, reason: FailureReason): ProbeOutcome {
  return passed ? SUCCEEDED : failed(reason);
}

/** A TLS handshake that failed, as the dialer reports it: the handshake's own error, with its code. */
export class TlsHandshakeError extends Error {
  readonly code?: string;
  constructor(cause: Error & { code?: string }) {
    super(cause.message, { cause });
    this.name = cause.name;
    this.code = cause.code;
  }
}

/**
 * OpenSSL's certificate verification results and Node's name check, as error codes: the server's
 * certificate did not verify, which is not a failed handshake but a certificate to fix.
 */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Socket error codes of a connection that could not be made or was lost (a refusal has its own reason). */
const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'EADDRINUSE',
  'ETIMEDOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_SOCKET_CLOSED',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_GOAWAY_SESSION',
]);

/**
 * The failure `error` stands for: a timeout with its phase, an interrupted probe, a TLS handshake or
 * certificate, a target the allow-list refused, a refused or lost connection, a file the module names that cannot be read; anything else is `otherwise`, the reason of the step the
 * prober was taking (resolving, reading a file, speaking the protocol).
 */
export function failureOf(error: unknown, otherwise: FailureReason): ProbeOutcome {
  if (error instanceof DeadlineExceeded) return failed('timed out', DEADLINE_PHASES[error.phase]);
  if (error instanceof ProbeInterrupted) return failed('probe interrupted');
  if (error instanceof TargetRefused) return failed('target refused');
  if (error instanceof ConfiguredFileError) return failed('target or module not usable');
  const code = (error as { code?: unknown } | undefined)?.code;
  if (error instanceof TlsHandshakeError) return failed(typeof code === 'string' && CERTIFICATE_CODES.has(code) ? 'certificate not valid' : 'TLS handshake failed');
  if (code === 'ECONNREFUSED') return failed('connection refused');
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return failed('connection failed');
  return failed(otherwise);
}
