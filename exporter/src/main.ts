#!/usr/bin/env node
/**
 * probekit-exporter: command line as blackbox_exporter's, so service units and containers written for it work.
 */
import { isMainThread, workerData } from 'node:worker_threads';
import { GO_DURATION_HINT, parseGoDuration } from './config/duration';
import { DEFAULT_CONFIG_FILE, EXPORTER_PORT, parseListenAddress } from './contract/endpoints';
import { LOG_FORMATS, LOG_LEVELS, Logger, type LogFormat, type LogLevel } from './log';
import { warnWhenIcmpAddonMissing } from './probers/icmp/socket';
import { externalUrl, routePrefixOf, systemdListenFd } from './server/web-flags';
import { DEFAULT_TIMEOUT_OFFSET_SECONDS } from './server/probe-timeout';
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from './server/heap-growth';
import { EXPORTER_VERSION } from './version';
import { PROBE_WORKER_ROLE } from './server/probe-pool-messages';
import { PASSWORD_CHECK_ROLE } from './server/password-checks';
import { CHECK_ROLE } from './probers/shared/check-messages';
import { TARGET_FILES_ROLE } from './server/target-files-messages';

interface Flags {
  configFile: string;
  listenAddress: string;
  configCheck: boolean;
  timeoutOffset: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** Threshold of probes' own lines in the exporter's log (--log.prober), independent of --log.level. */
  logProber: LogLevel;
  historyLimit: number;
  externalUrl?: string;
  routePrefix?: string;
  /** Serve on the socket systemd passes (LISTEN_FDS), not on --web.listen-address. */
  systemdSocket: boolean;
  autoReload: boolean;
  /** Seconds between checks of the config file when auto-reload is on. */
  autoReloadIntervalSeconds: number;
  /** Milliseconds that in-flight requests get to finish after SIGTERM or SIGINT. */
  shutdownTimeoutMs: number;
  version: boolean;
  /** TLS, basic auth and headers of the exporter's endpoints (./server/web-config.ts). */
  webConfigFile?: string;
  /** Threads that run probes (./server/probe-pool.ts): a number, or `auto` for the CPUs the process may use. */
  probeWorkers: number | 'auto';
  /** Ours: the folder of target files served at /sd/<job> (./server/target-files.ts). */
  sdTargetsDir?: string;
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
  --log.format=FORMAT          logfmt or json (default logfmt)
  --log.prober=LEVEL           level from which probes' own lines reach the log (default info)
  --web.external-url=URL       URL under which the exporter is reachable (default from the host name and port)
  --web.route-prefix=PATH      prefix of every endpoint (default the path of --web.external-url)
  --web.systemd-socket         serve on the socket systemd passes instead of --web.listen-address
  --config.enable-auto-reload  reload the config file when its content changes
  --config.auto-reload-interval=SECONDS  how often auto-reload reads the file (default 30)
  --history.limit=N            probes kept for the status page (default 100)
  --web.shutdown-timeout=DUR   on SIGTERM, how long probes in flight may run on (default ${DEFAULT_SHUTDOWN_TIMEOUT})
  --web.config.file=FILE       TLS, basic auth and headers, in the exporter-toolkit format (default: none)
  --probe.workers=N|auto       threads that run probes; auto: the CPUs the process may use, its CPU limit
                               included (cgroup cpu.max or cfs quota, rounded up); 1 runs them in the
                               serving thread (default auto)
  --sd.targets-dir=DIR         serve the target files of DIR at /sd/<job> for Prometheus' http_sd
                               (probekit's; default: none)
  --version                    print the version and exit`;

class UsageError extends Error {}

export function parseFlags(argv: readonly string[]): Flags {
  const flags: Flags = {
    configFile: DEFAULT_CONFIG_FILE,
    listenAddress: `:${EXPORTER_PORT}`,
    configCheck: false,
    timeoutOffset: DEFAULT_TIMEOUT_OFFSET_SECONDS,
    logLevel: 'info',
    logFormat: 'logfmt',
    logProber: 'info',
    historyLimit: 100,
    systemdSocket: false,
    autoReload: false,
    autoReloadIntervalSeconds: 30,
    shutdownTimeoutMs: parseGoDuration(DEFAULT_SHUTDOWN_TIMEOUT)!,
    version: false,
    probeWorkers: 'auto',
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    const match = /^--?([a-z.-]+)(?:=(.*))?$/.exec(argument);
    if (!match) throw new UsageError(`unexpected argument ${argument}`);
    // Boolean flags also take kingpin's negated form, --no-<flag>, as upstream's command line does.
    const negated = /^no-(config\.check|web\.systemd-socket|config\.enable-auto-reload)$/.exec(match[1]);
    const name = negated ? negated[1] : match[1];
    const inline = negated ? (match[2] === undefined ? 'false' : undefined) : match[2];
    if (negated && match[2] !== undefined) throw new UsageError(`--no-${name} takes no value`);
    const value = (): string => {
      if (inline !== undefined) return inline;
      index += 1;
      if (index >= argv.length) throw new UsageError(`--${name} needs a value`);
      return argv[index];
    };
    const bool = (): boolean => {
      if (inline === undefined || inline === 'true') return true;
      if (inline === 'false') return false;
      throw new UsageError(`--${name} is true or false, not ${inline}`);
    };
    const level = (text: string): LogLevel => {
      if (!(LOG_LEVELS as readonly string[]).includes(text)) throw new UsageError(`--${name} must be one of ${LOG_LEVELS.join(', ')}, not ${text}`);
      return text as LogLevel;
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
        flags.configCheck = bool();
        break;
      case 'timeout-offset':
        flags.timeoutOffset = number(value());
        break;
      case 'log.level':
        flags.logLevel = level(value());
        break;
      case 'log.prober':
        flags.logProber = level(value());
        break;
      case 'log.format': {
        const format = value();
        if (!(LOG_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--log.format must be one of ${LOG_FORMATS.join(', ')}, not ${format}`);
        flags.logFormat = format as LogFormat;
        break;
      }
      case 'web.external-url':
        flags.externalUrl = value();
        break;
      case 'web.route-prefix':
        flags.routePrefix = value();
        break;
      case 'web.systemd-socket':
        flags.systemdSocket = bool();
        break;
      case 'config.enable-auto-reload':
        flags.autoReload = bool();
        break;
      case 'config.auto-reload-interval': {
        const text = value();
        // Whole seconds, as upstream's flag (a Go uint); 0 would spin, so it is refused.
        if (!/^[0-9]+$/.test(text) || Number(text) === 0) throw new UsageError(`--config.auto-reload-interval must be a whole number of seconds above 0, not ${text}`);
        flags.autoReloadIntervalSeconds = Number(text);
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
      case 'probe.workers': {
        const text = value();
        if (text !== 'auto' && !/^[1-9][0-9]*$/.test(text)) throw new UsageError(`--probe.workers must be a whole number of at least 1 or auto, not ${text}`);
        flags.probeWorkers = text === 'auto' ? 'auto' : Number(text);
        break;
      }
      case 'sd.targets-dir':
        flags.sdTargetsDir = value() || undefined;
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
  const parsed = parseListenAddress(address);
  if (!parsed) throw new UsageError(`--web.listen-address must be host:port or :port, not ${address}`);
  return parsed;
}

