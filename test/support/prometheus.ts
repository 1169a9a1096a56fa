/**
 * Debian's Prometheus, started by a test on a free loopback port with a config of the test's, its storage in a
 * temporary folder, and asked through its HTTP API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../exporter/loopback/reference-exporter';

export const PROMETHEUS = '/usr/bin/prometheus';

export interface Sample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

export interface RangeSeries {
  readonly metric: Record<string, string>;
  readonly values: Array<[number, string]>;
}

export interface PrometheusAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly state: 'pending' | 'firing';
}

/** A target as /api/v1/targets reports it. */
export interface ActiveTarget {
  readonly scrapePool: string;
  readonly labels: Record<string, string>;
  readonly discoveredLabels: Record<string, string>;
  readonly scrapeUrl: string;
}

export interface RunningPrometheus {
  readonly url: string;
  /** Its address as another Prometheus names it in remote_write. */
  readonly remoteWriteUrl: string;
  query(promql: string, time?: number): Promise<Sample[]>;
  queryRange(promql: string, start: number, end: number, stepSeconds: number): Promise<RangeSeries[]>;
  labelValues(label: string, match: string): Promise<string[]>;
  alerts(): Promise<PrometheusAlert[]>;
  /** The targets its scrape jobs hold, whether or not their scrapes succeed. */
  activeTargets(): Promise<ActiveTarget[]>;
  /** What it wrote to stderr, for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** Extra flags: `--enable-feature=agent` (agent mode in Prometheus 2.x; 3.x calls it --agent), `--web.enable-remote-write-receiver`. */
  readonly flags?: readonly string[];
  /** Rule files, by name, written beside the config (name them in its `rule_files`). */
  readonly files?: Readonly<Record<string, string>>;
}

async function api<T>(url: string): Promise<T> {
  const response = await fetch(url);
  const body = (await response.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${url}: ${body.error ?? response.status}`);
  return body.data;
}

export async function startPrometheus(config: Record<string, unknown>, options: PrometheusOptions = {}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, stringify(config, { lineWidth: 0 }));
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), content);
  const port = await freePort();
  const agent = options.flags?.includes('--enable-feature=agent') ?? false;
  const storage = agent ? `--storage.agent.path=${join(dir, 'wal')}` : `--storage.tsdb.path=${join(dir, 'data')}`;
  const url = `http://127.0.0.1:${port}`;
  const { log: stderr, stop } = await startReady('prometheus', PROMETHEUS, [`--config.file=${configFile}`, storage, `--web.listen-address=127.0.0.1:${port}`, ...(options.flags ?? [])], url, dir);
  const search = (params: Record<string, string>) => new URLSearchParams(params).toString();
  return {
    url,
    remoteWriteUrl: `${url}/api/v1/write`,
    query: async (promql, time) => (await api<{ result: Sample[] }>(`${url}/api/v1/query?${search({ query: promql, ...(time === undefined ? {} : { time: String(time) }) })}`)).result,
    queryRange: async (promql, start, end, step) =>
      (await api<{ result: RangeSeries[] }>(`${url}/api/v1/query_range?${search({ query: promql, start: String(start), end: String(end), step: String(step) })}`)).result,
    labelValues: (label, match) => api<string[]>(`${url}/api/v1/label/${encodeURIComponent(label)}/values?${search({ 'match[]': match })}`),
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>(`${url}/api/v1/alerts`)).alerts,
    activeTargets: async () => (await api<{ activeTargets: ActiveTarget[] }>(`${url}/api/v1/targets?state=active`)).activeTargets,
    log: stderr,
    stop,
  };
}

/**
 * Starts `binary` with `args` (its stderr kept), and resolves once `url`/-/ready answers 200; throws when it exits
 * first or 20 s pass. `stop` ends it and removes `dir`, its files.
 */
export async function startReady(name: string, binary: string, args: readonly string[], url: string, dir: string): Promise<{ log: () => string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${name} exited with ${child.exitCode}: ${stderr}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { log: () => stderr, stop };
    if (Date.now() > until) {
      await stop();
      throw new Error(`${name} at ${url} did not become ready: ${stderr}`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** Asks `check` again every half second until it is true or `seconds` have passed; returns its last answer. */
export async function eventually(seconds: number, check: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const done = await check().catch(() => false);
    if (done || Date.now() > until) return done;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
