/**
 * npm run bench: our exporter against the reference blackbox_exporter (Debian 0.23.0), same config, same
 * local targets, same load, one after the other in one run, reported as ratios (ours / reference), for each
 * prober: http (HTTP/1.1, HTTP/2 over TLS), tcp (plain and TLS), dns (UDP and TCP), grpc and icmp.
 * Not part of npm test: numbers depend on the machine and its load.
 *
 * BENCH_SECONDS (default 5) is the measured time per exporter and scenario, after a one-second warm-up;
 * at the default the whole run takes under two minutes. BENCH_CONCURRENCY (default 16) is the number of
 * probes in flight. BENCH_SCENARIOS (e.g. tcp,dns_udp) runs the scenarios of those probers or modules only.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import type { ConfigInput, ModuleInput } from '@probekit/exporter';
import { ZONE } from '../loopback/dns-test-server';
import { makeTlsFixtures } from '../loopback/tls-fixtures';
import { OUR_EXPORTER_MAIN, REFERENCE_EXPORTER, startExporter, type RunningExporter, type StartOptions } from '../loopback/reference-exporter';
import { FROM_SOURCE } from '../loopback/from-source';
import { ROBUSTNESS_SCENARIOS, runRobustness } from './robustness';
import type { TargetPorts } from './target-server';

const SECONDS_PER_RUN = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = 1;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SCENARIO_FILTER = process.env.BENCH_SCENARIOS?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const BUNDLE = resolve(__dirname, '../dist/probekit-exporter.js');
const TARGET_SERVER = resolve(__dirname, 'target-server.ts');

interface Scenario {
  readonly label: string;
  /** Its module in the config; BENCH_SCENARIOS selects a scenario by this name or by its prober. */
  readonly module: string;
  readonly config: ModuleInput;
  readonly target: string;
  /** Why it cannot run here, when it cannot: asked with the bench's config and the way it runs ours. */
  readonly unavailable?: (config: string, ours: StartOptions) => Promise<string | undefined>;
}

/**
 * Both exporters need an ICMP socket: a ping socket (net.ipv4.ping_group_range) or a raw one (root, CAP_NET_RAW),
 * and ours its addon. Our exporter, started as the bench starts it and so with the same privileges, is asked with
 * one debug probe: when it could open no socket, its log says why. Any other failure is the measurement's to report.
 */
async function icmpUnavailable(config: string, ours: StartOptions): Promise<string | undefined> {
  const exporter = await startExporter('ours', config, ours);
  try {
    const { text } = await exporter.probe({ module: 'icmp', target: '127.0.0.1', params: { debug: 'true' } });
    const refusal = /msg="Error listening to socket".* err="((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
    return refusal === undefined ? undefined : `this process can open no ICMP socket, which both exporters need (${refusal})`;
  } finally {
    await exporter.stop();
  }
}

function scenarios(ports: TargetPorts, caFile: string): Scenario[] {
  const timeout = '5s';
  // Targets are addresses, so no scenario measures name resolution.
  const ip4 = { preferred_ip_protocol: 'ip4', ip_protocol_fallback: false } as const;
  const dialogue = [{ expect: '^220 (\\S+) ESMTP ready', send: 'HELO ${1}' }, { expect: '^250 HELO probe\\.test$' }];
  const aRecord = { ...ip4, query_name: `www.${ZONE}`, query_type: 'A' } as const;
  return [
    { label: 'HTTP/1.1', module: 'http_1_1', target: `http://127.0.0.1:${ports.http}/`, config: { prober: 'http', timeout, http: ip4 } },
    {
      label: 'HTTP/2 over TLS',
      module: 'http_2_tls',
      target: `https://127.0.0.1:${ports.https}/`,
      config: { prober: 'http', timeout, http: { ...ip4, tls_config: { insecure_skip_verify: true } } },
    },
    { label: 'TCP dialogue', module: 'tcp_dialogue', target: `127.0.0.1:${ports.tcp}`, config: { prober: 'tcp', timeout, tcp: { ...ip4, query_response: dialogue } } },
    {
      label: 'TCP over TLS',
      module: 'tcp_tls',
      target: `127.0.0.1:${ports.tcpTls}`,
      config: { prober: 'tcp', timeout, tcp: { ...ip4, tls: true, tls_config: { ca_file: caFile }, query_response: dialogue } },
    },
    { label: 'DNS A over UDP', module: 'dns_udp', target: `127.0.0.1:${ports.dns}`, config: { prober: 'dns', timeout, dns: { ...aRecord, transport_protocol: 'udp' } } },
    { label: 'DNS A over TCP', module: 'dns_tcp', target: `127.0.0.1:${ports.dns}`, config: { prober: 'dns', timeout, dns: { ...aRecord, transport_protocol: 'tcp' } } },
    { label: 'gRPC health', module: 'grpc_health', target: `127.0.0.1:${ports.grpc}`, config: { prober: 'grpc', timeout, grpc: ip4 } },
    { label: 'ICMP 127.0.0.1', module: 'icmp', target: '127.0.0.1', config: { prober: 'icmp', timeout, icmp: ip4 }, unavailable: icmpUnavailable },
  ];
}

