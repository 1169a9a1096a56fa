/**
 * The exporter's endpoints in-process, and its command line as a real process.
 *
 * @ci-seconds 25
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Logger } from '../../src/log';
import { startStallingTarget, type StallingTarget } from '../support/stalling-target';
import { Exporter, IDLE_CONNECTION_MS } from '../../src/server/exporter-server';
import { probeTimeoutSeconds } from '../../src/server/probe-timeout';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { FROM_SOURCE } from '../../loopback/from-source';
import { freePort, OUR_EXPORTER_MAIN } from '../../loopback/reference-exporter';

const GOOD = `modules:
  http_2xx:
    prober: http
    timeout: 5s
    http:
      preferred_ip_protocol: ip4
      headers:
        Authentication: Bearer top-s3cret
  slow:
    prober: http
    timeout: 10s
    http:
      preferred_ip_protocol: ip4
`;

let target: StallingTarget;
let targetUrl: string;
let dir: string;
let configFile: string;
let exporter: Exporter;
let base: string;
const logLines: string[] = [];

beforeAll(async () => {
  target = await startStallingTarget();
  targetUrl = target.url;
  dir = mkdtempSync(join(tmpdir(), 'probekit-server-'));
  configFile = join(dir, 'blackbox.yml');
  writeFileSync(configFile, GOOD);
  exporter = new Exporter({ configFile, timeoutOffsetSeconds: 0.5, historyLimit: 3, log: new Logger('debug', (line) => logLines.push(line), 'logfmt', 'debug') });
  await exporter.reload();
  base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
});

afterAll(async () => {
  await exporter.close();
  target.close();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${base}${path}`, { headers });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
};

describe('probe endpoint', () => {
  it('probes with the named module and returns the Prometheus text format', async () => {
    const reply = await get(`/probe?module=http_2xx&target=${encodeURIComponent(`${targetUrl}/`)}`);
    expect(reply.status).toBe(200);
    expect(reply.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseMetrics(reply.text);
    expect(metricValue(samples, 'probe_success')).toBe(1);
    expect(metricValue(samples, 'probe_duration_seconds')).toBeGreaterThan(0);
  });

  it('answers OpenMetrics when asked', async () => {
    const reply = await get(`/probe?module=http_2xx&target=${encodeURIComponent(targetUrl)}`, { Accept: 'application/openmetrics-text; version=1.0.0' });
    expect(reply.type).toMatch(/^application\/openmetrics-text/);
    expect(reply.text.trimEnd().endsWith('# EOF')).toBe(true);
  });

  it('400 for an unknown module (counted) or a missing target', async () => {
    const unknown = await get('/probe?module=nope&target=x');
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/Unknown module "nope"/);
    expect((await get('/probe?module=http_2xx')).status).toBe(400);
    expect((await get('/probe?module=http_2xx')).text).toMatch(/Target parameter is missing/);
    expect(metricValue(parseMetrics((await get('/metrics')).text), 'blackbox_module_unknown_total')).toBe(1);
  });

  it('400 when hostname contradicts the module Host header; 500 for a bad scrape timeout header', async () => {
    writeFileSync(configFile, `${GOOD}  vhost:\n    prober: http\n    http:\n      headers:\n        Host: a.example\n`);
    await exporter.reload();
    expect((await get(`/probe?module=vhost&target=${targetUrl}&hostname=b.example`)).status).toBe(400);
    expect((await get(`/probe?module=http_2xx&target=${targetUrl}`, { 'X-Prometheus-Scrape-Timeout-Seconds': 'soon' })).status).toBe(500);
    writeFileSync(configFile, GOOD);
    await exporter.reload();
  });

  it('the deadline is the scrape timeout less the offset when smaller than the module timeout', async () => {
    const reply = await get(`/probe?module=slow&target=${targetUrl}/stall&debug=true`, { 'X-Prometheus-Scrape-Timeout-Seconds': '1' });
    // The deadline the probe was given, as its log states it, and that the probe ended at it, not at the module's
    // 10 s: the server stalls for good, so the probe timed out, and the duration the exporter reports is the
    // deadline's (bounded by the module's timeout, far enough for a loaded machine, not by this test's clock).
    expect(reply.text).toMatch(/msg="Beginning probe" .* timeout_seconds=0\.5\n/);
    expect(reply.text).toMatch(/^probe_success 0$/m);
    expect(reply.text).toMatch(/^probe_failure_reason\{.*reason="timed out".*\} 1$/m);
    const duration = Number(/^probe_duration_seconds (\S+)$/m.exec(reply.text)?.[1]);
    expect(duration).toBeGreaterThanOrEqual(0.45);
    expect(duration).toBeLessThan(10);
  });

  it('computes the timeout as upstream', () => {
    const moduleTimeoutMs = 5000;
    expect(probeTimeoutSeconds(moduleTimeoutMs, '30', 0.5)).toBe(5);
    expect(probeTimeoutSeconds(moduleTimeoutMs, '3', 0.5)).toBe(2.5);
    expect(probeTimeoutSeconds(undefined, undefined, 0.5)).toBe(119.5);
    expect(probeTimeoutSeconds(moduleTimeoutMs, '0.2', 0.5)).toBe(5);
  });

  it('debug=true shows the log, the metrics and the module with secrets masked', async () => {
    const reply = await get(`/probe?module=http_2xx&target=${targetUrl}&debug=true`);
    expect(reply.text).toMatch(/^Logs for the probe:\n/);
    expect(reply.text).toMatch(/Metrics that would have been returned:\n[\s\S]*probe_success 1/);
    expect(reply.text).toMatch(/Module configuration:\n[\s\S]*Authentication: <secret>/);
    expect(reply.text).not.toContain('top-s3cret');
  });

  it('debug=true shows the module as the latest reload left it', async () => {
    writeFileSync(configFile, GOOD.replace('preferred_ip_protocol: ip4', 'preferred_ip_protocol: ip4\n      method: HEAD'));
    try {
      await exporter.reload();
      expect((await get(`/probe?module=http_2xx&target=${targetUrl}&debug=true`)).text).toMatch(/Module configuration:\n[\s\S]*method: HEAD/);
    } finally {
      writeFileSync(configFile, GOOD);
      await exporter.reload();
    }
    expect((await get(`/probe?module=http_2xx&target=${targetUrl}&debug=true`)).text).toMatch(/Module configuration:\n[\s\S]*method: GET/);
  });
});

describe('other endpoints', () => {
  it('/-/healthy', async () => {
    expect(await get('/-/healthy')).toMatchObject({ status: 200 });
  });

  it("keeps an idle kept-alive connection open past Node's 5 s default, as Prometheus expects", async () => {
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    const answer = (): Promise<string> =>
      new Promise((resolve) => {
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString().split('\r\n')[0]));
        socket.write('GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n');
      });
    try {
      expect(await answer()).toBe('HTTP/1.1 200 OK');
      // Node's idle timer is checked lazily: at its 5 s default a connection was seen closed 5 to 5.6 s later.
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      expect(socket.destroyed || socket.readableEnded).toBe(false);
      expect(await answer()).toBe('HTTP/1.1 200 OK');
      expect(IDLE_CONNECTION_MS).toBeGreaterThan(5 * 60_000);
    } finally {
      socket.destroy();
    }
  }, 15_000);

  it('/metrics: reload state, unknown modules, process and runtime metrics', async () => {
    const samples = parseMetrics((await get('/metrics')).text);
    expect(metricValue(samples, 'blackbox_exporter_config_last_reload_successful')).toBe(1);
    expect(metricValue(samples, 'blackbox_exporter_config_last_reload_success_timestamp_seconds')).toBeGreaterThan(1.7e9);
    expect(metricValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.some((sample) => sample.name.startsWith('nodejs_'))).toBe(true);
  });

  it('/config shows the loaded config with defaults, secrets masked', async () => {
    const reply = await get('/config');
    expect(reply.text).toContain('preferred_ip_protocol: ip4');
    expect(reply.text).toContain('follow_redirects: true');
    expect(reply.text).not.toContain('top-s3cret');
  });

  it('/ lists the recent probes (history.limit of them) with links to their logs', async () => {
    for (let index = 0; index < 4; index += 1) await get(`/probe?module=http_2xx&target=${targetUrl}/${index}`);
    const page = (await get('/')).text;
    expect(page.match(/<tr><td>/g)).toHaveLength(3);
    expect(page).toContain(`${targetUrl}/3`);
    expect(page).not.toContain(`${targetUrl}/0<`);
    const id = /logs\?id=(\d+)/.exec(page)?.[1];
    const logs = await get(`/logs?id=${id}`);
    expect(logs.text).toMatch(/Logs for the probe/);
    expect((await get('/logs?id=99999')).status).toBe(404);
  });

  it('/ names why each failed probe failed, in the words of probe_failure_reason, and nothing for a probe that succeeded', async () => {
    await get(`/probe?module=http_2xx&target=${targetUrl}/`);
    await get('/probe?module=http_2xx&target=http://127.0.0.1:1/');
    const page = (await get('/')).text;
    expect(page).toContain('<th>Result</th><th>Reason</th><th>Time</th>');
    expect(page).toContain('<td>http://127.0.0.1:1/</td><td><strong>Failure</strong></td><td>connection refused</td>');
    expect(page).toContain(`<td>${targetUrl}/</td><td>Success</td><td></td>`);
  });

  it('POST /-/reload: a bad file is refused and the old config keeps serving', async () => {
    writeFileSync(configFile, 'modules:\n  http_2xx:\n    prober: http\n    htp: {}\n');
    const refused = await fetch(`${base}/-/reload`, { method: 'POST' });
    expect(refused.status).toBe(500);
    expect(await refused.text()).toMatch(/blackbox\.yml:4: modules\.http_2xx\.htp: unknown field; did you mean "http"\?/);
    expect(metricValue(parseMetrics((await get('/metrics')).text), 'blackbox_exporter_config_last_reload_successful')).toBe(0);
    expect(metricValue(parseMetrics((await get(`/probe?module=slow&target=${targetUrl}`)).text), 'probe_success')).toBe(1);
    writeFileSync(configFile, 'modules:\n  renamed:\n    prober: http\n');
    expect((await fetch(`${base}/-/reload`, { method: 'POST' })).status).toBe(200);
    expect((await get(`/probe?module=slow&target=${targetUrl}`)).status).toBe(400);
    writeFileSync(configFile, GOOD);
    await exporter.reload();
  });

  it('--log.level: lines below the threshold are not written', () => {
    const lines: string[] = [];
    const log = new Logger('warn', (line) => lines.push(line));
    log.info('quiet');
    log.warn('loud', { field: 'a value' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ts=\S+ level=warn msg=loud field="a value"$/);
  });

  it('shows targets with credentials masked on the status page and in debug output', async () => {
    const withPassword = `${targetUrl.replace('http://', 'http://user:url-s3cret@')}/`;
    const debug = await get(`/probe?module=http_2xx&target=${encodeURIComponent(withPassword)}&debug=true`);
    expect(debug.text).not.toContain('url-s3cret');
    expect(debug.text).toContain('user:<secret>@');
    expect((await get('/')).text).not.toContain('url-s3cret');
  });

  it('never logs secrets', () => {
    // The log holds the probes above, credentials in their targets included (masked).
    expect(logLines.join('\n')).toContain('user:<secret>@');
    expect(logLines.join('\n')).not.toMatch(/top-s3cret|url-s3cret/);
  });
});

describe('command line', () => {
  const run = promisify(execFile);
  const cli = (...args: string[]) =>
    run(process.execPath, [...FROM_SOURCE, OUR_EXPORTER_MAIN, ...args]).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it('--config.check: exit 0 for a good file, 1 with the problems for a bad one', async () => {
    const good = await cli(`--config.file=${configFile}`, '--config.check');
    expect(good.code).toBe(0);
    const bad = join(dir, 'bad.yml');
    writeFileSync(bad, 'modules:\n  m:\n    prober: http\n    http:\n      fail_if_body_matches_regexp: [":["]\n');
    const refused = await cli('--config.file', bad, '--config.check');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/bad\.yml:5: modules\.m\.http\.fail_if_body_matches_regexp\[0\]: could not compile/);
  });

  it('--version, and a clear error for an unknown flag', async () => {
    expect((await cli('--version')).stdout).toMatch(/^probekit-exporter, version \d+\.\d+\.\d+/);
    const unknown = await cli('--web.listen-adress=:1');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown flag --web\.listen-adress/);
  });

  it('refuses to start on a bad config; reloads on SIGHUP keeping the old config on error', async () => {
    const bad = join(dir, 'start-bad.yml');
    writeFileSync(bad, 'modules: {m: {prober: nope}}\n');
    expect((await cli(`--config.file=${bad}`)).code).toBe(1);

    const file = join(dir, 'hup.yml');
    writeFileSync(file, 'modules:\n  one:\n    prober: http\n');
    const port = await freePort();
    const child = spawn(process.execPath, [...FROM_SOURCE, OUR_EXPORTER_MAIN, `--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=debug'], { stdio: 'ignore' });
    try {
      const url = `http://127.0.0.1:${port}`;
      for (let tries = 0; tries < 100; tries += 1) {
        if (
          await fetch(`${url}/-/healthy`).then(
            (r) => r.ok,
            () => false,
          )
        )
          break;
        await new Promise((done) => setTimeout(done, 100));
      }
      const configText = async () => (await fetch(`${url}/config`)).text();
      expect(await configText()).toContain('one:');
      writeFileSync(file, 'modules:\n  two:\n    prober: http\n');
      child.kill('SIGHUP');
      // Polled until the exporter reports the reload: the test's own timeout bounds the wait, not this machine's speed.
      for (let tries = 0; tries < 600 && !(await configText()).includes('two:'); tries += 1) await new Promise((done) => setTimeout(done, 100));
      expect(await configText()).toContain('two:');
      writeFileSync(file, 'modules:\n  three:\n    prober: bogus\n');
      child.kill('SIGHUP');
      // Wait until the bad reload has been refused, then check the old config still serves.
      const reloadSucceeded = async () => metricValue(parseMetrics(await (await fetch(`${url}/metrics`)).text()), 'blackbox_exporter_config_last_reload_successful');
      for (let tries = 0; tries < 600 && (await reloadSucceeded()) !== 0; tries += 1) await new Promise((done) => setTimeout(done, 100));
      expect(await reloadSucceeded()).toBe(0);
      expect(await configText()).toContain('two:');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }, 180_000);
});
