/**
 * From a failing probe to its logs, with real parts: a loopback service that answers 503 for a few seconds, our
 * exporter probing it, Debian's Prometheus scraping the exporter through the scrape job probekit renders (one
 * second apart), and the Elasticsearch contract server (assistant/test/support/elasticsearch.ts; no real Elasticsearch can
 * run here) holding the service's logs: some written while it failed, others long before. The skill must find the
 * failure in Prometheus (or, without it, in the exporter's recent probes), say why, and summarize exactly the logs
 * written around it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { skillsRole } from '../src/api-key';
import { connectSearchEngine } from '../src/connection';
import { createSkillContext, runSkill, type SkillContext } from '../src/skill';
import { BUILT_IN_SKILLS } from '../src/skills';
import { describeFailure, FAILURE_REASON_METRIC, TIMEOUT_PHASES } from '@probekit/exporter';
import { reasonAt, reasonFromDebug } from '../src/probe-failures';
// The library renders scrape jobs for its constructs alone; a test reaches the renderer in its folder.
import { renderScrapeJob } from '../../src/render/scrape-job';
import { ContractElasticsearch } from './support/elasticsearch';
import { runCli } from '../../test/support/cli';
import { describeWithBinaries } from '../../test/support/integration';
import { OPENSSL } from '../../exporter/loopback/tls-fixtures';
import { freePort, REFERENCE_EXPORTER, startExporter, type RunningExporter } from '../../exporter/loopback/reference-exporter';
import { LOG_USERS } from './fixtures/logs';

const PROMETHEUS = '/usr/bin/prometheus';
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The service that fails, in a process of its own: in jest's worker, once, a probe timed out waiting for its
 * answer before the test made it fail (likely a pause of the worker: a collection of its heap, the rest of the
 * suite on two cores), which made a failure the test did not cause. Its stdin takes `fail` and `ok`; it answers each with a line once switched.
 */
