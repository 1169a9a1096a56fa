/**
 * The ICMP addon where the exporter runs: the bundle finds it in the folder layout the container image
 * has (native/build/Release beside the bundle), and without it icmp probes fail with a clear line while
 * the exporter keeps serving. The Dockerfile is checked against that layout (no container engine here).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { rawSocketsAllowed } from '../../support/icmp-privileges';
import { metricValue, parseMetrics } from '../../../loopback/metrics-text';
import { freePort } from '../../../loopback/reference-exporter';

const ROOT = resolve(__dirname, '../../../..');
const ADDON = join(ROOT, 'exporter/native/build/Release/icmp_socket.node');
const ADDON_UNDER_BUNDLE = 'native/build/Release/icmp_socket.node';

describe('the icmp addon in the image', () => {
  const dockerfile = readFileSync(join(ROOT, 'exporter/Dockerfile'), 'utf8');

  it('is built in the build stage and copied beside the bundle, where the bundle looks for it', () => {
    const [buildStage, runStage] = dockerfile.split(/^FROM /m).slice(1);
    expect(buildStage).toMatch(/apt-get install[^\n]* python3 make g\+\+/);
    // The addon is compiled by the exporter's build, after its sources are copied in; no install script runs.
    expect(buildStage).toMatch(/RUN npm ci [^\n]*--ignore-scripts/);
    expect(buildStage.indexOf('COPY exporter/ exporter/')).toBeGreaterThan(-1);
    expect(buildStage.indexOf('COPY exporter/ exporter/')).toBeLessThan(buildStage.indexOf('build:addon'));
    const copies = [...runStage.matchAll(/^COPY --from=build (\S+) (\S+)$/gm)].map(([, from, to]) => ({ from, to }));
    const bundle = copies.find((copy) => copy.from.endsWith('/probekit-exporter.js'));
    const addon = copies.find((copy) => copy.from.endsWith('/icmp_socket.node'));
    expect(addon?.from).toBe('/src/exporter/native/build/Release/icmp_socket.node');
    expect(addon?.to).toBe(posix.join(posix.dirname(bundle?.to ?? ''), ADDON_UNDER_BUNDLE));
    // A host-built addon must not replace the one compiled in the image.
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')).toContain('exporter/native/build');
  });

  describe('bundle with and without the addon', () => {
    let dir: string;
    let bundle: string;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'probekit-icmp-bundle-'));
      bundle = join(dir, 'probekit-exporter.js');
      execFileSync(process.execPath, [join(ROOT, 'exporter/build.mjs'), '--outfile', bundle], { stdio: 'pipe' });
      writeFileSync(join(dir, 'blackbox.yml'), 'modules:\n  icmp:\n    prober: icmp\n    icmp:\n      preferred_ip_protocol: ip4\n');
    }, 60_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function probeIcmpThroughBundle(): Promise<{ text: string; log: string }> {
      const port = await freePort();
      const child: ChildProcess = spawn(process.execPath, [bundle, `--web.listen-address=127.0.0.1:${port}`, '--log.level=debug'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let log = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        log += chunk;
      });
      try {
        let text = '';
        for (let tries = 0; tries < 100 && !text; tries += 1) {
          text = await fetch(`http://127.0.0.1:${port}/probe?module=icmp&target=127.0.0.1&debug=true`).then(
            (response) => response.text(),
            () => '',
          );
          if (!text) await new Promise((done) => setTimeout(done, 100));
        }
        const healthy = await fetch(`http://127.0.0.1:${port}/-/healthy`);
        expect(healthy.ok).toBe(true);
        return { text, log };
      } finally {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }

    it('without the addon, the exporter says so once at start naming where it belongs, icmp probes fail saying so, and the exporter keeps serving', async () => {
      const { text, log } = await probeIcmpThroughBundle();
      const expected = `the ICMP addon cannot be loaded from ${join(dir, 'icmp_socket.node')}: no such file`;
      expect(text).toContain(expected);
      // In the probe's log the addon comes first, before any resolving or socket: the cause, not a symptom.
      const probeLines = text.split('\n').filter((line) => /level=(debug|info|warn|error)/.test(line) && !line.includes('msg="Beginning probe"'));
      expect(probeLines[0]).toMatch('msg="The ICMP addon is missing; icmp probes cannot run"');
      expect(probeLines[0]).toContain(`err="${expected}`);
      const startLines = log.split('\n').filter((line) => line.includes('msg="The ICMP addon cannot be loaded; icmp probes will fail"'));
      expect(startLines).toEqual([expect.stringContaining(`level=warn msg="The ICMP addon cannot be loaded; icmp probes will fail" path=${join(dir, 'icmp_socket.node')} err="no such file`)]);
    });

    (rawSocketsAllowed() ? it : it.skip)('with the addon beside it, as in the image, icmp probes work', async () => {
      mkdirSync(dirname(join(dir, ADDON_UNDER_BUNDLE)), { recursive: true });
      copyFileSync(ADDON, join(dir, ADDON_UNDER_BUNDLE));
      const { text } = await probeIcmpThroughBundle();
      const metrics = text.slice(text.indexOf('Metrics that would have been returned'));
      expect(metricValue(parseMetrics(metrics), 'probe_success')).toBe(1);
      expect(metricValue(parseMetrics(metrics), 'probe_icmp_reply_hop_limit')).toBe(64);
    });
  });
});
