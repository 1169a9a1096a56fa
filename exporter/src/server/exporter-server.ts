/**
 * The exporter's HTTP server: /probe, /metrics (its own), /-/healthy, /-/reload, /config, / and /logs, and with
 * --sd.targets-dir /sd/<job> (ours). It holds the loaded config and target files; a reload that fails keeps serving the previous one. Loading happens off the
 * event loop (../config/load-worker.ts), so the server answers while a large file loads. On shutdown it
 * stops accepting and lets the requests in flight finish, for a bounded time.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { ConfigError, loadConfigFile } from '../config/load';
import { loadConfigOffThread, SLOW_COMPILE_COST, type LoadedOffThread } from '../config/load-worker';
import { maskedConfigYaml } from '../config/mask';
import { moduleRecord, type CompiledConfig } from '../config/module';
import { readRegularFile } from '../config/regular-file';
import { CONFIG_PATH, HEALTH_PATH, METRICS_PATH, PROBE_LOGS_PATH, PROBE_PATH, RELOAD_PATH, SCRAPE_TIMEOUT_HEADER } from '../contract/endpoints';
import type { Logger, LogFormat, LogLevel } from '../log';
import { BUILD_INFO, CONFIG_RELOAD_SUCCESS, CONFIG_RELOAD_SUCCESS_TIME, MODULE_UNKNOWN, PROBE_WORKER_REPLACEMENTS, SD_REQUESTS, SD_TARGETS, TARGETS_REFUSED, type MetricDefinition } from '../metrics';
import { SD_PATH_PREFIX } from '../contract/service-discovery';
import { describeTargets, loadTargetFiles, type LoadedTargets } from './target-files';
import { serveTargetGroups } from './service-discovery';
import { selfListener, type SelfListener } from '../probers/shared/target-guard';
import { EXPORTER_VERSION } from '../version';
import { containEscapedErrors } from './escaped-errors';
import { FreeMemoryRelease } from './free-memory';
import { parseProbeId, ProbeHistory } from './history';
import { handleProbe } from './probe-handler';
import { requestQuery } from './query';
import type { ProbePool } from './probe-pool';
import { statusPage } from './status-page';
import { loadWebConfig, WebGate, type WebConfig } from './web-config';
import { CHECK_LIMIT_MS } from './password-checks';
import { acceptWholeQueue } from './accept-queue';

/**
 * The request line and headers a scrape may send: 1 MiB, as Go's server takes (Node's default, 16 KiB,
 * answers 431 to a long target URL or a query of thousands of parameters that upstream probes).
 */
const MAX_REQUEST_HEADER_BYTES = 1 << 20;

/**
 * How long a kept-alive connection may sit idle before the exporter closes it. Node's default is 5 s, but
 * Prometheus keeps its idle scrape connections for 5 minutes and upstream's Go server never closes them: at 5 s
 * a connection that waited longer than that between two scrapes was closed, so the next scrape opened a new
 * one (a new TLS handshake, with the web config's TLS) or, sent as the exporter closed it, had to be retried.
 * Longer than Prometheus' 5 minutes, so that Prometheus is the side that closes them; bounded, so that a client
 * that vanished without closing does not hold a descriptor for ever.
 */
export const IDLE_CONNECTION_MS = 6 * 60_000;

export interface ExporterOptions {
  readonly configFile: string;
  readonly timeoutOffsetSeconds: number;
  readonly historyLimit: number;
  readonly log: Logger;
  /** `--web.config.file`: TLS, basic auth, headers and rate limit of the exporter's own endpoints. */
  readonly webConfigFile?: string;
  /** `/` or `/path/`: every endpoint sits under it (--web.route-prefix). @default '/' */
  readonly routePrefix?: string;
  /** Where `/` redirects when the endpoints sit under a prefix (--web.external-url). */
  readonly externalUrl?: string;
  /** Threads that run probes (--probe.workers); 1 or none: probes run in this thread. @default 1 */
  readonly probeWorkers?: number;
  /** The log flags, which probe workers log with too. @default info, logfmt, info */
  readonly logSettings?: { readonly logLevel: LogLevel; readonly logFormat: LogFormat; readonly logProber: LogLevel };
  /** `--sd.targets-dir`: the folder of target files served at /sd/<job>, read at every reload. @default - none: /sd/ answers 404 */
  readonly sdTargetsDir?: string;
  /** How freed memory goes back to the kernel (./free-memory.ts). @default glibc's malloc_trim through the addon */
  readonly releaseFreeMemory?: () => boolean;
}

