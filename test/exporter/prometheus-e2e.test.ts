/**
 * End to end: a real Prometheus scrapes our exporter with the seed's scrape job (metrics_path /probe,
 * params.module, the three relabel rules of seed 2.2), and the probe results land under the target's
 * instance label.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithBinaries } from '../support/integration';
import { freePort, startExporter, type RunningExporter } from '../support/reference-exporter';
import { seedModulesYaml } from '../support/seed-modules';

const PROMETHEUS = '/usr/bin/prometheus';

describeWithBinaries([PROMETHEUS])('Prometheus scraping the exporter with the seed scrape job', () => {
  let target: Server;
  let exporter: RunningExporter;
  let prometheus: ChildProcess;
  let prometheusUrl: string;
  let dir: string;
  const received: Array<{ url: string; authentication?: string; body: string }> = [];

  beforeAll(async () => {
    target = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk));
      request.on('end', () => {
        received.push({ url: request.url ?? '', authentication: request.headers.authentication as string | undefined, body });
        response.end('ok');
      });
    }).listen(0, '127.0.0.1');
    await once(target, 'listening');
    exporter = await startExporter('ours', `modules:\n${seedModulesYaml({ authentication: 'Bearer e2e-token', acceptLanguage: 'en-US', postBody: '{"from":"prometheus"}' })}`);
    const targetBase = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const exporterAddress = exporter.baseUrl.replace('http://', '');
    const job = (module: string, path: string) => `  - job_name: blackbox-exporter-${module}
    scrape_interval: 1s
    scrape_timeout: 1s
    metrics_path: /probe
    params:
      module: [${module}]
    static_configs:
      - targets: ['${targetBase}${path}']
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - source_labels: [__param_target]
        target_label: instance
      - target_label: __address__
        replacement: ${exporterAddress}
`;
    dir = mkdtempSync(join(tmpdir(), 'probekit-prometheus-'));
    writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\nscrape_configs:\n${job('http_2xx', '/get')}${job('http_2xx_with_header', '/header')}${job('http_post_2xx', '/post')}`);
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  }, 60_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      await once(prometheus, 'exit');
    }
    await exporter?.stop();
    target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function query(expression: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`).catch(() => undefined);
    if (!response?.ok) return [];
    return ((await response.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }).data.result;
  }

  it('records probe_success 1 for each documented module under the target instance', async () => {
    let results: Awaited<ReturnType<typeof query>> = [];
    for (let tries = 0; tries < 60 && results.length < 3; tries += 1) {
      results = await query('probe_success == 1');
      if (results.length < 3) await new Promise((done) => setTimeout(done, 500));
    }
    const instances = results.map((result) => `${result.metric.job} ${result.metric.instance}`).sort();
    const base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    expect(instances).toEqual([`blackbox-exporter-http_2xx ${base}/get`, `blackbox-exporter-http_2xx_with_header ${base}/header`, `blackbox-exporter-http_post_2xx ${base}/post`]);
    // What the modules sent reached the targets: the header and the POST body.
    expect(received.find((request) => request.url === '/header')?.authentication).toBe('Bearer e2e-token');
    expect(received.find((request) => request.url === '/post')?.body).toBe('{"from":"prometheus"}');
    expect((await query('probe_http_status_code')).every((result) => result.value[1] === '200')).toBe(true);
  }, 60_000);
});