/* eslint-disable @typescript-eslint/no-require-imports -- loaded when main runs, not when a loader thread runs this file */
/**
 * The config loader and the server are required when main runs rather than imported: a thread that loads
 * the config runs this same file (the bundle), and must not initialize the server's libraries, and
 * --config.check needs no server.
 */
const configLoader = (): typeof import('./config/load') => require('./config/load') as typeof import('./config/load');
const webConfigLoader = (): typeof import('./server/web-config') => require('./server/web-config') as typeof import('./server/web-config');
const exporterServer = (): typeof import('./server/exporter-server') => require('./server/exporter-server') as typeof import('./server/exporter-server');
const exporterCpus = (): typeof import('./server/cpu-budget') => require('./server/cpu-budget') as typeof import('./server/cpu-budget');
/* eslint-enable @typescript-eslint/no-require-imports */

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
  const log = new Logger(flags.logLevel, undefined, flags.logFormat, flags.logProber);
  if (flags.configCheck) {
    const load = configLoader();
    try {
      const config = await load.loadConfigFile(flags.configFile);
      if (flags.webConfigFile !== undefined) await webConfigLoader().loadWebConfig(flags.webConfigFile);
      for (const note of config.notes) process.stderr.write(`${flags.configFile}: note: ${note}\n`);
      process.stdout.write(`${flags.configFile}: config file is ok\n`);
      return 0;
    } catch (error) {
      process.stderr.write(`${error instanceof load.ConfigError ? error.message : String(error)}\n`);
      return 1;
    }
  }
  const { host, port } = splitListenAddress(flags.listenAddress);
  let systemdFd: number | undefined;
  let external: URL;
  try {
    external = externalUrl(flags.externalUrl, flags.systemdSocket ? undefined : port);
    if (flags.systemdSocket) systemdFd = systemdListenFd(process.env, process.pid);
  } catch (error) {
    log.error((error as Error).message);
    return 1;
  }
  warnWhenIcmpAddonMissing(log);
  // Before the start-up load, which is the first thing to fill the heap.
  if (boundHeapGrowth()) log.debug('Old generation grows at most this far past the live heap between full collections', { percent: HEAP_GROWING_PERCENT });
  else log.debug("Old generation's growth left to node's --heap-growing-percent");
  const probeWorkers = flags.probeWorkers === 'auto' ? exporterCpus().usableCpus() : flags.probeWorkers;
  log.info(probeWorkers > 1 ? 'Probes run in worker threads' : 'Probes run in the serving thread', {
    probe_workers: probeWorkers,
    ...(flags.probeWorkers === 'auto' && { from: 'the CPUs this process may use (--probe.workers=auto)' }),
  });
  const exporter = new (exporterServer().Exporter)({
    configFile: flags.configFile,
    timeoutOffsetSeconds: flags.timeoutOffset,
    historyLimit: flags.historyLimit,
    log,
    routePrefix: routePrefixOf(flags.routePrefix, external),
    externalUrl: external.href,
    webConfigFile: flags.webConfigFile,
    probeWorkers,
    logSettings: { logLevel: flags.logLevel, logFormat: flags.logFormat, logProber: flags.logProber },
    sdTargetsDir: flags.sdTargetsDir,
  });
  try {
    await exporter.reload();
  } catch {
    // The exporter logged the file and its problems.
    return 1;
  }
  process.on('SIGHUP', () => {
    exporter.reload().catch(() => undefined);
  });
  let autoReload: NodeJS.Timeout | undefined;
  if (flags.autoReload) {
    // The exporter reloads only a file whose content changed, so a tick on an unchanged file costs one read.
    // Node runs a timer longer than 2^31-1 ms after 1 ms instead; a longer interval waits that long (24.8 days).
    autoReload = setInterval(
      () => {
        exporter.reload().catch(() => undefined);
      },
      Math.min(flags.autoReloadIntervalSeconds * 1000, 2 ** 31 - 1),
    );
  }
  if (systemdFd !== undefined) {
    await exporter.listenOnFd(systemdFd);
    log.info('Listening on the socket systemd passed', { fd: systemdFd, version: EXPORTER_VERSION });
  } else {
    const bound = await exporter.listen(host, port);
    log.info('Listening', { address: `${host}:${bound}`, version: EXPORTER_VERSION });
  }
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
  clearInterval(autoReload);
  log.info('Shutting down; waiting for requests in flight', { timeout: `${flags.shutdownTimeoutMs / 1000}s` });
  await exporter.close(flags.shutdownTimeoutMs);
  return 0;
}

// Worker threads run this same file (the bundle): one that loads the config, one that runs probes
// (--probe.workers), or one that checks passwords or runs a probe's checks; none starts an exporter.
if (!isMainThread) {
  /* eslint-disable @typescript-eslint/no-require-imports -- only the part of the bundle a thread's role needs initializes in it */
  const role = (workerData as { role?: string } | null)?.role;
  if (role === PROBE_WORKER_ROLE) require('./server/probe-worker');
  else if (role === PASSWORD_CHECK_ROLE) require('./server/password-checks');
  else if (role === CHECK_ROLE) require('./probers/shared/check-worker');
  else if (role === TARGET_FILES_ROLE) require('./server/target-files-worker');
  else require('./config/load-worker');
  /* eslint-enable @typescript-eslint/no-require-imports */
} else if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`probekit-exporter: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