/** The file's SHA-256: a reload of content already loaded is skipped, as upstream skips it since 0.28. */
async function fileChecksum(file: string): Promise<string | undefined> {
  try {
    return createHash('sha256')
      .update(await readRegularFile(file))
      .digest('hex');
  } catch {
    // The load itself reports the unreadable file.
    return undefined;
  }
}

export class Exporter {
  readonly metrics = new Registry();
  private config: CompiledConfig = { modules: moduleRecord() };
  /** Whether a config was ever loaded: before that, a failed load is a failed start, not a failed reload. */
  private loaded = false;
  /** Checksum of the file the serving config came from. */
  private loadedChecksum?: string;
  /** Reloads run one after the other: a second waits for the first, then reads the file again. */
  private reloads: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<ServerResponse>();
  private draining = false;
  private readonly history: ProbeHistory;
  private readonly unknownModules: Counter;
  private readonly targetsRefused: Counter<'module' | 'reason'>;
  /** Where this exporter listens, refused to probes by allowed_targets.deny_self_and_metadata. */
  private self?: SelfListener;
  private readonly reloadSuccess: Gauge;
  private readonly reloadTime: Gauge;
  private server?: Server;
  private readonly freeMemory: FreeMemoryRelease;
  private web?: WebGate;
  /** Probe workers: from the start with --probe.workers above 1, else from the first config slow to compile. */
  private pool?: ProbePool;
  private replacements?: Counter<'cause'>;
  /** What /sd/<job> serves: the target files as the last successful reload read them. */
  private targets?: LoadedTargets;
  private readonly sdTargets: Gauge<'job'>;
  private readonly sdRequests: Counter<'code'>;

  constructor(private readonly options: ExporterOptions) {
    this.history = new ProbeHistory(options.historyLimit);
    this.freeMemory = new FreeMemoryRelease(options.releaseFreeMemory);
    collectDefaultMetrics({ register: this.metrics });
    this.unknownModules = new Counter({ name: MODULE_UNKNOWN.name, help: MODULE_UNKNOWN.help, registers: [this.metrics] });
    this.targetsRefused = new Counter({ name: TARGETS_REFUSED.name, help: TARGETS_REFUSED.help, labelNames: ['module', 'reason'], registers: [this.metrics] });
    const gauge = (metric: MetricDefinition, labelNames: string[] = []): Gauge => new Gauge({ name: metric.name, help: metric.help, labelNames, registers: [this.metrics] });
    this.reloadSuccess = gauge(CONFIG_RELOAD_SUCCESS);
    this.reloadTime = gauge(CONFIG_RELOAD_SUCCESS_TIME);
    gauge(BUILD_INFO, ['version', 'runtime']).set({ version: EXPORTER_VERSION, runtime: process.version }, 1);
    this.sdTargets = new Gauge({ name: SD_TARGETS.name, help: SD_TARGETS.help, labelNames: ['job'], registers: [this.metrics] });
    this.sdRequests = new Counter({ name: SD_REQUESTS.name, help: SD_REQUESTS.help, labelNames: ['code'], registers: [this.metrics] });
    if ((options.probeWorkers ?? 1) > 1) this.pool = this.newPool(options.probeWorkers!);
  }

