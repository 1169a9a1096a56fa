/**
 * Logging as blackbox_exporter writes it: logfmt or JSON lines (--log.format), with a level threshold
 * (--log.level). Field values are written as given: callers never pass secrets (the config is logged only
 * through its masked form).
 */
import { maskUrl, SECRET_MASK, urlSecrets } from './config/mask';
import type { ProbeLogger } from './probers/types';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['logfmt', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

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

/**
 * One JSON object a line, in the shape of Go's slog JSON handler that upstream's `--log.format=json`
 * writes: `time`, `level` in capitals, `msg`, then the fields.
 */
export function jsonLine(level: LogLevel, message: string, fields: Fields, at: number = Date.now()): string {
  const line: Fields = { time: new Date(at).toISOString(), level: level.toUpperCase(), msg: message };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    line[key] = typeof value === 'number' || typeof value === 'boolean' || value === null ? value : asText(value);
  }
  return JSON.stringify(line);
}

/** One line of the log: `at` is when it was logged (a probe's lines are written later, when read). */
type LineFormat = (level: LogLevel, message: string, fields: Fields, at?: number) => string;

const FORMATTERS: Record<LogFormat, LineFormat> = { logfmt, json: jsonLine };

/** Whether a line at `level` passes `threshold`. */
export function levelEnabled(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
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
  readonly format: LineFormat;

  constructor(
    private readonly threshold: LogLevel = 'info',
    readonly write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
    format: LogFormat = 'logfmt',
    /** Where probes' lines go: at or above this level they are written, whatever `threshold` says (--log.prober). */
    readonly proberThreshold: LogLevel = 'info',
  ) {
    super();
    this.format = FORMATTERS[format];
  }

  enabled(level: LogLevel): boolean {
    return levelEnabled(level, this.threshold);
  }

  log(level: LogLevel, message: string, fields: Fields = {}): void {
    if (this.enabled(level)) this.write(this.format(level, message, fields));
  }
}

/**
 * The logger of one probe. As upstream's since 0.28, it is independent of the exporter's own threshold:
 * lines at or above --log.prober (default info) are written to the exporter's log, whatever --log.level
 * says. The probe's debug output keeps every line, whatever its level, so that `debug=true` shows the
 * whole probe.
 */
export class ProbeLog extends LevelledLogger {
  /**
   * Kept as logged and written as text only when asked for: most probes' logs leave the history unread, and
   * writing every line at once cost each probe about a tenth of what it allocates. Readable as data too, for a
   * caller that reads a field the prober logged (`probekit test`: a DNS rcode).
   */
  readonly entries: Array<{ readonly at: number; readonly level: LogLevel; readonly message: string; readonly fields: Fields }> = [];

  constructor(
    private readonly exporterLog: Logger,
    private readonly context: Fields,
    /** Texts no line may show (a target's password): replaced by <secret> in every field, whatever quotes them. */
    private readonly secrets: readonly string[] = [],
  ) {
    super();
  }

  /**
   * The log of a probe of `target` with module `module`: lines name the target masked, and no field of any
   * line shows a password the target holds, in any form (an error quoting the URL, a decoded password).
   */
  static forTarget(exporterLog: Logger, module: string, target: string): ProbeLog {
    return new ProbeLog(exporterLog, { module, target: maskUrl(target) }, urlSecrets(target));
  }

  /** The target as this log shows it. */
  get shownTarget(): string {
    return String(this.context.target ?? '');
  }

  private redacted(fields: Fields): Fields {
    if (this.secrets.length === 0) return fields;
    const redact = (text: string): string => this.secrets.reduce((result, secret) => result.split(secret).join(SECRET_MASK), text);
    return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' || (value !== null && typeof value === 'object') ? redact(asText(value)) : value]));
  }

  log(level: LogLevel, message: string, fields: Fields = {}): void {
    const all = { ...this.context, ...this.redacted(fields) };
    const at = Date.now();
    this.entries.push({ at, level, message, fields: all });
    if (levelEnabled(level, this.exporterLog.proberThreshold)) this.exporterLog.write(this.exporterLog.format(level, message, all, at));
  }

  /** Takes in lines logged elsewhere for this probe (a probe worker, which wrote them already). */
  adopt(entries: ReadonlyArray<ProbeLog['entries'][number]>): void {
    this.entries.push(...entries);
  }

  text(): string {
    return this.entries.map(({ at, level, message, fields }) => `${this.exporterLog.format(level, message, fields, at)}\n`).join('');
  }
}