const FAILING_SERVICE = `
const server = require('node:http').createServer((_request, response) => response.writeHead(failing ? 503 : 200).end(failing ? 'down' : 'ok'));
let failing = false;
process.stdin.setEncoding('utf8').on('data', (text) => {
  for (const line of text.split('\\n').filter(Boolean)) { failing = line === 'fail'; process.stdout.write(line + '\\n'); }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

interface FailingService {
  readonly port: number;
  setFailing(failing: boolean): Promise<void>;
  stop(): void;
}

async function startFailingService(): Promise<FailingService> {
  const child = spawn(process.execPath, ['-e', FAILING_SERVICE], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  const port = Number(await next());
  return {
    port,
    setFailing: async (failing) => {
      const switched = next();
      child.stdin!.write(failing ? 'fail\n' : 'ok\n');
      await switched;
    },
    stop: () => child.kill(),
  };
}

describeWithBinaries([PROMETHEUS, OPENSSL])('probe_failure_logs: from a failing probe to its logs', () => {
  let dir: string;
  let service: FailingService;
  let target: string;
  let exporter: RunningExporter;
  let prometheus: ChildProcess;
  let prometheusUrl: string;
  let es: ContractElasticsearch;
  let context: SkillContext;
  let token: string;
  let close: () => Promise<void>;
  let failedFrom: number;
  let failedUntil: number;
  const inWindow: { at: number; message: string }[] = [];

  async function query(promql: string): Promise<{ values?: [number, string][] }[]> {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`).catch(() => undefined);
    if (!response?.ok) return [];
    return ((await response.json()) as { data: { result: { values?: [number, string][] }[] } }).data.result;
  }

  /** Waits until Prometheus holds a probe_success sample with `value` taken after `since`. */
  async function sampleAfter(since: number, value: '0' | '1'): Promise<void> {
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const series = await query(`probe_success{instance=${JSON.stringify(target)}}[5m]`);
      if (series.some((s) => (s.values ?? []).some(([at, v]) => at * 1000 > since && v === value))) return;
      await sleep(250);
    }
    throw new Error(`Prometheus took no probe_success ${value} after ${new Date(since).toISOString()}`);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-probe-logs-'));
    service = await startFailingService();
    target = `http://127.0.0.1:${service.port}/health`;

    // Prometheus' 1 s scrape timeout less the exporter's default offset (0.5 s) left a probe of the 503 half a
    // second, which the whole suite on two cores sometimes took: 0.9 s makes that rare (see expectReasons).
    exporter = await startExporter('ours', 'modules:\n  http_2xx:\n    prober: http\n    timeout: 1s\n', { flags: ['--timeout-offset=0.1'] });
    const job = renderScrapeJob(
      { name: 'checkout', module: 'http_2xx', targets: [{ target, module: 'http_2xx', labels: {}, scrapeInterval: '1s' }], scrapeInterval: '1s', scrapeTimeout: '1s', labels: {} },
      exporter.baseUrl.replace('http://', ''),
    );
    writeFileSync(join(dir, 'prometheus.yml'), stringify({ global: { scrape_interval: '1s' }, scrape_configs: [job] }));
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });

    // A good start, four seconds of 503s, and a recovery, each seen by Prometheus.
    await sampleAfter(0, '1');
    await service.setFailing(true);
    failedFrom = Date.now();
    await sampleAfter(failedFrom, '0');
    await sleep(4000);
    await service.setFailing(false);
    failedUntil = Date.now();
    await sampleAfter(failedUntil, '1');

    // The service's logs: lines while it failed, lines an hour before (outside any margin), other services' lines.
    const line = (at: number, level: string, message: string, name = 'checkout') => ({
      '@timestamp': new Date(at).toISOString(),
      log: { level },
      message,
      service: { name },
      kubernetes: { namespace: 'shop', pod: { name: `${name}-7d9f8b6c4-x2x9k` } },
    });
    const documents: Record<string, unknown>[] = [];
    for (let i = 0; i < 6; i += 1) {
      const at = failedFrom + 300 + i * 500;
      const message = `upstream inventory refused connection to 192.0.2.${10 + i}:8080`;
      inWindow.push({ at, message });
      documents.push(line(at, 'error', message));
    }
    inWindow.push({ at: failedFrom + 1000, message: 'health check answered 503: dependency inventory down' });
    documents.push(line(failedFrom + 1000, 'warn', 'health check answered 503: dependency inventory down'));
    for (let i = 0; i < 5; i += 1) documents.push(line(failedFrom - 3_600_000 + i * 1000, 'error', 'disk quota exceeded on /var/cache'));
    for (let i = 0; i < 4; i += 1) documents.push(line(failedFrom + 500 + i * 100, 'error', 'cart not found', 'cart'));
    es = await ContractElasticsearch.start({
      users: LOG_USERS,
      indices: {
        'logs-shop': {
          mappings: {
            properties: {
              '@timestamp': { type: 'date' },
              log: { properties: { level: { type: 'keyword' } } },
              message: { type: 'match_only_text' },
              service: { properties: { name: { type: 'keyword' } } },
              kubernetes: { properties: { namespace: { type: 'keyword' }, pod: { properties: { name: { type: 'keyword' } } } } },
            },
          },
          documents,
        },
      },
    });
    token = es.addApiKey('elastic', 'assistant', { read_only: skillsRole() }).encoded;
    const engine = await connectSearchEngine({ url: es.url, tls: { ca: es.pki.ca } }, { apiToken: token });
    close = () => engine.client.close();
    context = createSkillContext({
      client: engine.client,
      url: es.url,
      targetLogs: [{ target: 'http://127.0.0.1:*/health', logs: { service: 'checkout', namespace: 'shop' } }],
    });
  }, 90_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      await once(prometheus, 'exit');
    }
    await exporter?.stop();
    service?.stop();
    await close?.();
    await es?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The exporter's reason metric says why each probe of the run failed: the 503. A probe the loaded machine
   * did not answer in time says so instead, and the skill counts it under its own reason; nothing else may appear.
   */
  function expectReasons(run: { probes: number; reasons: Record<string, number> }): void {
    const notAccepted = describeFailure({ reason: 'HTTP status not accepted' });
    const timeouts = TIMEOUT_PHASES.map((phase) => describeFailure({ reason: 'timed out', phase }));
    expect(Object.keys(run.reasons).filter((reason) => reason !== notAccepted && !timeouts.includes(reason))).toEqual([]);
    expect(run.reasons[notAccepted]).toBeGreaterThanOrEqual(1);
    expect(Object.values(run.reasons).reduce((sum, count) => sum + count, 0)).toBe(run.probes);
  }

  it("reads the failure and its reason from Prometheus, then summarizes the service's logs around it", async () => {
    const result = (await runSkill(BUILT_IN_SKILLS, 'probe_failure_logs', { target, prometheusUrl, from: 'now-5m' }, context)) as Record<string, any>;
    expect(result).toMatchObject({ target, source: `Prometheus ${prometheusUrl}`, failedProbes: expect.any(Number) });
    expect(result.failures).toHaveLength(1);
    const [run] = result.failures;
    expect(run).toMatchObject({ job: 'checkout', recovered: true });
    // Prometheus scrapes once a second: the run starts within a scrape of the first 503 and ends with the first 200 after.
    expect(Date.parse(run.from)).toBeGreaterThanOrEqual(failedFrom - 100);
    expect(Date.parse(run.from)).toBeLessThanOrEqual(failedFrom + 2000);
    expect(Date.parse(run.to)).toBeGreaterThanOrEqual(failedUntil - 1000);
    expect(Date.parse(run.to)).toBeLessThanOrEqual(failedUntil + 2500);
    expect(run.probes).toBe(result.failedProbes);
    expect(run.probes).toBeGreaterThanOrEqual(3);
    // The exporter's reason metric says why.
    expectReasons(run);
    expect(result.logs).toMatchObject({
      index: 'logs-*,filebeat-*,logstash-*',
      filters: { service: 'checkout', namespace: 'shop' },
      rule: 'target rule 1 (http://127.0.0.1:*/health)',
      total: 7,
      byLevel: { warn: 1, error: 6 },
      complete: true,
      notes: [expect.stringMatching(/^patterns were found/)],
    });
    expect(result.logs.patterns.map((p: { pattern: string; count: number }) => [p.pattern, p.count])).toEqual([
      ['upstream inventory refused connection to <ip>', 6],
      ['health check answered <num>: dependency inventory down', 1],
    ]);
  });

  it("without Prometheus, reads the exporter's recent probes; from the command line, with the flags", async () => {
    const result = await runCli(
      [
        'assistant',
        'run',
        'probe_failure_logs',
        '--input',
        JSON.stringify({ target }),
        '--url',
        es.url,
        '--api-token-env',
        'TOKEN',
        '--ca-file',
        join(dir, 'ca.pem'),
        '--exporter-url',
        exporter.baseUrl,
        '--target-logs',
        JSON.stringify([{ target: 'http://127.0.0.1:*/health', logs: { service: 'checkout' } }]),
      ],
      { TOKEN: token },
      undefined,
      (writeFileSync(join(dir, 'ca.pem'), es.pki.ca), dir),
    );
    expect(result.stderr).toBe('');
    const answer = JSON.parse(result.stdout) as Record<string, any>;
    expect(answer.source).toBe(`exporter ${exporter.baseUrl}`);
    expect(answer.failures).toHaveLength(1);
    const [run] = answer.failures;
    expectReasons(run);
    expect(Date.parse(run.from)).toBeGreaterThanOrEqual(failedFrom - 100);
    expect(Date.parse(run.to)).toBeLessThanOrEqual(failedUntil + 1000);
    expect(answer.logs).toMatchObject({ filters: { service: 'checkout' }, total: 7 });
    expect(result.stdout).not.toContain(token);
  });

  it("takes each failed probe's reason from our exporter's status page, without reading its debug output", async () => {
    // The exporter's pages as they are, except the debug outputs: a skill that asked for one would get a 404.
    const debugAsked: string[] = [];
    const front = createServer((request, response) => {
      if (request.url?.startsWith('/logs')) {
        debugAsked.push(request.url);
        response.writeHead(404).end();
        return;
      }
      void fetch(`${exporter.baseUrl}${request.url ?? '/'}`).then(async (answer) =>
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/html' }).end(await answer.text()),
      );
    });
    front.listen(0, '127.0.0.1');
    await once(front, 'listening');
    const frontUrl = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
    try {
      const result = (await runSkill(BUILT_IN_SKILLS, 'probe_failure_logs', { target, exporterUrl: frontUrl, from: 'now-10m' }, context)) as Record<string, any>;
      expect(result.failures).toHaveLength(1);
      expectReasons(result.failures[0]);
      expect(debugAsked).toEqual([]);
    } finally {
      front.close();
    }
  });

  describeWithBinaries([REFERENCE_EXPORTER])("upstream blackbox_exporter's status page", () => {
    it('is read too: its rows, and the reason its debug output gives at info level; it says not when, so the whole window is read', async () => {
      const reference = await startExporter('reference', 'modules:\n  http_2xx:\n    prober: http\n');
      try {
        await service.setFailing(true);
        for (let i = 0; i < 2; i += 1) await reference.probe({ module: 'http_2xx', target });
        await service.setFailing(false);
        const result = (await runSkill(BUILT_IN_SKILLS, 'probe_failure_logs', { target, exporterUrl: reference.baseUrl, from: 'now-10m' }, context)) as Record<string, any>;
        expect(result).toMatchObject({ source: `exporter ${reference.baseUrl}`, probes: 2, failedProbes: 2 });
        expect(result.failures).toEqual([{ from: 'unknown', to: 'unknown', recovered: false, probes: 2, reasons: { 'Invalid HTTP response status code, wanted 2xx (status_code=503)': 2 } }]);
        expect(result.logs).toMatchObject({ total: 7, notes: expect.arrayContaining(['the exporter does not say when its probes ran; the logs are read over the whole window asked for']) });
      } finally {
        await service.setFailing(false);
        await reference.stop();
      }
    });
  });

  it('a target no rule maps is a question for the user; a call may not point the server at another Prometheus', async () => {
    const unmapped = (await runSkill(BUILT_IN_SKILLS, 'probe_failure_logs', { target: 'tcp://192.0.2.1:5432', prometheusUrl }, context).catch((e: unknown) => e)) as Error;
    expect(unmapped.message).toBe(
      'probe_failure_logs: input.target: no rule says which logs belong to tcp://192.0.2.1:5432; give service, namespace, pod, container or host in the call, or start the server with a --target-logs rule for it',
    );
    const pinned = createSkillContext({ client: context.client, url: es.url, prometheusUrl, targetLogs: context.settings.targetLogs! });
    const other = (await runSkill(BUILT_IN_SKILLS, 'probe_failure_logs', { target, prometheusUrl: 'http://127.0.0.1:9' }, pinned).catch((e: unknown) => e)) as Error;
    expect(other.message).toBe(`probe_failure_logs: input.prometheusUrl: this server reads probes from ${prometheusUrl} only (--prometheus-url); leave prometheusUrl out`);
    const quiet = (await runSkill(BUILT_IN_SKILLS, 'probe_failure_logs', { target, from: 'now-10m', to: 'now-9m' }, pinned)) as Record<string, unknown>;
    expect(quiet).toMatchObject({
      failedProbes: 0,
      failures: [],
      notes: [`Prometheus has no probe_success for instance ${target} in the window; check the target as the scrape job lists it`, 'no probe of this target failed in the window; no logs were read'],
    });
  });
});

