/**
 * Logging in logfmt, as blackbox_exporter writes it, with a level threshold (--log.level). Field values
 * are written as given: callers never pass secrets (the config is logged only through its masked form).
 */
import type { ProbeLogger } from './probers/types';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type Fields = Record<string, unknown>;

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  // Errors from other realms (node internals under test runners) fail instanceof; their message is what counts.
  if (value !== null && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') return (value as Error).message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function formatValue(value: unknown): string {
  const text = asText(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/** One line; `at` (milliseconds since the epoch) is when it was logged, by default now. */
export function logfmt(level: LogLevel, message: string, fields: Fields, at: number = Date.now()): string {
  const parts = [`ts=${new Date(at).toISOString()}`, `level=${level}`, `msg=${formatValue(message)}`];
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(`${key}=${formatValue(value)}`);
  }
  return parts.join(' ');
}

/** The four level methods of ProbeLogger, on top of one `log`. */
abstract class LevelledLogger implements ProbeLogger {
  abstract log(level: LogLevel, message: string, fields?: Fields): void;

  debug(message: string, fields?: Fields): void {
    this.log('debug', message, fields);
  }
  info(message: string, fields?: Fields): void {
    this.log('info', message, fields);
  }
  warn(message: string, fields?: Fields): void {
    this.log('warn', message, fields);
  }
  error(message: string, fields?: Fields): void {
    this.log('error', message, fields);
  }
}

export class Logger extends LevelledLogger {
  constructor(
    private readonly threshold: LogLevel = 'info',
    private readonly write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    super();
  }

  enabled(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(this.threshold);
  }

  log(level: LogLevel, message: string, fields: Fields = {}): void {
    if (this.enabled(level)) this.write(logfmt(level, message, fields));
  }
}

/**
 * The logger of one probe: every line, whatever its level, goes to the probe's debug output; the exporter's
 * log gets them at debug level (a failing target is not an exporter error), as upstream does.
 */
export class ProbeLog extends LevelledLogger {
  /**
   * Kept as logged and written as text only when asked for: most probes' logs leave the history unread, and
   * writing every line at once cost each probe about a tenth of what it allocates.
   */
  private readonly entries: Array<{ readonly at: number; readonly level: LogLevel; readonly message: string; readonly fields: Fields }> = [];

  constructor(
    private readonly exporterLog: Logger,
    private readonly context: Fields,
  ) {
    super();
  }

  log(level: LogLevel, message: string, fields: Fields = {}): void {
    const all = { ...this.context, ...fields };
    this.entries.push({ at: Date.now(), level, message, fields: all });
    this.exporterLog.log('debug', message, all);
  }

  text(): string {
    return this.entries.map(({ at, level, message, fields }) => `${logfmt(level, message, fields, at)}\n`).join('');
  }
}
