/**
 * What npm run bench measures of one exporter process: probes driven at a fixed concurrency over keep-alive
 * connections, the latency of each /probe request, and from /proc the process's CPU time (all its threads)
 * and resident memory (now, and the peak since it was last reset).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';

/** Clock ticks per second, the unit of utime and stime in /proc/PID/stat. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU milliseconds, user and system, from a /proc stat file (a process's or a thread's). */
function cpuMillisecondsIn(statFile: string): number {
  const stat = readFileSync(statFile, 'utf8');
  // The command name (field 2) may hold spaces and parentheses; the fields after its closing one do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name and the state.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** CPU milliseconds the process has used so far, user and system, every thread included. */
export function cpuMilliseconds(pid: number): number {
  return cpuMillisecondsIn(`/proc/${pid}/stat`);
}

/** CPU milliseconds the calling thread alone has used so far (not the process's other threads). */
export function threadCpuMilliseconds(): number {
  return cpuMillisecondsIn('/proc/thread-self/stat');
}

export interface Memory {
  readonly rssMiB: number;
  /** The most the process has held since it started or since resetPeakMemory. */
  readonly peakRssMiB: number;
}

export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { rssMiB: mib('VmRSS'), peakRssMiB: mib('VmHWM') };
}

/**
 * Starts the peak anew (VmHWM back to the current RSS), so that each concurrency has its own peak; false when
 * the kernel does not allow it, and the peak then counts from the process's start.
 */
export function resetPeakMemory(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface ProbeOutcome {
  readonly ms: number;
  readonly failure?: string;
}

/** A client for one exporter: keep-alive connections, as many as probes in flight, as Prometheus keeps them. */
export class ProbeClient {
  private readonly agent: Agent;

  constructor(concurrency: number) {
    this.agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  }

  /**
   * One /probe request; a failure is described, never thrown, so that one bad probe does not end the run.
   * A request on a kept-alive connection that the exporter closed meanwhile (an idle timeout, 6 minutes for
   * ours, or the exporter's own choice) is sent again on a new one, as Prometheus' client does: that race is
   * the client's, not a failure of the probe.
   */
  probe(url: string): Promise<ProbeOutcome> {
    const started = performance.now();
    return new Promise((resolve) => {
      const done = (failure?: string): void => resolve({ ms: performance.now() - started, failure });
      this.send(url, done, true);
    });
  }

  private send(url: string, done: (failure?: string) => void, mayRetry: boolean): void {
    const request = get(url, { agent: this.agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => done(error.message));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (response.statusCode !== 200) done(`HTTP ${response.statusCode}: ${text.trim().split('\n')[0]}`);
        else if (!/^probe_success 1$/m.test(text)) done('probe_success 0');
        else done();
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (mayRetry && request.reusedSocket && error.code === 'ECONNRESET') this.send(url, done, false);
      else done(error.message);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** What one round (one exporter, one concurrency, a few seconds) gave. */
export interface Round {
  readonly seconds: number;
  readonly probes: number;
  readonly failures: number;
  readonly firstFailure?: string;
  readonly cpuMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Each request's, when the load generator reports them (ours does, wrk does not). */
  readonly latencies?: readonly number[];
}

/** `concurrency` loops probing `url` for `seconds`; the CPU the exporter used meanwhile is read from /proc. */
export async function round(client: ProbeClient, url: string, pid: number, concurrency: number, seconds: number): Promise<Round> {
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const cpuBefore = cpuMilliseconds(pid);
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const { ms, failure } = await client.probe(url);
        latencies.push(ms);
        if (failure === undefined) continue;
        failures += 1;
        firstFailure ??= failure;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuMs = cpuMilliseconds(pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  return { seconds: elapsed, probes: latencies.length, failures, firstFailure, cpuMs, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), latencies };
}

export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? NaN;
}

/** The rounds of one exporter at one concurrency, summed up. */
export interface Summary {
  readonly probes: number;
  readonly probesPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuMsPerProbe: number;
  readonly peakRssMiB: number;
  readonly failures: number;
  readonly firstFailure?: string;
  /** Each round's p99: a round far above the others is a stall, which the sum hides. */
  readonly roundP99Ms: readonly number[];
  /** The slowest round's p99 over the median round's. */
  readonly worstRoundP99Ratio: number;
}

const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

function median(values: readonly number[]): number {
  const inOrder = sorted(values);
  const middle = Math.floor(inOrder.length / 2);
  return inOrder.length % 2 === 1 ? inOrder[middle] : (inOrder[middle - 1] + inOrder[middle]) / 2;
}

/**
 * The rounds of one exporter at one concurrency as one: percentiles over every request when the rounds have
 * them, otherwise the median of the rounds' percentiles.
 */
export function summarize(rounds: readonly Round[], peakRssMiB: number): Summary {
  const seconds = rounds.reduce((sum, each) => sum + each.seconds, 0);
  const probes = rounds.reduce((sum, each) => sum + each.probes, 0);
  const cpuMs = rounds.reduce((sum, each) => sum + each.cpuMs, 0);
  const pooled = rounds.every((each) => each.latencies !== undefined) ? sorted(rounds.flatMap((each) => each.latencies ?? [])) : undefined;
  const roundP99Ms = rounds.map((each) => each.p99Ms);
  return {
    probes,
    probesPerSecond: probes / seconds,
    p50Ms: pooled ? percentile(pooled, 0.5) : median(rounds.map((each) => each.p50Ms)),
    p99Ms: pooled ? percentile(pooled, 0.99) : median(roundP99Ms),
    cpuMsPerProbe: cpuMs / Math.max(1, probes),
    peakRssMiB,
    failures: rounds.reduce((sum, each) => sum + each.failures, 0),
    firstFailure: rounds.find((each) => each.firstFailure !== undefined)?.firstFailure,
    roundP99Ms,
    worstRoundP99Ratio: Math.max(...roundP99Ms) / median(roundP99Ms),
  };
}
