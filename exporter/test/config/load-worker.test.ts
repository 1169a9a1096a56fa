/**
 * Loading in a worker thread: the same modules as a load in this thread, the same refusals, and this
 * thread's event loop free while a large file loads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfigFile } from '../../src/config/load';
import { loadConfigOffThread } from '../../src/config/load-worker';
import { largeConfigYaml } from '../../loopback/large-config';
import { threadCpuMilliseconds } from '../../bench/measure';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-load-worker-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/**
 * How long the event loop went without running a 20 ms timer while `work` ran: the longest gap in CPU time
 * this thread spent (what the loading code holds the loop for, to within a clock tick), and in
 * wall time (which also counts the time the machine ran other processes, as when the whole suite runs at once
 * on two cores).
 */
async function longestStall(work: Promise<unknown>): Promise<{ cpuMs: number; wallMs: number }> {
  let last = { wall: performance.now(), cpu: threadCpuMilliseconds() };
  const longest = { cpuMs: 0, wallMs: 0 };
  const tick = (): void => {
    const now = { wall: performance.now(), cpu: threadCpuMilliseconds() };
    longest.wallMs = Math.max(longest.wallMs, now.wall - last.wall);
    longest.cpuMs = Math.max(longest.cpuMs, now.cpu - last.cpu);
    last = now;
  };
  const timer = setInterval(tick, 20);
  try {
    await work;
  } finally {
    clearInterval(timer);
  }
  tick();
  return longest;
}

describe('loading the config in a worker thread', () => {
  it('gives the modules a load in this thread gives, compiled and working', async () => {
    const path = file(
      'good.yml',
      'modules:\n  base: &base\n    prober: tcp\n    tcp:\n      query_response:\n        - expect: "^220 (?P<host>\\\\S+)"\n          send: "HELO ${host}"\n  web:\n    prober: http\n    timeout: 1.5s\n    http:\n      body_file: body.json\n      fail_if_body_matches_regexp: ["(?i)error"]\n      tls_config: { insecure_skip_verify: yes }\n',
    );
    const [here, there] = await Promise.all([loadConfigFile(path), loadConfigOffThread(path)]);
    expect(Object.keys(there.modules)).toEqual(['base', 'web']);
    for (const name of ['base', 'web']) expect(there.modules[name].written).toEqual(here.modules[name].written);
    const web = there.modules.web;
    if (web.prober !== 'http') throw new Error('web is not an http module');
    expect(web.timeoutMs).toBe(1500);
    expect(web.http.request.body).toEqual({ file: join(dir, 'body.json') });
    expect([web.http.failIfBodyMatches[0].regexp.test('An ERROR'), web.http.failIfBodyMatches[0].regexp.test('fine')]).toEqual([true, false]);
    const base = there.modules.base;
    if (base.prober !== 'tcp') throw new Error('base is not a tcp module');
    expect(base.tcp.steps[0].expect?.regexp.exec('220 mx.example ESMTP')?.named('host')).toBe('mx.example');
  });

  it('refuses what a load in this thread refuses, with the same problems and lines', async () => {
    const path = file('bad.yml', 'modules:\n  m:\n    prober: http\n    http:\n      fail_if_body_matches_regexp: ["(a)\\\\1"]\n      methd: GET\n');
    const here = await loadConfigFile(path).catch((error: unknown) => error);
    const there = await loadConfigOffThread(path).catch((error: unknown) => error);
    expect(there).toBeInstanceOf(ConfigError);
    expect((there as ConfigError).message).toBe((here as ConfigError).message);
    expect((there as ConfigError).message).toMatch(/bad\.yml:6: modules\.m\.http\.methd: unknown field/);
    await expect(loadConfigOffThread(join(dir, 'missing.yml'))).rejects.toThrow(/missing\.yml: cannot read the config file: ENOENT/);
  });

  it('leaves the event loop free while 44,000 modules load', async () => {
    const path = file('large.yml', largeConfigYaml(44_000));
    let loaded: Awaited<ReturnType<typeof loadConfigOffThread>> | undefined;
    const stall = await longestStall(
      loadConfigOffThread(path).then((config) => {
        loaded = config;
      }),
    );
    expect(Object.keys(loaded?.modules ?? {})).toHaveLength(44_000);
    // The bound is on what this thread's own work held the loop for; wall time also counts other processes' turns.
    // Under the whole suite on two cores this failed twice, at 2.6 s of wall time and at 2.09 s of this thread's
    // own CPU: a real stall there, not found yet (alone, under 0.1 s of CPU).
    expect(stall.cpuMs).toBeLessThan(1000);
    expect(stall.wallMs).toBeLessThan(10_000);
  }, 120_000);
});
