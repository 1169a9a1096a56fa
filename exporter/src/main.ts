#!/usr/bin/env node
/**
 * probekit-exporter: command line as blackbox_exporter's, so service units and containers written for it work.
 */
import { isMainThread } from 'node:worker_threads';
import { GO_DURATION_HINT, parseGoDuration } from './config/duration';
import { loadConfigFile, ConfigError } from './config/load';
import { DEFAULT_CONFIG_FILE, EXPORTER_PORT } from './contract/endpoints';
import { LOG_LEVELS, Logger, type LogLevel } from './log';
import { warnWhenIcmpAddonMissing } from './probers/icmp/socket';
import { Exporter } from './server/exporter-server';
import { loadWebConfig } from './server/web-config';
import { EXPORTER_VERSION } from './version';

interface Flags {
  configFile: string;
  listenAddress: string;
  configCheck: boolean;
  timeoutOffset: number;
  logLevel: LogLevel;
  historyLimit: number;
  /** Milliseconds that in-flight requests get to finish after SIGTERM or SIGINT. */
  shutdownTimeoutMs: number;
  version: boolean;
  /** TLS, basic auth and headers of the exporter's endpoints (./server/web-config.ts). */
  webConfigFile?: string;
}

/**
 * A probe runs at most its scrape's timeout; 25s covers Prometheus' usual ones and still ends before the
 * 30s a Kubernetes pod gets between SIGTERM and SIGKILL by default.
 */
const DEFAULT_SHUTDOWN_TIMEOUT = '25s';

const USAGE = `usage: probekit-exporter [flags]
  --config.file=FILE           config file (default ${DEFAULT_CONFIG_FILE})
  --web.listen-address=ADDR    address to listen on (default :${EXPORTER_PORT})
  --config.check               validate the config file, print what is wrong, exit 0 or 1
  --timeout-offset=SECONDS     subtracted from the scrape timeout (default 0.5)
  --log.level=LEVEL            debug, info, warn or error (default info)
  --history.limit=N            probes kept for the status page (default 100)
  --web.shutdown-timeout=DUR   on SIGTERM, how long probes in flight may run on (default ${DEFAULT_SHUTDOWN_TIMEOUT})
  --web.config.file=FILE       TLS, basic auth and headers, in the exporter-toolkit format (default: none)
  --version                    print the version and exit`;

class UsageError extends Error {}

export function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = {
    configFile: DEFAULT_CONFIG_FILE,
    listenAddress: `:${EXPORTER_PORT}`,
    configCheck: false,
    timeoutOffset: 0.5,
    logLevel: 'info',
    historyLimit: 100,
    shutdownTimeoutMs: parseGoDuration(DEFAULT_SHUTDOWN_TIMEOUT)!,
    version: false,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const match = /^--?([a-z.-]+)(?:=(.*))?$/.exec(argument);
    if (!match) throw new UsageError(`unexpected argument ${argument}`);
    const [, name, inline] = match;
    const value = (): string => {
      if (inline !== undefined) return inline;
      index += 1;
      if (index >= argv.length) throw new UsageError(`--${name} needs a value`);
      return argv[index];
    };
    const number = (text: string): number => {
      const parsed = Number(text);
      if (text === '' || !Number.isFinite(parsed)) throw new UsageError(`--${name} must be a number, not ${text}`);
      return parsed;
    };
    switch (name) {
      case 'config.file':
        flags.configFile = value();
        break;
      case 'web.listen-address':
        flags.listenAddress = value();
        break;
      case 'config.check':
        flags.configCheck = inline === undefined || inline === 'true';
        break;
      case 'timeout-offset':
        flags.timeoutOffset = number(value());
        break;
      case 'log.level': {
        const level = value();
        if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log.level must be one of ${LOG_LEVELS.join(', ')}, not ${level}`);
        flags.logLevel = level as LogLevel;
        break;
      }
      case 'history.limit':
        flags.historyLimit = number(value());
        break;
      case 'web.shutdown-timeout': {
        const text = value();
        const milliseconds = parseGoDuration(text);
        if (milliseconds === undefined || milliseconds < 0) throw new UsageError(`--web.shutdown-timeout must be ${GO_DURATION_HINT}, not ${text}`);
        flags.shutdownTimeoutMs = milliseconds;
        break;
      }
      case 'web.config.file':
        flags.webConfigFile = value() || undefined;
        break;
      case 'version':
        flags.version = true;
        break;
      case 'help':
      case 'h':
        throw new UsageError('');
      default:
        throw new UsageError(`unknown flag --${name}`);
    }
  }
  return flags;
}

/** `:9115` (every interface), `127.0.0.1:9115`, `[::1]:9115`. */
export function splitListenAddress(address: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(address);
  if (!match) throw new UsageError(`--web.listen-address must be host:port or :port, not ${address}`);
  return { host: match[1] ?? match[2] ?? '', port: Number(match[3]) };
}

async function main(argv: readonly string[]): Promise<number> {
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      if (error.message) process.stderr.write(`probekit-exporter: ${error.message}\n`);
      process.stderr.write(`${USAGE}\n`);
      return error.message ? 2 : 0;
    }
    throw error;
  }
  if (flags.version) {
    process.stdout.write(`probekit-exporter, version ${EXPORTER_VERSION} (blackbox_exporter compatible; node ${process.version})\n`);
    return 0;
  }
  const log = new Logger(flags.logLevel);
  if (flags.configCheck) {
    try {
      const config = await loadConfigFile(flags.configFile);
      if (flags.webConfigFile !== undefined) await loadWebConfig(flags.webConfigFile);
      for (const note of config.notes) process.stderr.write(`${flags.configFile}: note: ${note}\n`);
      process.stdout.write(`${flags.configFile}: config file is ok\n`);
      return 0;
    } catch (error) {
      process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
      return 1;
    }
  }
  const { host, port } = splitListenAddress(flags.listenAddress);
  warnWhenIcmpAddonMissing(log);
  const exporter = new Exporter({ configFile: flags.configFile, timeoutOffsetSeconds: flags.timeoutOffset, historyLimit: flags.historyLimit, log, webConfigFile: flags.webConfigFile });
  try {
    await exporter.reload();
  } catch {
    // The exporter logged the file and its problems.
    return 1;
  }
  process.on('SIGHUP', () => {
    exporter.reload().catch(() => undefined);
  });
  const bound = await exporter.listen(host, port);
  log.info('Listening', { address: `${host}:${bound}`, version: EXPORTER_VERSION });
  await new Promise<void>((resolve) => {
    // Both handlers go at the first signal, so that a second one ends the process at once.
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  log.info('Shutting down; waiting for requests in flight', { timeout: `${flags.shutdownTimeoutMs / 1000}s` });
  await exporter.close(flags.shutdownTimeoutMs);
  return 0;
}

// A worker thread that loads the config runs this same file (the bundle) and must not start an exporter.
if (require.main === module && isMainThread) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`probekit-exporter: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
