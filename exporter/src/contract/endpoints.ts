/**
 * The exporter's public contract: what an agent, a Service or a unit file needs to know to talk to it.
 * Everything outside exporter/ imports these instead of repeating them.
 */

/** Port of blackbox_exporter, kept so that an agent configured for it works unchanged. */
export const EXPORTER_PORT = 9115;

/** The path the agent scrapes, with `module` and `target` query parameters. */
export const PROBE_PATH = '/probe';

/** The exporter's own metrics. */
export const METRICS_PATH = '/metrics';

/** Liveness and readiness. */
export const HEALTH_PATH = '/-/healthy';

/** POST here (or send SIGHUP) to reload the config file. */
export const RELOAD_PATH = '/-/reload';

/** The loaded config, secrets masked. */
export const CONFIG_PATH = '/config';

/** Debug log of a recent probe, `?id=` from the status page at `/`. */
export const PROBE_LOGS_PATH = '/logs';

/** Default config file name, as blackbox_exporter's `--config.file`. */
export const DEFAULT_CONFIG_FILE = 'blackbox.yml';

/** The header Prometheus sends with every scrape; the probe deadline is derived from it. */
export const SCRAPE_TIMEOUT_HEADER = 'X-Prometheus-Scrape-Timeout-Seconds';

/**
 * Node's flags wherever probekit starts the exporter (the image's ENTRYPOINT, which a test holds to these; the
 * system service's NODE_OPTIONS): V8's young generation at two 16 MiB semi-spaces, as `npm run bench` measures
 * the exporter. Node otherwise sizes it from the memory the process may use: 2 MiB under a 256 MiB limit (more
 * collections, more CPU per probe), 64 MiB semi-spaces on a large machine with Node 24 (a higher peak).
 */
export const EXPORTER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/** Where the exporter listens unless told otherwise: every interface, port 9115 (`--web.listen-address`). */
export const DEFAULT_LISTEN_ADDRESS = `:${EXPORTER_PORT}`;

/**
 * A listen address as `--web.listen-address` takes it: `:9115` (every interface: host ''), `127.0.0.1:9115`,
 * `[::1]:9115` (host ::1), `localhost:9115`; undefined for anything else, or a port above 65535.
 */
export function parseListenAddress(address: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  if (!match || Number(match[3]) > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '', port: Number(match[3]) };
}

export interface ExporterArgsOptions {
  /** The config file (`--config.file`). */
  readonly configFile: string;
  /** host:port or :port (`--web.listen-address`). @default DEFAULT_LISTEN_ADDRESS */
  readonly listenAddress?: string;
  /** The web config: TLS, basic auth (`--web.config.file`). @default - none */
  readonly webConfigFile?: string;
  /** The folder of target files served at `/sd/<job>` (`--sd.targets-dir`, ours). @default - none */
  readonly sdTargetsDir?: string;
}

/**
 * The exporter's command-line arguments, with blackbox_exporter's flag names, for a Deployment's `args` or a unit's
 * ExecStart. The listen address is always written out, so the command line shows the port it serves.
 */
export function exporterArgs(options: ExporterArgsOptions): string[] {
  const webConfig = options.webConfigFile === undefined ? [] : [`--web.config.file=${options.webConfigFile}`];
  const targets = options.sdTargetsDir === undefined ? [] : [`--sd.targets-dir=${options.sdTargetsDir}`];
  return [`--config.file=${options.configFile}`, `--web.listen-address=${options.listenAddress ?? DEFAULT_LISTEN_ADDRESS}`, ...webConfig, ...targets];
}
