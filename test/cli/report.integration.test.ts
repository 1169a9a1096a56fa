/**
 * `probekit report` against Debian's Prometheus that scraped our exporter every second: three loopback targets,
 * one up (over TLS, for the certificate), one down, one failing for a known interval. The JSON's figures are
 * checked against Prometheus' own answers, the HTML is rendered by Debian's headless Chromium (a screenshot, and
 * the DOM it built), the badge parsed as XML. Set PROBEKIT_REPORT_SCREENSHOT=<file> to keep the screenshot.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DOMParser } from '@xmldom/xmldom';
import { parse, stringify } from 'yaml';
import { freePort, startExporter, type RunningExporter } from '../../exporter/loopback/reference-exporter';
import { makeTlsFixtures, OPENSSL } from '../../exporter/loopback/tls-fixtures';
import { parseSpec, type SpecInput } from '../../src/model';
import { renderExporterConfig, renderScrapeJobs } from '../../src/render';
import type { Report } from '../../src/report';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { runCli } from '../support/cli';
import { describeWithBinaries } from '../support/integration';
import { eventually, PROMETHEUS, startPrometheus, type RunningPrometheus } from '../support/prometheus';

const CHROMIUM = '/usr/bin/chromium';
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Chromium headless as a user's browser opens the file: no sandbox (CI runs as root), no GPU. */
async function chromium(...args: string[]): Promise<string> {
  const { stdout } = await run(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--no-first-run', '--disable-extensions', ...args], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: 60_000,
  });
  return stdout;
}