  private newPool(size: number): ProbePool {
    // Required here, not imported: an exporter without workers never initializes the pool's code.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ProbePool: Pool } = require('./probe-pool') as typeof import('./probe-pool');
    if (!this.replacements) {
      const replacements = new Counter({ name: PROBE_WORKER_REPLACEMENTS.name, help: PROBE_WORKER_REPLACEMENTS.help, labelNames: ['cause'], registers: [this.metrics] });
      for (const cause of ['deadline', 'stopped'] as const) replacements.inc({ cause }, 0);
      this.replacements = replacements;
    }
    const replacements = this.replacements;
    const { logSettings = { logLevel: 'info', logFormat: 'logfmt', logProber: 'info' }, log } = this.options;
    return new Pool(size, logSettings, log, (cause) => replacements.inc({ cause }));
  }

  /** Loads the config file; on failure the previous config stays and the error is rethrown. */
  reload(): Promise<void> {
    const run = this.reloads.then(() => this.load());
    this.reloads = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<void> {
    const { configFile: file, log } = this.options;
    try {
      const started = performance.now();
      const web = await this.loadWeb();
      // The target files reload with the config, read (off this thread) only when they changed.
      const targets = await this.loadTargets();
      const checksum = await fileChecksum(file);
      if (checksum !== undefined && checksum === this.loadedChecksum) {
        // The web config is read on every reload: only the config file's content may be unchanged.
        this.applyWeb(web);
        this.applyTargets(targets);
        this.reloadSuccess.set(1);
        this.reloadTime.set(Date.now() / 1000);
        log.debug('Config file unchanged; nothing to reload', { file });
        return;
      }
      // Off the event loop once the server answers requests; before it listens there is nothing to keep
      // answering, and loading here spares a start-up the second thread, which reads and compiles the bundle
      // again (about 140 ms of CPU for a small file).
      const loaded: LoadedOffThread = this.server ? await loadConfigOffThread(file, this.pool === undefined) : { ...(await loadConfigFile(file)), slowToCompile: [], patternsCompiled: true };
      let pool = this.pool;
      if (!pool && !loaded.patternsCompiled) {
        // This thread did not compile it (../config/load-worker.ts says why): a probe worker runs its probes, their slow patterns on check threads.
        log.info('Modules slow to compile; from now on probes run in a probe worker thread, and the checks of those modules on check threads, so that the server keeps answering', {
          modules: loaded.slowToCompile.slice(0, 5).join(',') + (loaded.slowToCompile.length > 5 ? ',...' : ''),
          compile_cost_above: SLOW_COMPILE_COST,
        });
        pool = this.newPool(1);
      }
      // Every probe worker compiles it before any probe uses it; one that cannot keeps the old config everywhere.
      let serveInWorkers: (() => void) | undefined;
      try {
        serveInWorkers = await pool?.prepare(loaded, file);
      } catch (error) {
        if (pool !== this.pool) await pool?.stop();
        throw error;
      }
      this.pool = pool;
      // Every file or none: a reload that fails leaves the exporter as it was.
      this.applyWeb(web);
      this.applyTargets(targets);
      this.config = loaded;
      serveInWorkers?.();
      this.loaded = true;
      this.loadedChecksum = checksum;
      this.reloadSuccess.set(1);
      this.reloadTime.set(Date.now() / 1000);
      log.info('Loaded config file', { file, modules: Object.keys(loaded.modules).length, duration_seconds: ((performance.now() - started) / 1000).toFixed(3) });
      for (const note of loaded.notes) log.warn('Config file note', { file, note });
    } catch (error) {
      this.reloadSuccess.set(0);
      log.error(this.loaded ? 'Error reloading config; the previous config stays in use' : 'Error loading config; there is no config to serve', { file });
      const problems = error instanceof ConfigError ? error.message.split('\n') : [(error as Error).message];
      for (const problem of problems) log.error('Config problem', { problem });
      throw error;
    } finally {
      // Loading, refused or not, allocated what compiling every module needed.
      this.freeMemory.afterSettling();
    }
  }

  /** The target files read again when they changed; undefined when unchanged or without --sd.targets-dir. */
  private async loadTargets(): Promise<LoadedTargets | undefined> {
    const dir = this.options.sdTargetsDir;
    if (dir === undefined) return undefined;
    const loaded = await loadTargetFiles(dir, this.targets?.checksum);
    return loaded === 'unchanged' ? undefined : loaded;
  }

  private applyTargets(targets: LoadedTargets | undefined): void {
    if (targets === undefined) return;
    this.targets = targets;
    this.sdTargets.reset();
    for (const [job, served] of targets.jobs) this.sdTargets.set({ job }, served.targets);
    this.options.log.info('Loaded target files', { dir: this.options.sdTargetsDir, ...describeTargets(targets) });
  }

  private applyWeb(web: WebConfig | undefined): void {
    if (!web) return;
    if (this.web) this.web.replace(web);
    else {
      this.web = new WebGate(web, (user, cost) =>
        this.options.log.warn('Password check abandoned: it ran past its limit, so the password is refused, and so is every password for this hash for a while', {
          user,
          bcrypt_cost: cost,
          limit_seconds: CHECK_LIMIT_MS / 1000,
          fix: 'write the hash with a lower cost (10 to 12)',
        }),
      );
    }
  }

  /** The web config file read and checked, or undefined without --web.config.file; throws ConfigError. */
  private async loadWeb(): Promise<WebConfig | undefined> {
    const file = this.options.webConfigFile;
    if (file === undefined) return undefined;
    const web = await loadWebConfig(file);
    const problems = this.web?.replacementProblems(web) ?? [];
    if (problems.length > 0) throw new ConfigError(file, problems);
    return web;
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://exporter');
    // The query as the client wrote it, which upstream reads (a URL parser would re-encode it first).
    const rawUrl = request.url ?? '';
    const query = requestQuery(rawUrl.includes('?') ? rawUrl.slice(rawUrl.indexOf('?') + 1) : '');
    const send = (status: number, contentType: string, body: string): void => {
      response.writeHead(status, { 'Content-Type': contentType });
      response.end(body);
    };
    const text = (status: number, body: string): void => send(status, 'text/plain; charset=utf-8', body);
    const method = request.method ?? 'GET';
    const prefix = this.options.routePrefix ?? '/';
    let path = url.pathname;
    if (prefix !== '/') {
      // As upstream (and Prometheus): under a prefix, `/` itself sends the browser to the external URL.
      if (path === '/') {
        response.writeHead(302, { Location: this.options.externalUrl ?? prefix });
        response.end();
        return;
      }
      if (path === prefix.slice(0, -1)) path = '/';
      else if (path.startsWith(prefix)) path = `/${path.slice(prefix.length)}`;
      else return text(404, 'Not found\n');
    }
    switch (path) {
      case PROBE_PATH: {
        const scrapeTimeout = request.headers[SCRAPE_TIMEOUT_HEADER.toLowerCase()];
        const openMetrics = (request.headers.accept ?? '').includes('application/openmetrics-text');
        // A scrape that goes away before its answer (a disconnect, Prometheus' scrape timeout) stops its probe.
        const abandoned = new AbortController();
        response.once('close', () => {
          if (!response.writableFinished) abandoned.abort();
        });
        const reply = await handleProbe(
          {
            config: this.config,
            timeoutOffsetSeconds: this.options.timeoutOffsetSeconds,
            log: this.options.log,
            history: this.history,
            unknownModules: this.unknownModules,
            targetsRefused: this.targetsRefused,
            self: this.self,
            pool: this.pool,
          },
          query,
          Array.isArray(scrapeTimeout) ? scrapeTimeout[0] : scrapeTimeout,
          openMetrics,
          abandoned.signal,
        );
        return send(reply.status, reply.contentType, reply.body);
      }
      case METRICS_PATH:
        return send(200, this.metrics.contentType, await this.metrics.metrics());
      case HEALTH_PATH:
        return text(200, 'Healthy\n');
      case RELOAD_PATH:
        if (method !== 'POST' && method !== 'PUT') return text(405, 'Use POST to reload the config\n');
        try {
          await this.reload();
          return text(200, 'Config reloaded\n');
        } catch (error) {
          return text(500, `Failed to reload config: ${(error as Error).message}\n`);
        }
      case CONFIG_PATH:
        return send(200, 'text/plain; charset=utf-8', maskedConfigYaml(this.config));
      case PROBE_LOGS_PATH: {
        const written = query.get('id');
        const id = parseProbeId(written);
        if (id === undefined) return text(400, `Invalid probe id ${JSON.stringify(written ?? '')}: give id=N, N the number of a probe the status page links\n`);
        const record = this.history.get(id);
        return record ? text(200, record.debugOutput()) : text(404, 'Probe not found; it may have left the history\n');
      }
      case '/':
        return send(200, 'text/html; charset=utf-8', statusPage(EXPORTER_VERSION, this.history.list()));
      default:
        if (path.startsWith(SD_PATH_PREFIX)) {
          const code = await serveTargetGroups(path.slice(SD_PATH_PREFIX.length), request, response, this.targets);
          this.sdRequests.inc({ code: String(code) });
          return;
        }
        return text(404, 'Not found\n');
    }
  }

  private newServer(): Server {
    containEscapedErrors(this.options.log);
    const tls = this.web?.tls;
    const serve = (request: IncomingMessage, response: ServerResponse): void => {
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
      // While draining, the client is told not to send more on this connection.
      if (this.draining) response.setHeader('Connection', 'close');
      // A request line without a version is HTTP/0.9, which Go's server refuses; so does this one.
      if (request.httpVersionMajor < 1) {
        response.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
        response.end('Bad Request: the request line needs an HTTP version\n');
        return;
      }
      const admitted = this.web ? this.web.admit(request, response) : Promise.resolve(true);
      admitted
        .then((admit) => (admit ? this.route(request, response) : undefined))
        .catch((error: unknown) => {
          this.options.log.error('Error serving request', { path: request.url?.split('?')[0], err: error as Error });
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
    };
    const server = tls
      ? createTlsServer({ maxHeaderSize: MAX_REQUEST_HEADER_BYTES, ...tls.context, requestCert: tls.requestCert, rejectUnauthorized: tls.rejectUnauthorized }, serve)
      : createServer({ maxHeaderSize: MAX_REQUEST_HEADER_BYTES }, serve);
    if (tls && this.web) {
      this.web.attach(server as ReturnType<typeof createTlsServer>, (error) => {
        this.options.log.error('Error reading renewed TLS files of the web config; the previous ones stay in use', { problem: error.message });
      });
    }
    server.keepAliveTimeout = IDLE_CONNECTION_MS;
    acceptWholeQueue(server);
    this.server = server;
    server.once('listening', () => this.refreshSelf());
    this.freeMemory.start();
    return server;
  }

  /** The address and port the server listens on, as the allow-list's deny_self_and_metadata refuses them (interfaces are read at each check). */
  private refreshSelf(): void {
    const bound = this.server?.address();
    if (bound && typeof bound === 'object') this.self = selfListener(bound.address, bound.port);
  }

  /**
   * Starts serving on host:port (empty host: every interface); resolves with the port bound. From then on
   * an error that escapes a probe fails that probe instead of ending the process (./escaped-errors.ts).
   */
  listen(host: string, port: number): Promise<number> {
    const server = this.newServer();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host || undefined, () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  /** Starts serving on a listening socket this process was given (systemd's socket activation). */
  listenOnFd(fd: number): Promise<void> {
    const server = this.newServer();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ fd }, () => resolve());
    });
  }

  /**
   * Stops accepting connections and lets the requests in flight (probes up to their own deadline) finish,
   * for at most `drainMilliseconds`; then closes whatever is still open.
   */
  async close(drainMilliseconds = 0): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const drained = (async () => {
      while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    })();
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, drainMilliseconds);
    });
    await Promise.race([drained, givenUp]);
    clearTimeout(timer);
    if (this.inFlight.size > 0) this.options.log.warn('Shutdown timeout reached; closing requests still in flight', { requests: this.inFlight.size });
    server.closeAllConnections();
    await closed;
    this.freeMemory.stop();
    await this.pool?.stop();
    await this.web?.close();
  }
}
