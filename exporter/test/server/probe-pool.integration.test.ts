/**
 * Probes in worker threads (--probe.workers): the answers, history, logs and the exporter's own metrics are those
 * of probes run in the main thread; a reload reaches every worker before it takes effect and a bad one keeps the
 * old config everywhere; a worker that stops fails its probes at once and is replaced. The workers run our
 * sources through tsx, as the config-loading thread does under test.
 *
 * @ci-seconds 55
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger, ProbeLog } from '../../src/log';
import { startStallingTarget, type StallingTarget } from '../support/stalling-target';
import { Exporter } from '../../src/server/exporter-server';
import { ProbePool } from '../../src/server/probe-pool';
import { compileParsed, moduleRecord } from '../../src/config/module';
import { moduleSchema } from '../../src/config/schema';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { rawSocketsAllowed } from '../support/icmp-privileges';

const config = (extra = ''): string => `modules:
  http_2xx:
    prober: http
    timeout: 5s
    http:
      preferred_ip_protocol: ip4
  stall:
    prober: http
    timeout: 3s
    http:
      preferred_ip_protocol: ip4
  guarded:
    prober: http
    allowed_targets:
      networks: [192.0.2.0/24]
  tcp:
    prober: tcp
    timeout: 2s
  icmp:
    prober: icmp
    timeout: 2s
    icmp:
      preferred_ip_protocol: ip4
${extra}`;

let target: StallingTarget;
let targetUrl: string;
let dir: string;
const exporters: Array<{ exporter: Exporter; base: string }> = [];

async function start(probeWorkers: number): Promise<{ exporter: Exporter; base: string; configFile: string }> {
  const configFile = join(dir, `blackbox-${probeWorkers}-${exporters.length}.yml`);
  writeFileSync(configFile, config());
  const exporter = new Exporter({ configFile, timeoutOffsetSeconds: 0.5, historyLimit: 10, log: new Logger('error', () => undefined), probeWorkers });
  await exporter.reload();
  const base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
  exporters.push({ exporter, base });
  return { exporter, base, configFile };
}

const probe = async (base: string, query: string): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${base}/probe?${query}`);
  return { status: response.status, text: await response.text() };
};
const valueOf = (text: string, name: string): number | undefined => metricValue(parseMetrics(text), name);
const names = (text: string): string[] => [...new Set(parseMetrics(text).map((sample) => sample.name))].sort();
const poolOf = (exporter: Exporter): ProbePool => (exporter as unknown as { pool: ProbePool }).pool;

beforeAll(async () => {
  target = await startStallingTarget();
  targetUrl = target.url;
  dir = mkdtempSync(join(tmpdir(), 'probekit-pool-'));
});

afterAll(async () => {
  for (const { exporter } of exporters) await exporter.close();
  target.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('probes in worker threads', () => {
  it('answer as probes in the main thread do: success, failure with its reason, the same metrics', async () => {
    const [pooled, plain] = [await start(2), await start(1)];
    expect(poolOf(pooled.exporter).size).toBe(2);
    expect(poolOf(plain.exporter)).toBeUndefined();
    for (const query of [`module=http_2xx&target=${targetUrl}/`, 'module=tcp&target=127.0.0.1:1']) {
      const [inWorker, inMain] = [await probe(pooled.base, query), await probe(plain.base, query)];
      expect(inWorker.status).toBe(200);
      expect(names(inWorker.text)).toEqual(names(inMain.text));
      expect(valueOf(inWorker.text, 'probe_success')).toBe(valueOf(inMain.text, 'probe_success'));
    }
    expect(await probe(pooled.base, 'module=tcp&target=127.0.0.1:1')).toMatchObject({ text: expect.stringContaining('probe_failure_reason{reason="connection refused"} 1') });
    // The status page names why, as for a probe in the main thread.
    for (const { base } of [pooled, plain]) expect(await (await fetch(`${base}/`)).text()).toContain('<td>127.0.0.1:1</td><td><strong>Failure</strong></td><td>connection refused</td>');
  }, 60_000);

  it('spread over the workers, and the history and debug output hold their log lines', async () => {
    const { exporter, base } = await start(2);
    const pool = poolOf(exporter);
    const stalls = [1, 2, 3, 4].map(() => probe(base, `module=stall&target=${targetUrl}/stall`));
    while (pool.inFlight().reduce((a, b) => a + b, 0) < 4) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pool.inFlight()).toEqual([2, 2]);
    await Promise.all(stalls);
    const debug = await probe(base, `module=http_2xx&target=${targetUrl}/&debug=true`);
    expect(debug.text).toMatch(/Logs for the probe:\n.*msg="Beginning probe"/);
    expect(debug.text).toContain('Module configuration:');
    const page = await (await fetch(`${base}/`)).text();
    const id = /logs\?id=(\d+)/.exec(page)![1];
    expect(await (await fetch(`${base}/logs?id=${id}`)).text()).toContain('msg="Probe succeeded"');
    expect(poolOf(exporter).inFlight()).toEqual([0, 0]);
  }, 60_000);

  it("count a target the allow-list refuses in the exporter's one /metrics, with a 403", async () => {
    const { base } = await start(2);
    const refused = await probe(base, `module=guarded&target=${targetUrl}/`);
    expect(refused.status).toBe(403);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/probekit_exporter_targets_refused_total\{module="guarded",reason="[a-z_]+"\} 1/);
  }, 60_000);

  it('stop at their deadline on a target that never answers', async () => {
    const { base } = await start(2);
    const stalled = await probe(base, `module=stall&target=${targetUrl}/stall`);
    // The target never answers: the deadline ended the probe, as its reason says, and the duration the exporter
    // reports is the module's 3 s (bounded loosely: a loaded machine delays the worker's answer).
    expect(valueOf(stalled.text, 'probe_success')).toBe(0);
    expect(stalled.text).toContain('probe_failure_reason{reason="timed out"');
    expect(valueOf(stalled.text, 'probe_duration_seconds')).toBeLessThan(3 + 1);
  }, 60_000);
});

describe('a reload with probe workers', () => {
  it('takes effect in every worker, keeps the old config everywhere when refused, and lets probes in flight finish', async () => {
    const { exporter, base, configFile } = await start(2);
    const inFlight = probe(base, `module=stall&target=${targetUrl}/stall`);
    writeFileSync(configFile, config('  added:\n    prober: http\n    http:\n      preferred_ip_protocol: ip4\n'));
    await exporter.reload();
    // Every worker has it: as many probes as workers, at once, each to the least busy.
    const added = await Promise.all([1, 2, 3, 4].map(() => probe(base, `module=added&target=${targetUrl}/`)));
    expect(added.map((answer) => valueOf(answer.text, 'probe_success'))).toEqual([1, 1, 1, 1]);
    writeFileSync(configFile, 'modules:\n  broken:\n    prober: nonsense\n');
    await expect(exporter.reload()).rejects.toThrow();
    expect(valueOf((await probe(base, `module=added&target=${targetUrl}/`)).text, 'probe_success')).toBe(1);
    expect((await probe(base, `module=broken&target=${targetUrl}/`)).status).toBe(400);
    // The probe that started before the reload ran on its own module to its deadline.
    const stalled = await inFlight;
    expect(valueOf(stalled.text, 'probe_success')).toBe(0);
    expect(stalled.text).toContain('probe_failure_reason');
  }, 60_000);
});

describe('a probe worker that stops', () => {
  it('fails its probes in flight at once and is replaced', async () => {
    const { exporter, base } = await start(2);
    const pool = poolOf(exporter);
    const stalled = [probe(base, `module=stall&target=${targetUrl}/stall`), probe(base, `module=stall&target=${targetUrl}/stall`)];
    while (pool.inFlight().reduce((a, b) => a + b, 0) < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    // Test-only reach into the pool: nothing a target sends can end a worker (escaped errors are contained).
    const workers = (pool as unknown as { slots: Array<{ worker: { terminate(): Promise<number> } }> }).slots.map((slot) => slot.worker);
    await Promise.all(workers.map((worker) => worker.terminate()));
    for (const answer of await Promise.all(stalled)) {
      expect(valueOf(answer.text, 'probe_success')).toBe(0);
      // At once: as the exporter reports it, not at the module's 3 s deadline, which would have said "timed out".
      expect(answer.text).toContain('probe_failure_reason{reason="internal error"} 1');
      expect(valueOf(answer.text, 'probe_duration_seconds')).toBeLessThan(3);
    }
    expect((await (await fetch(`${base}/`)).text()).match(/<td>internal error: the probe worker running it stopped \(exit code 1\); it was replaced<\/td>/g)).toHaveLength(2);
    const metrics = parseMetrics(await (await fetch(`${base}/metrics`)).text());
    expect(metricValue(metrics, 'probekit_exporter_probe_worker_replacements_total', { cause: 'stopped' })).toBe(2);
    // The replacements get the served config, then take probes again.
    let answer = await probe(base, `module=http_2xx&target=${targetUrl}/`);
    for (let attempt = 0; valueOf(answer.text, 'probe_success') !== 1 && attempt < 100; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await probe(base, `module=http_2xx&target=${targetUrl}/`);
    }
    expect(valueOf(answer.text, 'probe_success')).toBe(1);
    expect(pool.inFlight()).toHaveLength(2);
  }, 60_000);
});

describe('every probe worker holding a probe just past its deadline', () => {
  it('passes later probes to the first worker free, failing none of them', async () => {
    const { base } = await start(2);
    // Probes of a target that never answers, on both workers, their deadlines together (1 s less the 0.5 s offset):
    // at the deadline each worker's answers are on their way, and for that moment no worker is free. Meanwhile
    // probes of a healthy target keep coming.
    const stalled = Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${base}/probe?module=stall&target=${encodeURIComponent(`${targetUrl}/stall`)}`, { headers: { 'X-Prometheus-Scrape-Timeout-Seconds': '1' } }).then((response) => response.text()),
      ),
    );
    let stalledDone = false;
    void stalled.then(() => (stalledDone = true));
    const healthy: string[] = [];
    const keepProbing = async (): Promise<void> => {
      while (!stalledDone) healthy.push((await probe(base, `module=http_2xx&target=${targetUrl}/`)).text);
    };
    await Promise.all(Array.from({ length: 8 }, keepProbing));
    for (const text of await stalled) expect(text).toContain('probe_failure_reason{reason="timed out"');
    expect(healthy.length).toBeGreaterThan(8);
    // Before, each such probe failed at once: "no probe worker was free".
    expect(healthy.filter((text) => valueOf(text, 'probe_success') !== 1).map((text) => text.split('\n').find((line) => line.startsWith('probe_failure_reason')))).toEqual([]);
  }, 60_000);
});

describe('a probe that finds no worker serving the config', () => {
  it('waits for one within its deadline, then fails saying so', async () => {
    // A pool whose workers never got a config: none may take the probe.
    const log = new Logger('error', () => undefined);
    const pool = new ProbePool(2, { logLevel: 'error', logFormat: 'logfmt', logProber: 'error' }, log);
    try {
      const probeLog = ProbeLog.forTarget(log, 'http_2xx', `${targetUrl}/`);
      const result = await pool.probe({ module: 'http_2xx', target: `${targetUrl}/`, shownTarget: `${targetUrl}/`, timeoutSeconds: 0.5, openMetrics: false }, probeLog);
      expect(result).toEqual({
        success: false,
        failure: { reason: 'internal error', detail: "no probe worker was free within the probe's deadline (0.5s): each was starting, or held past a probe deadline and about to be replaced" },
      });
      expect(probeLog.text()).toContain('no probe worker was free within');
    } finally {
      await pool.stop();
    }
  }, 60_000);
});

describe('a pool that stops', () => {
  it('fails the probes its workers still run, saying the exporter stopped', async () => {
    const { exporter, base } = await start(2);
    const pool = poolOf(exporter);
    const stalled = probe(base, `module=stall&target=${targetUrl}/stall`);
    while (pool.inFlight().reduce((a, b) => a + b, 0) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await pool.stop();
    const answer = await stalled;
    expect(answer.text).toContain('probe_failure_reason{reason="internal error"} 1');
    // Before, it said the worker "stopped (exit code 1); it was replaced", which a stopping pool does not do.
    expect((await (await fetch(`${base}/`)).text()).match(/<td>internal error: the exporter stopped while it ran<\/td>/g)).toHaveLength(1);
  }, 60_000);
});

describe('a probe worker held past its deadline', () => {
  // What held a worker before (an expect pattern matched in its thread for minutes) is stopped at the deadline on
  // a check thread now, and the loader names the modules slow to compile, which workers leave to check threads.
  // What is left to hold one is a compile nobody flagged: a config handed to the workers without the loader's
  // verdict, here four patterns of 400 \\pL{10,1000} groups (re2js' largest), compiled in one slice, the module
  // being the slice: 1.5 to 2 s each with a quiet core to itself, about 125 MiB of heap each once compiled. One
  // pattern held a worker 5 s on a loaded machine but under 3 s (the deadline and its 2 s grace) with the CPU to
  // itself, and the probe then timed out in the worker as usual; four hold it past the grace with room to spare.
  const HEAVY = [1, 2, 3, 4].map((index) => `${'(\\pL{10,1000})'.repeat(400)}${'x'.repeat(index)}$`);

  it('takes no probe from its deadline on, is terminated and replaced, and its probe fails saying so', async () => {
    const { exporter, base, configFile } = await start(2);
    writeFileSync(configFile, config('  patient:\n    prober: http\n    timeout: 60s\n    http:\n      preferred_ip_protocol: ip4\n'));
    await exporter.reload();
    const pool = poolOf(exporter);
    const probeWithin = async (seconds: number, query: string): Promise<string> =>
      (await fetch(`${base}/probe?${query}`, { headers: { 'X-Prometheus-Scrape-Timeout-Seconds': String(seconds) } })).text();
    // A probe in flight on one worker, its deadline 1 s away (the target never answers).
    const stuck = probeWithin(1.5, `module=stall&target=${encodeURIComponent(`${targetUrl}/stall`)}&debug=true`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const parsed = moduleSchema.parse({ prober: 'http', http: { fail_if_body_matches_regexp: HEAVY } });
    const heavy = compileParsed('heavy', parsed, undefined, 'defer', true);
    if (!('module' in heavy)) throw new Error('heavy did not compile');
    const modules = moduleRecord();
    modules.heavy = heavy.module;
    // Both workers compile for seconds; the one holding the stalled probe is past its deadline meanwhile.
    const prepared = pool.prepare({ modules, notes: [] }, 'unflagged.yml').then(
      () => 'configured',
      (error: Error) => error.message,
    );
    const later = (): Promise<string> => new Promise((resolve) => setTimeout(resolve, 1500)).then(() => probeWithin(61, `module=patient&target=${encodeURIComponent(`${targetUrl}/`)}`));
    const answers = await Promise.all([stuck, later(), later(), later()]);
    expect(answers[0]).toMatch(/reason="internal error" detail="the probe worker running it did not answer within the probe's deadline \(\d+(\.\d+)?s\) and 2s more; it was terminated and replaced"/);
    // Sent while that worker was past its deadline: none went to it (it would have failed with it), each succeeded.
    expect(answers.slice(1).map((answer) => valueOf(answer, 'probe_success'))).toEqual([1, 1, 1]);
    expect(await prepared).toMatch(/a probe worker was replaced while it compiled the config/);
    const metrics = parseMetrics(await (await fetch(`${base}/metrics`)).text());
    expect(metricValue(metrics, 'probekit_exporter_probe_worker_replacements_total', { cause: 'deadline' })).toBe(1);
    expect(metricValue(metrics, 'probekit_exporter_probe_worker_replacements_total', { cause: 'stopped' })).toBe(0);
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('internal error: the probe worker running it did not answer within the probe&#39;s deadline');
  }, 90_000);
});

// As the icmp prober's own tests: raw sockets where this process may open them (the native addon then loads in each worker).
(rawSocketsAllowed() ? describe : describe.skip)('icmp in probe workers', () => {
  it('pings from every worker with its own raw socket', async () => {
    const { base } = await start(2);
    const answers = await Promise.all([1, 2, 3, 4].map(() => probe(base, 'module=icmp&target=127.0.0.1')));
    expect(answers.map((answer) => valueOf(answer.text, 'probe_success'))).toEqual([1, 1, 1, 1]);
  }, 60_000);
});