describeWithBinaries([PROMETHEUS, CHROMIUM, OPENSSL])('probekit report against Prometheus that scraped our exporter', () => {
  let dir: string;
  let plain: Server;
  let secure: Server;
  let exporter: RunningExporter;
  let prometheus: RunningPrometheus;
  let failing = false;
  let failedFrom = 0;
  let failedUntil = 0;
  let from = 0;
  let to = 0;
  let certificateNotAfter = 0;
  let targets: { up: string; down: string; flaky: string };
  let report: Report;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-report-'));
    const tls = makeTlsFixtures({ serverDays: 47 });
    certificateNotAfter = tls.serverNotAfter;
    secure = createHttpsServer({ cert: tls.serverCert, key: tls.serverKey }, (_request, response) => response.writeHead(200).end('ok'));
    tls.cleanup();
    plain = createHttpServer((request, response) => response.writeHead(request.url === '/down' || (request.url === '/flaky' && failing) ? 503 : 200).end());
    secure.listen(0, '127.0.0.1');
    plain.listen(0, '127.0.0.1');
    await Promise.all([once(secure, 'listening'), once(plain, 'listening')]);
    const port = (server: Server) => (server.address() as { port: number }).port;
    targets = { up: `https://127.0.0.1:${port(secure)}/`, down: `http://127.0.0.1:${port(plain)}/down`, flaky: `http://127.0.0.1:${port(plain)}/flaky` };

    const input: SpecInput = {
      modules: { http_2xx: { prober: 'http', timeout: '1s', http: { tls_config: { insecure_skip_verify: true } } } },
      jobs: [
        { name: 'storefront', module: 'http_2xx', targets: [targets.up, targets.flaky], scrapeInterval: '1s', scrapeTimeout: '1s', slo: 90 },
        { name: 'legacy-api', module: 'http_2xx', targets: [targets.down], scrapeInterval: '1s', scrapeTimeout: '1s' },
      ],
    };
    writeFileSync(join(dir, 'probekit.yaml'), stringify(input));
    const spec = parseSpec(input, { env: {} });
    exporter = await startExporter('ours', stringify(renderExporterConfig(spec, join(dir, 'secrets')).config));
    prometheus = await startPrometheus({ global: { scrape_interval: '1s' }, scrape_configs: renderScrapeJobs(spec, exporter.baseUrl.replace('http://', '')) });
    // A few good samples of each, then the flaky target fails for a known interval, then recovers.
    const sampled = await eventually(30, async () => (await prometheus.query('count_over_time(probe_success[1m]) >= 4')).length === 3);
    if (!sampled) throw new Error(`Prometheus did not scrape the three targets: ${prometheus.log().slice(-2000)}`);
    // The window starts where every target has samples: a few seconds of good probes before the failure.
    from = Math.floor(Date.now() / 1000) - 3;
    await sleep(3_000);
    failedFrom = Date.now() / 1000;
    failing = true;
    await sleep(4_000);
    failing = false;
    failedUntil = Date.now() / 1000;
    const recovered = await eventually(
      10,
      async () => (await prometheus.query(`count_over_time(probe_success{instance="${targets.flaky}"}[3s]) >= 2 and min_over_time(probe_success{instance="${targets.flaky}"}[3s]) == 1`)).length === 1,
    );
    if (!recovered) throw new Error('the flaky target did not recover in Prometheus');
    await sleep(2_000);
    to = Math.floor(Date.now() / 1000);

    const result = await reportOfWindow('--format', 'json');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    report = JSON.parse(result.stdout) as Report;
  }, 90_000);

  afterAll(async () => {
    await prometheus?.stop();
    await exporter?.stop();
    for (const server of [plain, secure]) {
      server?.closeAllConnections();
      server?.close();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** `probekit report` of the test's window, with the spec, and `args`. */
  const reportOfWindow = (...args: string[]) => runCli(['report', '--prometheus', prometheus.url, '--spec', join(dir, 'probekit.yaml'), '--from', String(from), '--to', String(to), ...args]);
  /** An uptime as the tables write it: two decimals, 100 and 0 only when exact. */
  const percentText = (value: number) => `${value === 100 ? '100.00' : value === 0 ? '0.00' : Math.min(Math.max(value, 0.01), 99.99).toFixed(2)}%`;
  const target = (instance: string) => report.targets.find((entry) => entry.instance === instance)!;

  it("reports each target's uptime as Prometheus' avg_over_time at the window's end", async () => {
    expect(report).toMatchObject({ from: new Date(from * 1000).toISOString(), to: new Date(to * 1000).toISOString(), windowSeconds: to - from });
    expect(report.targets.map((entry) => `${entry.job} ${entry.instance}`).sort()).toEqual([`legacy-api ${targets.down}`, `storefront ${targets.flaky}`, `storefront ${targets.up}`]);
    const averages = await prometheus.query(`avg_over_time(probe_success[${to - from}s])`, to);
    for (const series of averages) expect(target(series.metric.instance!).uptimePercent).toBe(Number(series.value[1]) * 100);
    // The up target answers every probe, unless a loaded machine makes one miss its 1 s: at most a few of them.
    expect(target(targets.up).uptimePercent).toBeGreaterThan(80);
    expect(target(targets.down).uptimePercent).toBe(0);
    expect(target(targets.flaky).uptimePercent).toBeGreaterThan(0);
    expect(target(targets.flaky).uptimePercent).toBeLessThan(100);
  });

  it('reports as incidents the runs of failed samples, each from its first failed sample to the first success after it', async () => {
    const samples = await prometheus.query(`probe_success[${to - from}s]`, to);
    const runs = (values: Array<[number, string]>) => {
      const found: Array<{ start: string; end: string | null }> = [];
      let start: number | undefined;
      for (const [time, value] of values) {
        if (value === '0') start ??= time;
        else if (start !== undefined) {
          found.push({ start: new Date(start * 1000).toISOString(), end: new Date(time * 1000).toISOString() });
          start = undefined;
        }
      }
      if (start !== undefined) found.push({ start: new Date(start * 1000).toISOString(), end: null });
      return found;
    };
    for (const series of samples as unknown as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>) {
      expect(target(series.metric.instance!).incidents.map(({ start, end }) => ({ start, end }))).toEqual(runs(series.values.filter(([time]) => time > from)));
    }
    const [down] = target(targets.down).incidents;
    expect(target(targets.down).incidents).toHaveLength(1);
    expect(down!.end).toBeNull();
    expect(down!.seconds).toBeCloseTo(to - Date.parse(down!.start) / 1000, 3);
    // The flaky target failed from failedFrom to failedUntil: one incident, within a scrape (1 s) and a probe of those times.
    const [flaky] = target(targets.flaky).incidents;
    expect(target(targets.flaky).incidents).toHaveLength(1);
    expect(Date.parse(flaky!.start) / 1000).toBeGreaterThanOrEqual(failedFrom - 0.1);
    expect(Date.parse(flaky!.start) / 1000).toBeLessThanOrEqual(failedFrom + 2);
    expect(Date.parse(flaky!.end!) / 1000).toBeGreaterThanOrEqual(failedUntil - 0.1);
    expect(Date.parse(flaky!.end!) / 1000).toBeLessThanOrEqual(failedUntil + 2);
  });

  it("reports probe durations, the slowest phase, the certificate's days and the error budget of the spec's slo", async () => {
    const up = target(targets.up);
    const [median] = await prometheus.query(`quantile_over_time(0.5, probe_duration_seconds{instance="${targets.up}"}[${to - from}s])`, to);
    expect(up.durationSeconds!.p50).toBe(Number(median!.value[1]));
    expect(up.durationSeconds!.p95).toBeGreaterThanOrEqual(up.durationSeconds!.p50);
    expect(['resolve', 'connect', 'tls', 'processing', 'transfer']).toContain(up.slowestPhase!.phase);
    expect(up.certificateDaysLeft).toBe(Math.floor((certificateNotAfter - to) / 86_400));
    expect(target(targets.flaky).certificateDaysLeft).toBeNull();
    expect(up).toMatchObject({ slo: 90, errorBudgetRemainingPercent: 100 });
    const flaky = target(targets.flaky);
    expect(flaky.errorBudgetRemainingPercent).toBeCloseTo(((10 - (100 - flaky.uptimePercent)) / 10) * 100, 9);
    expect(target(targets.down)).toMatchObject({ slo: null, errorBudgetRemainingPercent: null });
  });

  it('lists a target the spec names that Prometheus has no series of, apart from every figure', async () => {
    expect(report.unseen).toEqual([]);
    const never = 'http://127.0.0.1:9/not-deployed-yet';
    const input = parse(readFileSync(join(dir, 'probekit.yaml'), 'utf8')) as SpecInput;
    const grown = { ...input, jobs: input.jobs!.map((job) => (job.name === 'storefront' ? { ...job, targets: [...job.targets!, never] } : job)) };
    writeFileSync(join(dir, 'grown.yaml'), stringify(grown));
    const { code, stdout } = await runCli(['report', '--prometheus', prometheus.url, '--spec', join(dir, 'grown.yaml'), '--from', String(from), '--to', String(to), '--format', 'json']);
    expect(code).toBe(0);
    const withNew = JSON.parse(stdout) as Report;
    expect(withNew.unseen).toEqual([{ job: 'storefront', instance: never }]);
    expect(withNew.targets.map((entry) => entry.instance).sort()).toEqual(report.targets.map((entry) => entry.instance).sort());
    expect(withNew.jobs.find((job) => job.job === 'storefront')!.targets).toBe(2);
  });

  it('writes a Markdown table per job, a row per target', async () => {
    const { code, stdout } = await reportOfWindow();
    expect(code).toBe(0);
    const rows = (job: string) => stdout.split(`## ${job}\n`)[1]!.split('\n\n')[1]!.split('\n');
    expect(rows('storefront').slice(0, 2)).toEqual([
      '| Target | Uptime | Incidents | Downtime | p50 / p95 | Slowest phase | Certificate | Error budget left |',
      '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
    ]);
    const cells = (instance: string) => [`| ${instance}`, percentText(target(instance).uptimePercent), String(target(instance).incidents.length)];
    expect(
      rows('storefront')
        .slice(2)
        .map((row) => row.split(' | ').slice(0, 3)),
    ).toEqual([cells(targets.flaky), cells(targets.up)]);
    expect(rows('legacy-api').slice(2)).toEqual([expect.stringMatching(new RegExp(`^\\| ${targets.down.replace(/[.?/]/g, '\\$&')} \\| 0\\.00% \\| 1 \\|`))]);
    expect(stdout).toContain('### Incidents of storefront');
  });

  it('renders an HTML page that Chromium shows with every target, its uptime and its chart, from nothing but the file', async () => {
    const page = join(dir, 'report.html');
    const { code } = await reportOfWindow('--out', page, '--title', 'Shop status');
    expect(code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\((?!#)|(?:src|href)=/i);

    const screenshot = join(dir, 'report.png');
    const [dom] = await Promise.all([chromium('--dump-dom', `file://${page}`), chromium(`--screenshot=${screenshot}`, '--window-size=1200,1080', `file://${page}`)]);
    const png = readFileSync(screenshot);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(1200);
    if (process.env.PROBEKIT_REPORT_SCREENSHOT) copyFileSync(screenshot, process.env.PROBEKIT_REPORT_SCREENSHOT);

    const document = new DOMParser().parseFromString(dom, 'text/html');
    const rows = Array.from(document.getElementsByTagName('tbody')).filter((row) => row.getAttribute('data-target'));
    expect(rows.map((row) => row.getAttribute('data-target')).sort()).toEqual([targets.down, targets.flaky, targets.up].sort());
    for (const row of rows) {
      const entry = target(row.getAttribute('data-target')!);
      const uptime = Array.from(row.getElementsByTagName('span')).find((span) => /\buptime\b/.test(span.getAttribute('class') ?? ''));
      expect(uptime?.textContent).toBe(percentText(entry.uptimePercent));
      const [chart] = Array.from(row.getElementsByTagName('svg'));
      expect(chart?.getAttribute('class')).toBe('timeline');
      expect(chart!.getElementsByTagName('rect')).toHaveLength(entry.timeline.length);
    }
    expect(document.getElementsByTagName('h1')[0]?.textContent).toBe('Shop status');
  });

  it("draws a job's uptime as a badge that is valid SVG", async () => {
    const { code, stdout } = await reportOfWindow('--job', 'storefront', '--format', 'svg-badge');
    expect(code).toBe(0);
    const errors: string[] = [];
    const svg = new DOMParser({ onError: (level, message) => void errors.push(`${level}: ${message}`) }).parseFromString(stdout, 'image/svg+xml');
    expect(errors).toEqual([]);
    expect(svg.documentElement?.namespaceURI).toBe('http://www.w3.org/2000/svg');
    expect(svg.documentElement?.getAttribute('height')).toBe('20');
    const job = report.jobs.find((entry) => entry.job === 'storefront')!;
    expect(Array.from(svg.getElementsByTagName('text')).map((text) => text.textContent)).toContain(percentText(job.uptimePercent));
  });

  it('says in one line what is missing when Prometheus has no probekit series, cannot be reached, or refuses', async () => {
    const window = ['--from', String(from), '--to', String(to)];
    const none = await runCli(['report', '--prometheus', prometheus.url, '--job', 'checkout', ...window]);
    expect(none).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: Prometheus at ${prometheus.url} has no probe_success series of job "checkout" between ${new Date(from * 1000).toISOString()} and ${new Date(to * 1000).toISOString()}; check --job (and --spec) and the window, and that Prometheus scrapes probekit's jobs\n`,
    });

    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await runCli(['report', '--prometheus', closed, ...window]);
    expect(unreachable).toEqual({ code: 1, stdout: '', stderr: `error: cannot reach Prometheus at ${closed}: ECONNREFUSED; check --prometheus\n` });
  });

  it('sends the bearer token of --bearer-token-file and the --header flags, and names a refusal without them', async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const guarded = createHttpServer((request, response) => {
      seen.push(request.headers);
      if (request.headers.authorization !== 'Bearer s3cret-token') return void response.writeHead(401, 'Unauthorized').end();
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'invalid parameter "query": 1:1: parse error' }));
    });
    guarded.listen(0, '127.0.0.1');
    await once(guarded, 'listening');
    const url = `http://127.0.0.1:${(guarded.address() as { port: number }).port}`;
    try {
      writeFileSync(join(dir, 'token'), 's3cret-token\n', { mode: 0o600 });
      const refused = await runCli(['report', '--prometheus', url, '--window', '1h', '--bearer-token-file', join(dir, 'token'), '--header', 'X-Scope-OrgID: shop']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`^error: Prometheus at ${url} refused the query [^\\n]+: invalid parameter "query": 1:1: parse error\\n$`));
      expect(seen[0]).toMatchObject({ authorization: 'Bearer s3cret-token', 'x-scope-orgid': 'shop' });
      const unauthorized = await runCli(['report', '--prometheus', url, '--window', '1h']);
      expect(unauthorized).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: Prometheus at ${url} answered 401 Unauthorized; give its credentials with --header 'Authorization: ...' or --bearer-token-file\n`,
      });
    } finally {
      guarded.closeAllConnections();
      guarded.close();
    }
  });

  it('draws its progress on one line of a terminal', async () => {
    let stderr = '';
    const io: CliIo = { stdout: () => undefined, stderr: (text) => void (stderr += text), stderrIsTerminal: true, env: {}, readFile: (path) => readFileSync(path, 'utf8'), cwd: dir };
    expect(await main(['report', '--prometheus', prometheus.url, '--from', String(from), '--to', String(to), '--format', 'json'], io)).toBe(0);
    const updates = stderr.split('\r').filter(Boolean);
    expect(updates.length).toBeGreaterThanOrEqual(7);
    expect(updates.at(-1)).toMatch(new RegExp(`^querying ${prometheus.url}: (\\d+) of \\1 queries\\n$`));
  });
});
