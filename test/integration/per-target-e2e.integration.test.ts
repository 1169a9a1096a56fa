/**
 * Per-target settings end to end: a job whose targets each need their own header (one of them from a secret), one
 * that answers 401 by design, one probed at an interval of its own, and labels per target. The spec is rendered to
 * our exporter's config (its compiled modules) and to the agent's scrape jobs and the Operator's Probes, which Debian's
 * Prometheus runs against a loopback server that answers 200 only to the header it expects on each path.
 */
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseSpec, readEnvSecret, type Spec } from '../../src/model';
import { renderExporterConfig, renderProbes, renderScrapeJobs } from '../../src/render';
import { describeWithBinaries } from '../support/integration';
import { eventually, PROMETHEUS, startPrometheus, type RunningPrometheus, type Sample } from '../support/prometheus';
import { operatorProbeScrapeConfig } from '../support/prometheus-operator';
import { startExporter, type RunningExporter } from '../../exporter/loopback/reference-exporter';

/** The header each path answers 200 to, and only to; /open answers 401 to everyone. */
const EXPECTED: Readonly<Record<string, string>> = { '/alpha': 'alpha-7f3', '/beta': 'beta-91c', '/secret': 'secret-e42', '/slow': 'slow-5d0' };

describeWithBinaries([PROMETHEUS])('per-target labels and settings, scraped by Prometheus through our exporter', () => {
  let dir: string;
  let server: Server;
  let exporter: RunningExporter;
  let prometheus: RunningPrometheus;
  let spec: Spec;
  let base: string;
  const seen = new Map<string, Set<string>>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-per-target-'));
    server = createServer((request, response) => {
      const path = request.url ?? '';
      const header = String(request.headers['x-probe'] ?? '');
      seen.set(path, (seen.get(path) ?? new Set()).add(header));
      response.writeHead(EXPECTED[path] !== undefined && header === EXPECTED[path] ? 200 : 401).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

    const env = { E2E_SECRET_HEADER: EXPECTED['/secret'] };
    spec = parseSpec(
      {
        modules: { http_2xx: { prober: 'http' } },
        jobs: [
          {
            name: 'web',
            module: 'http_2xx',
            scrapeInterval: '1s',
            scrapeTimeout: '1s',
            labels: { team: 'web' },
            targets: [
              { target: `${base}/alpha`, module: { http: { headers: { 'X-Probe': EXPECTED['/alpha'] } } }, labels: { team: 'alpha' } },
              { target: `${base}/beta`, module: { http: { headers: { 'X-Probe': EXPECTED['/beta'] } } } },
              { target: `${base}/secret`, module: { http: { headers: { 'X-Probe': { fromEnv: 'E2E_SECRET_HEADER' } } } }, labels: { owner: 'payments' } },
              { target: `${base}/open`, module: { http: { valid_status_codes: [401] } } },
              { target: `${base}/slow`, module: { http: { headers: { 'X-Probe': EXPECTED['/slow'] } } }, scrapeInterval: '2s' },
            ],
          },
        ],
      },
      { env },
    );
    const secretsDir = join(dir, 'secrets');
    mkdirSync(secretsDir);
    const { config, secretFiles } = renderExporterConfig(spec, secretsDir);
    for (const file of secretFiles) writeFileSync(file.path, readEnvSecret(file.ref as { fromEnv: string }, env)!, { mode: 0o600 });
    exporter = await startExporter('ours', stringify(config));
    const address = exporter.baseUrl.replace('http://', '');
    const probes = spec.jobs.flatMap((job) => renderProbes(job, spec.modules[job.module]!, address, { namespace: 'operator', labels: {} }));
    prometheus = await startPrometheus({ global: { scrape_interval: '1s' }, scrape_configs: [...renderScrapeJobs(spec, address), ...probes.map(operatorProbeScrapeConfig)] });
  }, 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await exporter?.stop();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** probe_success of every target, by who scraped it (the agent's jobs, or the Operator's Probes) and path. */
  async function outcomes(): Promise<Map<string, Sample>> {
    const samples = await prometheus.query('probe_success');
    return new Map(samples.map((sample) => [`${sample.metric.namespace === 'operator' ? 'probe' : 'agent'} ${sample.metric.instance.slice(base.length)}`, sample]));
  }

  it('every target succeeds with its own settings, under the job label, with its own labels and module, by the agent jobs and by the Probes', async () => {
    const paths = ['/alpha', '/beta', '/secret', '/open', '/slow'];
    const done = await eventually(40, async () => {
      const found = await outcomes();
      return paths.every((path) => found.get(`agent ${path}`)?.value[1] === '1' && found.get(`probe ${path}`)?.value[1] === '1');
    });
    const found = await outcomes();
    expect({ done, outcome: [...found].map(([key, sample]) => `${key} ${sample.value[1]}`).sort(), log: done ? '' : exporter.log() + prometheus.log() }).toEqual({
      done: true,
      outcome: paths.flatMap((path) => [`agent ${path} 1`, `probe ${path} 1`]).sort(),
      log: '',
    });
    const modules = Object.fromEntries(spec.jobs[0].targets.map((target) => [target.target.slice(base.length), target.module]));
    for (const who of ['agent', 'probe']) {
      const labels = (path: string): Record<string, string> => found.get(`${who} ${path}`)!.metric;
      expect(paths.map((path) => labels(path).job)).toEqual(paths.map(() => 'web'));
      expect(paths.map((path) => labels(path).module)).toEqual(paths.map((path) => modules[path]));
      expect(labels('/alpha')).toMatchObject({ team: 'alpha' });
      expect(labels('/beta')).toMatchObject({ team: 'web' });
      expect(labels('/secret')).toMatchObject({ team: 'web', owner: 'payments' });
      expect(labels('/beta').owner).toBeUndefined();
    }
    // Four headers, four modules; the 401 target a fifth; the slower target has its own job, labelled as the job.
    expect(new Set(Object.values(modules)).size).toBe(5);
    expect((await prometheus.activeTargets()).filter((target) => target.scrapePool === 'web@2s').map((target) => target.labels.job)).toEqual(['web']);
  }, 60_000);

  it('each target was sent its own header and no other', () => {
    expect(Object.fromEntries([...seen].map(([path, headers]) => [path, [...headers]]))).toEqual({
      '/alpha': [EXPECTED['/alpha']],
      '/beta': [EXPECTED['/beta']],
      '/secret': [EXPECTED['/secret']],
      '/open': [''],
      '/slow': [EXPECTED['/slow']],
    });
    expect(exporter.log()).not.toContain(EXPECTED['/secret']);
  });
});
