/**
 * Differential testing against the reference blackbox_exporter (Debian's 0.23.0): start it and ours on free
 * loopback ports with the same config YAML, probe both the same way, compare parsed metrics. Prober-agnostic:
 * any prober's differential test uses the same functions, and the benchmark starts both with them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FROM_SOURCE } from './from-source';
import { parseMetrics, type Sample } from './metrics-text';

export const REFERENCE_EXPORTER = '/usr/bin/prometheus-blackbox-exporter';

/** Our exporter's entry point, run from source through tsx so tests need no build. */
export const OUR_EXPORTER_MAIN = resolve(__dirname, '../src/main.ts');

export interface ProbeResult {
  readonly status: number;
  readonly text: string;
  readonly samples: Sample[];
}

export interface ProbeRequest {
  readonly module: string;
  readonly target: string;
  /** Extra query parameters (hostname, debug). */
  readonly params?: Record<string, string>;
  readonly headers?: Record<string, string>;
}

export interface RunningExporter {
  readonly name: 'reference' | 'ours';
  readonly baseUrl: string;
  readonly pid: number;
  /** The file it reads its config from (a reload reads it again). */
  readonly configFile: string;
  probe(request: ProbeRequest): Promise<ProbeResult>;
  /** Everything the process wrote to stderr (its log) so far. */
  log(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Whether the exporter at `baseUrl` answers /-/healthy with 200 (over plain HTTP unless told how to ask). */
export type HealthCheck = (baseUrl: string) => Promise<boolean>;

const plainHealthCheck: HealthCheck = async (baseUrl) => (await fetch(`${baseUrl}/-/healthy`)).ok;

/** Resolves once the exporter at `baseUrl` answers /-/healthy; throws when its process exits first or 20 s pass. */
export async function waitHealthy(baseUrl: string, child: ChildProcess, log: () => string, healthy: HealthCheck = plainHealthCheck): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`exporter exited with ${child.exitCode}: ${log()}`);
    try {
      if (await healthy(baseUrl)) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`exporter at ${baseUrl} did not become healthy: ${log()}`);
}

export interface StartOptions {
  /** Extra command-line flags. */
  readonly flags?: readonly string[];
  /** How to run ours instead of from source (for example the built bundle: [node, bundle path]). */
  readonly command?: readonly string[];
  /** Serves HTTPS (a --web.config.file with TLS): the base URL says https, and `healthy` says how to ask. */
  readonly https?: boolean;
  readonly healthy?: HealthCheck;
}

/**
 * `flags` with --probe.workers=1 unless they name a count: the default (auto) follows the machine's CPUs, so a
 * test run from source pins it to behave alike on any machine, and because from source each worker thread
 * would compile the sources through tsx again, seconds of start-up on a loaded machine. The bundle (`command`)
 * runs with the flags as given, the default included. The default itself has its own tests.
 */
export function withProbeWorkersPinned(flags: readonly string[]): string[] {
  return flags.some((flag) => /^--probe\.workers(=|$)/.test(flag)) ? [...flags] : [...flags, '--probe.workers=1'];
}

/** Starts one exporter with `configYaml` written to a temporary file. */
export async function startExporter(name: RunningExporter['name'], configYaml: string, options: StartOptions = {}): Promise<RunningExporter> {
  const dir = mkdtempSync(join(tmpdir(), `probekit-${name}-`));
  const configFile = join(dir, 'blackbox.yml');
  writeFileSync(configFile, configYaml);
  const port = await freePort();
  const flags = [`--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`, ...(options.flags ?? [])];
  const child =
    name === 'reference'
      ? spawn(REFERENCE_EXPORTER, flags, { stdio: ['ignore', 'ignore', 'pipe'] })
      : options.command
        ? spawn(options.command[0], [...options.command.slice(1), ...flags], { stdio: ['ignore', 'ignore', 'pipe'] })
        : spawn(process.execPath, [...FROM_SOURCE, OUR_EXPORTER_MAIN, ...withProbeWorkersPinned(flags)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const baseUrl = `${options.https ? 'https' : 'http'}://127.0.0.1:${port}`;
  const log = (): string => stderr;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitHealthy(baseUrl, child, log, options.healthy);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    name,
    baseUrl,
    pid: child.pid ?? -1,
    configFile,
    log,
    stop,
    async probe(request) {
      const query = new URLSearchParams({ module: request.module, target: request.target, ...request.params });
      const response = await fetch(`${baseUrl}/probe?${query}`, { headers: request.headers });
      const text = await response.text();
      return { status: response.status, text, samples: parseMetrics(text) };
    },
  };
}

export interface ExporterPair {
  readonly reference: RunningExporter;
  readonly ours: RunningExporter;
  /** The same probe sent to both, concurrently. */
  probeBoth(request: ProbeRequest): Promise<{ reference: ProbeResult; ours: ProbeResult }>;
  stop(): Promise<void>;
}

export async function startPair(configYaml: string, options: StartOptions = {}): Promise<ExporterPair> {
  const [reference, ours] = await Promise.all([startExporter('reference', configYaml, options), startExporter('ours', configYaml, options)]);
  return {
    reference,
    ours,
    async probeBoth(request) {
      const [r, o] = await Promise.all([reference.probe(request), ours.probe(request)]);
      return { reference: r, ours: o };
    },
    stop: async () => {
      await Promise.all([reference.stop(), ours.stop()]);
    },
  };
}
