/** `/sd/<job>` with --sd.targets-dir: Prometheus' HTTP SD format, ETag, reload with the config, the web config's password. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import bcrypt from 'bcryptjs';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';

const CONFIG = 'modules:\n  http_2xx:\n    prober: http\n';

let dir: string;
let targetsDir: string;
let exporter: Exporter;
let base: string;
const logLines: string[] = [];

const webGroup = { targets: ['https://a.example', 'https://b.example'], labels: { module: 'http_2xx', team: 'web' } };
const dbGroup = { targets: ['db.example:5432'], labels: { __param_module: 'tcp_connect', module: 'tcp_connect' } };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-sd-'));
  targetsDir = join(dir, 'targets');
  // As a Deployment mounts probekit's ConfigMaps: one sub-folder each, files gzipped; a plain file beside them.
  mkdirSync(join(targetsDir, '0'), { recursive: true });
  mkdirSync(join(targetsDir, '1'));
  writeFileSync(join(targetsDir, '0', 'targets.json.gz'), gzipSync(JSON.stringify({ web: [webGroup] })));
  writeFileSync(join(targetsDir, '1', 'targets.json.gz'), gzipSync(JSON.stringify({ web: [dbGroup], 'job with spaces/and slash': [webGroup] })));
  writeFileSync(join(targetsDir, 'notes.txt'), 'not a target file');
  writeFileSync(join(dir, 'blackbox.yml'), CONFIG);
  exporter = new Exporter({
    configFile: join(dir, 'blackbox.yml'),
    timeoutOffsetSeconds: 0.5,
    historyLimit: 3,
    sdTargetsDir: targetsDir,
    log: new Logger('info', (line) => logLines.push(line)),
  });
  await exporter.reload();
  base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
});

afterAll(() => exporter.close());

/** A request as Prometheus' client makes it (gzip taken), or without Accept-Encoding. */
async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: string }> {
  const response = await fetch(`${base}${path}`, { headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

function getIdentity(path: string): Promise<{ status: number; encoding?: string; body: string }> {
  return new Promise((resolve, reject) => {
    request(`${base}${path}`, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks).toString() }));
    })
      .on('error', reject)
      .end();
  });
}

const sdMetric = async (name: string, labels: Record<string, string>): Promise<number | undefined> => metricValue(parseMetrics((await get('/metrics')).body), name, labels);

describe('/sd/<job>', () => {
  it("serves a job's groups from every file, in the files' path order, as Prometheus' HTTP SD JSON", async () => {
    const reply = await get('/sd/web');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.headers.get('content-encoding')).toBe('gzip');
    expect(JSON.parse(reply.body)).toEqual([webGroup, dbGroup]);
    expect(await sdMetric('probekit_exporter_sd_targets', { job: 'web' })).toBe(3);
  });

  it('unzips for a client that takes no gzip, and finds a percent-encoded job name', async () => {
    const reply = await getIdentity(`/sd/${encodeURIComponent('job with spaces/and slash')}`);
    expect(reply).toEqual({ status: 200, encoding: undefined, body: JSON.stringify([webGroup]) });
  });

  it('answers 304 to If-None-Match with the current ETag, and counts the answers by code', async () => {
    const first = await get('/sd/web');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const before = (await sdMetric('probekit_exporter_sd_requests_total', { code: '304' })) ?? 0;
    const again = await get('/sd/web', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(await sdMetric('probekit_exporter_sd_requests_total', { code: '304' })).toBe(before + 1);
    expect((await get('/sd/web', { 'If-None-Match': '"another"' })).status).toBe(200);
  });

  it('404 for a job the files do not have, 405 for a POST', async () => {
    const missing = await get('/sd/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatch(/No job "nope" in the target files/);
    expect((await fetch(`${base}/sd/web`, { method: 'POST' })).status).toBe(405);
    expect(await sdMetric('probekit_exporter_sd_requests_total', { code: '404' })).toBeGreaterThanOrEqual(1);
  });

  it('reloads the files with the config: new groups and ETag; a bad file keeps the previous ones, naming the file and field', async () => {
    const oldTag = (await get('/sd/web')).headers.get('etag')!;
    writeFileSync(join(targetsDir, '1', 'targets.json.gz'), gzipSync(JSON.stringify({ web: [{ targets: ['c.example'], labels: {} }] })));
    await exporter.reload();
    const reloaded = await get('/sd/web', { 'If-None-Match': oldTag });
    expect(reloaded.status).toBe(200);
    expect(JSON.parse(reloaded.body)).toEqual([webGroup, { targets: ['c.example'], labels: {} }]);
    expect((await get('/sd/job%20with%20spaces%2Fand%20slash')).status).toBe(404);
    expect(await sdMetric('probekit_exporter_sd_targets', { job: 'job with spaces/and slash' })).toBeUndefined();

    writeFileSync(join(targetsDir, 'broken.json'), JSON.stringify({ web: [{ targets: ['x', 7], labels: { 'bad-name': 'v' } }] }));
    await expect(exporter.reload()).rejects.toThrow(/broken\.json: web\[0\]\.targets: must be a list of targets, each a string/);
    expect(await sdMetric('blackbox_exporter_config_last_reload_successful', {})).toBe(0);
    expect(JSON.parse((await get('/sd/web')).body)).toEqual([webGroup, { targets: ['c.example'], labels: {} }]);
    writeFileSync(join(targetsDir, 'broken.json'), JSON.stringify({ web: [{ targets: ['x'], labels: { 'bad-name': 'v' } }] }));
    await expect(exporter.reload()).rejects.toThrow(/web\[0\]\.labels\.bad-name: is not a Prometheus label name/);
    writeFileSync(join(targetsDir, 'broken.json'), '{}');
    await exporter.reload();
    expect(await sdMetric('blackbox_exporter_config_last_reload_successful', {})).toBe(1);
  });
});

describe('/sd/ behind the web config', () => {
  it('asks for the password as every other endpoint does', async () => {
    const webFile = join(dir, 'web.yml');
    writeFileSync(webFile, `basic_auth_users:\n  agent: ${bcrypt.hashSync('agent password', 4)}\n`);
    const guarded = new Exporter({
      configFile: join(dir, 'blackbox.yml'),
      timeoutOffsetSeconds: 0.5,
      historyLimit: 3,
      sdTargetsDir: targetsDir,
      webConfigFile: webFile,
      log: new Logger('error', () => undefined),
    });
    await guarded.reload();
    const url = `http://127.0.0.1:${await guarded.listen('127.0.0.1', 0)}/sd/web`;
    try {
      expect((await fetch(url)).status).toBe(401);
      const answer = await fetch(url, { headers: { Authorization: `Basic ${Buffer.from('agent:agent password').toString('base64')}` } });
      expect(answer.status).toBe(200);
      expect(JSON.parse(await answer.text())).toHaveLength(2);
    } finally {
      await guarded.close();
    }
  });

  it('without --sd.targets-dir, /sd/ answers 404 saying the flag', async () => {
    const plain = new Exporter({ configFile: join(dir, 'blackbox.yml'), timeoutOffsetSeconds: 0.5, historyLimit: 3, log: new Logger('error', () => undefined) });
    await plain.reload();
    const port = await plain.listen('127.0.0.1', 0);
    try {
      const reply = await fetch(`http://127.0.0.1:${port}/sd/web`);
      expect(reply.status).toBe(404);
      expect(await reply.text()).toMatch(/--sd\.targets-dir/);
    } finally {
      await plain.close();
    }
  });
});