interface RunResult {
  readonly probes: number;
  readonly probesPerSecond: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly failures: number;
  /** What went wrong with the first probe that failed. */
  readonly firstFailure?: string;
  readonly rssMiB: number;
  readonly peakRssMiB: number;
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? NaN;
}

/** One probe; a failure is described, never thrown, so that one bad probe does not end the run. */
async function probeOnce(url: string): Promise<{ ms: number; failure?: string }> {
  const started = performance.now();
  let failure: string | undefined;
  try {
    const response = await fetch(url);
    const text = await response.text();
    if (!response.ok) failure = `HTTP ${response.status}: ${text.trim().split('\n')[0]}`;
    else if (!/^probe_success 1$/m.test(text)) failure = 'probe_success 0';
  } catch (error) {
    failure = `${(error as Error).message}${(error as Error).cause ? `: ${String((error as Error).cause)}` : ''}`;
  }
  return { ms: performance.now() - started, failure };
}

/** The error lines of one more probe's debug log: the metrics of a failed probe do not say why. */
async function explainFailure(url: string): Promise<string> {
  try {
    const log = await (await fetch(`${url}&debug=true`)).text();
    // Both exporters end a failed probe's log with a "Probe failed" line that says nothing more.
    const errors = log.split('\n').filter((line) => /level=error/i.test(line) && !/msg="Probe failed"/.test(line));
    return errors.length > 0 ? errors.slice(0, 3).join(' | ') : 'probe_success 0, and no error in the debug log of another probe';
  } catch (error) {
    return `probe_success 0 (debug log unavailable: ${(error as Error).message})`;
  }
}

/** CONCURRENCY loops probing `url` until `seconds` have passed. */
async function probeFor(url: string, seconds: number, onProbe: (outcome: { ms: number; failure?: string }) => void): Promise<void> {
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) onProbe(await probeOnce(url));
    }),
  );
}

async function load(exporter: RunningExporter, module: string, target: string): Promise<RunResult> {
  const url = `${exporter.baseUrl}/probe?module=${module}&target=${encodeURIComponent(target)}`;
  // Warm-up: JIT, connection set-up of the load generator.
  await probeFor(url, WARM_UP_SECONDS, () => undefined);
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  await probeFor(url, SECONDS_PER_RUN, ({ ms, failure }) => {
    latencies.push(ms);
    if (failure === undefined) return;
    failures += 1;
    firstFailure ??= failure;
  });
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const memory = memoryOf(exporter.pid);
  if (firstFailure === 'probe_success 0') firstFailure = await explainFailure(url);
  return {
    probes: latencies.length,
    probesPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p90: percentile(latencies, 0.9),
    p99: percentile(latencies, 0.99),
    failures,
    firstFailure,
    rssMiB: memory.rss,
    peakRssMiB: memory.peak,
  };
}

/** A fresh exporter for each scenario, alone while it is measured, so that the two never compete for the CPU. */
async function measure(name: RunningExporter['name'], config: string, scenario: Scenario, options: StartOptions = {}): Promise<RunResult> {
  const exporter = await startExporter(name, config, options);
  try {
    return await load(exporter, scenario.module, scenario.target);
  } finally {
    await exporter.stop();
  }
}

async function startTargets(certFile: string, keyFile: string): Promise<{ ports: TargetPorts; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', TARGET_SERVER, certFile, keyFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  const ports = await new Promise<TargetPorts>((resolvePorts, reject) => {
    child.stdout!.once('data', (line: Buffer) => resolvePorts(JSON.parse(line.toString()) as TargetPorts));
    child.once('exit', (code) => reject(new Error(`the target server exited (${code}) before printing its ports`)));
  });
  // Closing its stdin is what ends it (see target-server.ts).
  return { ports, stop: () => child.stdin!.end() };
}

