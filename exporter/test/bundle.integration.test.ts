/**
 * The bundle is what the bin, the system service and the container image run: it must work from a
 * directory with no node_modules, and carry only the exporter's own dependencies.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { metricValue, parseMetrics } from '../loopback/metrics-text';
import { freePort } from '../loopback/reference-exporter';
import { loadConfigFile } from '../src/config/load';
import { EXPORTER_PORT } from '../src/contract/endpoints';
import { usableCpus } from '../src/server/cpu-budget';

const BUILD_SCRIPT = resolve(__dirname, '../build.mjs');

describe('exporter bundle', () => {
  let dir: string;
  let bundle: string;
  let packages: string[];

  beforeAll(() => {
    const buildDir = mkdtempSync(join(tmpdir(), 'probekit-build-'));
    dir = mkdtempSync(join(tmpdir(), 'probekit-bundle-'));
    const built = join(buildDir, 'probekit-exporter.js');
    const meta = join(buildDir, 'meta.json');
    execFileSync(process.execPath, [BUILD_SCRIPT, '--outfile', built, '--metafile', meta], { stdio: 'pipe' });
    bundle = join(dir, 'probekit-exporter.js');
    copyFileSync(built, bundle);
    const inputs = Object.keys((JSON.parse(readFileSync(meta, 'utf8')) as { inputs: Record<string, unknown> }).inputs);
    packages = [...new Set(inputs.map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1]).filter((name): name is string => Boolean(name)))].sort();
    rmSync(buildDir, { recursive: true, force: true });
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('carries only the exporter dependencies', () => {
    expect(packages).toEqual(expect.arrayContaining(['prom-client', 'yaml', 'zod']));
    for (const name of packages) expect(name).not.toMatch(/cdk8s|pulumi|constructs|elastic|modelcontextprotocol/);
  });

  it('runs standalone from a directory without node_modules and probes, on a probe thread per CPU it may use by default', async () => {
    expect(execFileSync(process.execPath, [bundle, '--version'], { cwd: dir, encoding: 'utf8' })).toMatch(/^probekit-exporter, version/);
    writeFileSync(join(dir, 'blackbox.yml'), 'modules:\n  http_2xx:\n    prober: http\n    http:\n      preferred_ip_protocol: ip4\n');
    const target = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1');
    await once(target, 'listening');
    const port = await freePort();
    // Default --config.file is blackbox.yml in the working directory, as upstream.
    const child = spawn(process.execPath, [bundle, `--web.listen-address=127.0.0.1:${port}`], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      let text = '';
      for (let tries = 0; tries < 100 && !text; tries += 1) {
        text = await fetch(`http://127.0.0.1:${port}/probe?module=http_2xx&target=http://127.0.0.1:${(target.address() as AddressInfo).port}/`).then(
          (r) => r.text(),
          () => '',
        );
        if (!text) await new Promise((done) => setTimeout(done, 100));
      }
      expect(metricValue(parseMetrics(text), 'probe_success')).toBe(1);
      // --probe.workers=auto: this machine's CPUs and cgroup quota, as the sizing reads them (its own tests use fake cgroup files).
      const workers = usableCpus();
      expect(stderr).toContain(`msg="${workers > 1 ? 'Probes run in worker threads' : 'Probes run in the serving thread'}" probe_workers=${workers} `);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      target.close();
    }
  });
});

// The image built and run: test/package/images.integration.test.ts. Here, the facts it must agree with.
describe('exporter image definition', () => {
  const dockerfile = readFileSync(resolve(__dirname, '../Dockerfile'), 'utf8');

  it('builds on a pinned Node, runs from scratch as a numeric non-root user, exposes the exporter port, and leaves health to the orchestrator', () => {
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    // Pinned to a patch release; which one, test/image-node.integration.test.ts holds to the Node the tests run the bundle with.
    expect(bases).toEqual([expect.stringMatching(/^node:\d+\.\d+\.\d+-[a-z]+-slim$/), 'scratch']);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toContain(`EXPOSE ${EXPORTER_PORT}\n`);
    // An OCI image drops HEALTHCHECK; the Deployment's probes ask /-/healthy (and no second process runs for it).
    expect(dockerfile).not.toMatch(/^HEALTHCHECK/m);
    expect(dockerfile).toContain('/src/exporter/dist/probekit-exporter.js');
  });

  it('ships a default config that the exporter accepts', async () => {
    const config = await loadConfigFile(resolve(__dirname, '../blackbox.yml'));
    expect(Object.keys(config.modules)).toEqual(['http_2xx', 'http_post_2xx']);
  });
});