describe('failure reasons', () => {
  const series = (name: string, value: number, labels: Record<string, string> = {}) => ({ metric: { __name__: name, ...labels }, samples: [{ at: 1000, value }] });

  const REASON = FAILURE_REASON_METRIC.name;

  it(`the exporter's ${REASON} metric wins over what the other metrics suggest, with the phase of a timeout`, () => {
    expect(reasonAt(1000, [series('probe_http_status_code', 0), series(REASON, 1, { reason: 'connection refused' }), series(REASON, 0, { reason: 'timed out', phase: 'connect' })])).toBe(
      'connection refused',
    );
    expect(reasonAt(1000, [series(REASON, 1, { reason: 'timed out', phase: 'connect' })])).toBe('timed out (connect)');
    expect(reasonFromDebug(`Logs for the probe:\n\nMetrics that would have been returned:\n${REASON}{reason="TLS handshake failed"} 1\nprobe_success 0\n`)).toBe('TLS handshake failed');
    expect(reasonFromDebug(`Metrics that would have been returned:\n${REASON}{reason="timed out",phase="tls"} 1\nprobe_success 0\n`)).toBe('timed out (tls)');
  });

  it.each([
    [[series('probe_failed_due_to_regex', 1), series('probe_http_status_code', 200)], 'body or header regexp failed'],
    [[series('probe_http_status_code', 0)], 'no HTTP response (connection refused, timeout, TLS or DNS failure)'],
    [[series('probe_grpc_healthcheck_response', 1, { serving_status: 'NOT_SERVING' }), series('probe_grpc_healthcheck_response', 0, { serving_status: 'SERVING' })], 'gRPC not serving (NOT_SERVING)'],
    [[series('probe_http_status_code', 404)], 'HTTP status not accepted (404)'],
    [[series('probe_ssl_earliest_cert_expiry', 0.5)], 'certificate not valid (expired)'],
    [[], 'failed; no metric says why (see the exporter debug output)'],
  ])("without it, from the probe's other metrics: %#", (metrics, reason) => {
    expect(reasonAt(1000, metrics)).toBe(reason);
  });
});