const COLUMNS = { scenario: 18, metric: 16 };

function format(value: number, digits = 1): string {
  return value.toFixed(digits).padStart(9);
}

function report(scenario: Scenario, reference: RunResult, ours: RunResult): void {
  const label = scenario.label.padEnd(COLUMNS.scenario);
  const failed = Object.entries({ reference, ours }).filter(([, result]) => result.failures > 0);
  if (failed.length > 0) {
    // Ratios of probes that did not do their work would compare nothing.
    console.log(`${label} FAILED, no ratios:`);
    for (const [name, result] of failed) console.log(`${' '.repeat(COLUMNS.scenario)}   ${name}: ${result.failures} of ${result.probes} probes failed; first: ${result.firstFailure}`);
    return;
  }
  const rows: Array<[string, number, number, number]> = [
    ['probes/s', reference.probesPerSecond, ours.probesPerSecond, 1],
    ['latency p50 ms', reference.p50, ours.p50, 2],
    ['latency p90 ms', reference.p90, ours.p90, 2],
    ['latency p99 ms', reference.p99, ours.p99, 2],
    ['RSS MiB', reference.rssMiB, ours.rssMiB, 1],
    ['peak RSS MiB', reference.peakRssMiB, ours.peakRssMiB, 1],
    ['failed probes', reference.failures, ours.failures, 0],
  ];
  for (const [metric, r, o, digits] of rows) {
    console.log(`${label} ${metric.padEnd(COLUMNS.metric)} ${format(r, digits)} ${format(o, digits)} ${r === 0 ? '        -' : format(o / r, 2)}`);
  }
}

async function main(): Promise<void> {
  if (!existsSync(REFERENCE_EXPORTER)) throw new Error(`${REFERENCE_EXPORTER} is missing: install prometheus-blackbox-exporter`);
  const runStarted = performance.now();
  const oursOptions: StartOptions = existsSync(BUNDLE) ? { command: [process.execPath, BUNDLE] } : {};
  const pki = makeTlsFixtures();
  const targets = await startTargets(pki.serverCertFile, pki.serverKeyFile);
  try {
    const all = scenarios(targets.ports, pki.caFile);
    const known = new Set<string>([...all.flatMap((scenario) => [scenario.module, scenario.config.prober]), ...ROBUSTNESS_SCENARIOS]);
    const unknown = SCENARIO_FILTER?.filter((name) => !known.has(name)) ?? [];
    if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: no scenario ${unknown.join(', ')}; there are ${[...known].join(', ')}`);
    const selected = all.filter((scenario) => !SCENARIO_FILTER || SCENARIO_FILTER.includes(scenario.module) || SCENARIO_FILTER.includes(scenario.config.prober));
    const configInput: ConfigInput = { modules: Object.fromEntries(all.map((scenario) => [scenario.module, scenario.config])) };
    const config = stringify(configInput);

    console.log(
      `probekit-exporter (${oursOptions.command ? 'bundle' : 'source (tsx; run npm run build for the bundle)'}) vs blackbox_exporter 0.23.0: ` +
        `${SECONDS_PER_RUN}s per run after ${WARM_UP_SECONDS}s of warm-up, ${CONCURRENCY} concurrent probes, targets on loopback`,
    );
    console.log(`${'scenario'.padEnd(COLUMNS.scenario)} ${'metric'.padEnd(COLUMNS.metric)} ${'reference'.padStart(9)} ${'ours'.padStart(9)} ${'ours/ref'.padStart(9)}`);
    for (const scenario of selected) {
      const unavailable = await scenario.unavailable?.(config, oursOptions);
      if (unavailable !== undefined) {
        console.log(`${scenario.label.padEnd(COLUMNS.scenario)} skipped: ${unavailable}`);
        continue;
      }
      const reference = await measure('reference', config, scenario);
      const ours = await measure('ours', config, scenario, oursOptions);
      report(scenario, reference, ours);
    }
    await runRobustness(
      ROBUSTNESS_SCENARIOS.filter((name) => !SCENARIO_FILTER || SCENARIO_FILTER.includes(name)),
      { ours: oursOptions, ourCommand: oursOptions.command ?? [process.execPath, ...FROM_SOURCE, OUR_EXPORTER_MAIN] },
    );
  } finally {
    targets.stop();
    pki.cleanup();
  }
  console.log(`done in ${((performance.now() - runStarted) / 1000).toFixed(0)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
