/**
 * The whole chain, with real parts: a spec rendered to the exporter's config and the agent's scrape jobs,
 * our exporter serving that config, and a real Prometheus scraping it through the scrape job's three relabel rules.
 * The secret header travels as in the cluster: from the environment at render, into a file the exporter
 * reads (the Secret mount), never into the config.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseSpec, readEnvSecret, type SpecInput } from '../../src/model';
import { renderExporterConfig, renderScrapeJobs } from '../../src/render';
import { describeWithBinaries } from '../support/integration';
import { freePort, startExporter, type RunningExporter } from '../../exporter/loopback/reference-exporter';

const PROMETHEUS = '/usr/bin/prometheus';
const TOKEN = 'e2e-token-7d41';

describeWithBinaries([PROMETHEUS])('Prometheus scrapes our exporter through the rendered jobs', () => {
  let dir: string;
  let target: Server;
  let exporter: RunningExporter;
  let prometheus: ChildProcess;
  let prometheusUrl: string;
  let base: string;
  const seen: Array<{ path: string; authentication?: string; language?: string; body: string; contentType?: string }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-e2e-'));
    target = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({
          path: request.url ?? '',
          authentication: request.headers.authentication as string | undefined,
          language: request.headers['accept-language'],
          body,
          contentType: request.headers['content-type'],
        });
        const status =
          request.url === '/down'
            ? 503
            : request.url === '/private'
              ? request.headers.authentication === `Bearer ${TOKEN}`
                ? 200
                : 401
              : request.url === '/echo'
                ? request.method === 'POST' && body === '{"probe":true}'
                  ? 200
                  : 400
                : 200;
        response.writeHead(status).end();
      });
    });
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    base = `http://127.0.0.1:${(target.address() as { port: number }).port}`;

    const input: SpecInput = {
      modules: {
        http_2xx: { preset: 'http_2xx' },
        http_2xx_with_header: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'E2E_TOKEN' }, acceptLanguage: 'de-CH' },
        http_post_2xx: { preset: 'http_post_2xx', body: '{"probe":true}' },
      },
      jobs: [
        { name: 'web', module: 'http_2xx', targets: [`${base}/`, `${base}/down`], scrapeInterval: '5s', scrapeTimeout: '5s', labels: { team: 'web' } },
        { name: 'private', module: 'http_2xx_with_header', targets: [`${base}/private`], scrapeInterval: '5s', scrapeTimeout: '5s' },
        { name: 'post', module: 'http_post_2xx', targets: [`${base}/echo`], scrapeInterval: '5s', scrapeTimeout: '5s' },
      ],
    };
    const env = { E2E_TOKEN: TOKEN };
    const spec = parseSpec(input, { env });

    // As the cluster form mounts them: one file per secret header, in the secrets directory.
    const secretsDir = join(dir, 'secrets');
    mkdirSync(secretsDir);
    const { config, secretFiles } = renderExporterConfig(spec, secretsDir);
    for (const file of secretFiles) writeFileSync(file.path, 'fromEnv' in file.ref ? readEnvSecret(file.ref, env)! : '', { mode: 0o600 });
    const configYaml = stringify(config);
    expect(configYaml).not.toContain(TOKEN);
    exporter = await startExporter('ours', configYaml);

    const exporterAddress = exporter.baseUrl.replace('http://', '');
    const prometheusConfig = join(dir, 'prometheus.yml');
    writeFileSync(prometheusConfig, stringify({ global: { scrape_interval: '5s' }, scrape_configs: renderScrapeJobs(spec, exporterAddress) }));
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(PROMETHEUS, [`--config.file=${prometheusConfig}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  }, 60_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      await once(prometheus, 'exit');
    }
    await exporter?.stop();
    target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    return ((await response.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }).data.result;
  }

  it('every target is probed, labelled with its target as instance, with the right outcome', async () => {
    let results: Awaited<ReturnType<typeof query>> = [];
    const until = Date.now() + 45_000;
    while (Date.now() < until) {
      results = await query('probe_success').catch(() => []);
      if (results.length === 4) break;
      await new Promise((done) => setTimeout(done, 500));
    }
    const outcome = Object.fromEntries(results.map((sample) => [`${sample.metric.job} ${sample.metric.instance}`, sample.value[1]]));
    expect(outcome).toEqual({
      [`web ${base}/`]: '1',
      [`web ${base}/down`]: '0',
      [`private ${base}/private`]: '1',
      [`post ${base}/echo`]: '1',
    });
    expect(results.find((sample) => sample.metric.instance === `${base}/`)!.metric.team).toBe('web');
  }, 60_000);

  it('the module chose what was sent: the secret header from its file, the language, the POST body', async () => {
    const status = await query('probe_http_status_code');
    expect(Object.fromEntries(status.map((sample) => [sample.metric.instance, sample.value[1]]))).toMatchObject({ [`${base}/down`]: '503', [`${base}/private`]: '200' });
    const privateRequest = seen.find((request) => request.path === '/private')!;
    expect(privateRequest).toMatchObject({ authentication: `Bearer ${TOKEN}`, language: 'de-CH' });
    expect(seen.find((request) => request.path === '/echo')).toMatchObject({ body: '{"probe":true}', contentType: 'application/json' });
    expect(exporter.log()).not.toContain(TOKEN);
  });
});
