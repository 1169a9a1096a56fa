/**
 * Both container images, built from this checkout and run: exporter/Dockerfile (the exporter) and the root
 * Dockerfile (the `probekit` command, serving the assistant's skills). packaging/images/build.sh builds them with
 * podman on a stand-in for their base image (no image registry is reachable here); test/support/images.ts runs
 * their filesystems read-only, as the user and with the capabilities the manifests give, since podman's runtime
 * cannot start containers in this sandbox. The construct that deploys each image says how it is run and probed:
 * its liveness and readiness probes are asked of the running image (OCI images carry no HEALTHCHECK).
 *
 * Building takes minutes: PROBEKIT_SKIP_IMAGES=1 skips this file (visibly); in CI (PROBEKIT_REQUIRE_INTEGRATION=1)
 * that switch, or a missing podman or mmdebstrap, is a failure.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { AssistantSkills, BlackboxExporter } from '../../src/cdk8s';
import { presets } from '../../src/model';
import { freePort } from '../../exporter/loopback/reference-exporter';
import { metricValue, parseMetrics } from '../../exporter/loopback/metrics-text';
import { integrationRequired, requireBinary } from '../support/integration';
import { find } from '../support/manifests';
import { tempDirPerTest } from '../support/temp-dir';
import { imageConfig, imageSize, imageUser, mountImage, replaceArgument, runInImage, unmountImage, type ImageConfig, type RunOptions } from '../support/images';

const ROOT = resolve(__dirname, '../..');
const BUILD = join(ROOT, 'packaging/images/build.sh');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// Names of their own, so that the test never replaces an image built for a release.
const REGISTRY = 'localhost/probekit-test';
const EXPORTER_IMAGE = `${REGISTRY}/exporter:${VERSION}`;
const PROBEKIT_IMAGE = `${REGISTRY}/probekit:${VERSION}`;
const MIB = 1024 * 1024;
/** A run of an image: starting Node from a mounted image and stopping it take seconds, more on a loaded machine. */
const RUN_TIMEOUT = 120_000;
const run = promisify(execFile);

function imagesTested(): boolean {
  if (process.env.PROBEKIT_SKIP_IMAGES === '1') {
    if (integrationRequired) throw new Error('PROBEKIT_SKIP_IMAGES=1 and PROBEKIT_REQUIRE_INTEGRATION=1: CI builds and runs the images; unset PROBEKIT_SKIP_IMAGES');
    process.stderr.write('skipping the images (PROBEKIT_SKIP_IMAGES=1)\n');
    return false;
  }
  const how = 'apt-get install podman mmdebstrap (see .ci/run)';
  return ['/usr/bin/podman', '/usr/bin/mmdebstrap', '/usr/bin/setpriv', '/usr/bin/unshare'].every((path) => requireBinary(path, how));
}

/** The first Deployment's first container and its pod, as a chart synthesizes them. */
function deployed(chart: Chart): { container: Record<string, any>; pod: Record<string, any>; manifests: Array<Record<string, any>> } {
  const manifests = Testing.synth(chart);
  const pod = find(manifests, 'Deployment').spec.template.spec;
  return { container: pod.containers[0], pod, manifests };
}

/** The user a pod's securityContext runs its container as. */
function podUser(container: Record<string, any>, pod: Record<string, any>): { uid: number; gid: number } {
  const uid = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
  const gid = container.securityContext?.runAsGroup ?? pod.securityContext?.runAsGroup;
  expect(typeof uid).toBe('number');
  return { uid, gid: gid ?? uid };
}

interface Running {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  /** How it ended, when it ends by itself. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, as a runtime stops a container, and how it ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(root: string, options: RunOptions): Running {
  const child = runInImage(root, options);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout!.resume();
  const exit = (once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>).then(([code, signal]) => ({ code, signal }));
  return {
    child,
    stderr: () => stderr,
    exit,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exit;
    },
  };
}

/** GETs `url` until it answers (the process is starting), up to 20 s; the last answer. */
async function answered(url: string, running: Running): Promise<Response> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await fetch(url);
    } catch (error) {
      if (tries >= 200 || running.child.exitCode !== null) throw new Error(`${url} never answered: ${(error as Error).message}\n${running.stderr()}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

/** Processes started by `pid` (a container's main process has none when it is the only one). */
function childProcesses(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
}

const describeImages = imagesTested() ? describe : describe.skip;

describeImages('the container images', () => {
  const dir = tempDirPerTest('probekit-images-');
  let sizes: Record<string, number> = {};
  let target: Server;

  beforeAll(async () => {
    // .ci/run builds them with this very script while it installs and lints (PROBEKIT_IMAGES_BUILT=1), to save time.
    if (process.env.PROBEKIT_IMAGES_BUILT !== '1') process.stderr.write((await run(BUILD, ['--registry', REGISTRY], { maxBuffer: 16 * MIB })).stderr);
    sizes = Object.fromEntries([EXPORTER_IMAGE, PROBEKIT_IMAGE].map((image) => [image, imageSize(image)]));
    target = createServer((_request, response) => response.end('ok')).listen(0, '127.0.0.1');
    await once(target, 'listening');
  }, 900_000);

  afterAll(() => target?.close());

  it('are built by scripts shellcheck accepts', async () => {
    await expect(run('shellcheck', [BUILD, join(ROOT, 'packaging/images/runtime-root.sh')])).resolves.toBeDefined();
  });

  describe('the exporter image', () => {
    let root: string;
    let config: ImageConfig;
    beforeAll(() => {
      root = mountImage(EXPORTER_IMAGE);
      config = imageConfig(EXPORTER_IMAGE);
    });
    afterAll(() => root && unmountImage(EXPORTER_IMAGE));

    const targetUrl = () => `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;

    it(
      'runs as its unprivileged user, with the default config: healthy, and probing an HTTP target',
      async () => {
        expect(imageUser(root, config.user).uid).not.toBe(0);
        const port = await freePort();
        const running = start(root, { config, argv: [...config.entrypoint, ...replaceArgument(config.cmd, '--web.listen-address=', `--web.listen-address=127.0.0.1:${port}`)] });
        try {
          expect((await answered(`http://127.0.0.1:${port}/-/healthy`, running)).status).toBe(200);
          const probe = await fetch(`http://127.0.0.1:${port}/probe?module=http_2xx&target=${encodeURIComponent(targetUrl())}`);
          expect(metricValue(parseMetrics(await probe.text()), 'probe_success')).toBe(1);
        } finally {
          expect(await running.stop()).toEqual({ code: 0, signal: null });
        }
      },
      RUN_TIMEOUT,
    );

    it(
      'runs as the Deployment runs it: its user, capabilities, config and probes; pings with the ICMP addon; one process, read-only, stopped by SIGTERM',
      async () => {
        const chart = new Chart(Testing.app(), 'probes');
        new BlackboxExporter(chart, 'exporter', { modules: { http_2xx: presets.http2xx(), icmp: { prober: 'icmp', icmp: { preferred_ip_protocol: 'ip4' } } } });
        const { container, pod, manifests } = deployed(chart);
        const configMap = find(manifests, 'ConfigMap');
        const configFile = join(dir(), 'blackbox.yml');
        writeFileSync(configFile, configMap.data['blackbox.yml']);
        // The image's command names its config file; the ConfigMap's file goes over it, as README's docker run mounts one.
        const imageConfigFile = config.cmd.find((word) => word.startsWith('--config.file='))!.slice('--config.file='.length);
        expect(container.args).toContain(`--web.listen-address=${config.cmd.find((word) => word.startsWith('--web.listen-address='))!.slice('--web.listen-address='.length)}`);
        const port = await freePort();
        const running = start(root, {
          config,
          argv: [...config.entrypoint, ...replaceArgument(config.cmd, '--web.listen-address=', `--web.listen-address=127.0.0.1:${port}`)],
          user: podUser(container, pod),
          capabilities: container.securityContext.capabilities.add,
          files: { [imageConfigFile]: configFile },
        });
        try {
          for (const probe of [container.livenessProbe, container.readinessProbe]) {
            expect(probe.httpGet.port).toBe(
              Number(
                config.cmd
                  .find((word) => word.startsWith('--web.listen-address='))!
                  .split(':')
                  .at(-1),
              ),
            );
            expect((await answered(`http://127.0.0.1:${port}${probe.httpGet.path}`, running)).status).toBe(200);
          }
          const icmp = await (await fetch(`http://127.0.0.1:${port}/probe?module=icmp&target=127.0.0.1&debug=true`)).text();
          expect(icmp).not.toContain('ICMP addon cannot be loaded');
          expect(icmp).toMatch(/probe_success 1\b/);
          const http = await fetch(`http://127.0.0.1:${port}/probe?module=http_2xx&target=${encodeURIComponent(targetUrl())}`);
          expect(metricValue(parseMetrics(await http.text()), 'probe_success')).toBe(1);
          expect(childProcesses(running.child.pid!)).toEqual([]);
          expect(() => writeFileSync(join(root, 'written-at-run-time'), '')).toThrow(/read-only/);
        } finally {
          expect(await running.stop()).toEqual({ code: 0, signal: null });
        }
        expect(running.stderr()).toContain('Shutting down');
      },
      RUN_TIMEOUT,
    );

    it(`is at most 250 MiB`, () => {
      expect(sizes[EXPORTER_IMAGE]! / MIB).toBeLessThan(250);
    });
  });

  describe('the probekit image', () => {
    let root: string;
    let config: ImageConfig;
    beforeAll(() => {
      root = mountImage(PROBEKIT_IMAGE);
      config = imageConfig(PROBEKIT_IMAGE);
    });
    afterAll(() => root && unmountImage(PROBEKIT_IMAGE));

    it(
      'prints its version as its unprivileged user',
      async () => {
        expect(imageUser(root, config.user).uid).not.toBe(0);
        const running = start(root, { config, argv: [...config.entrypoint, '--version'] });
        let stdout = '';
        running.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        expect(await running.exit).toEqual({ code: 0, signal: null });
        expect(stdout.trim()).toBe(`probekit ${VERSION}`);
      },
      RUN_TIMEOUT,
    );

    it(
      'serves the skills by default as AssistantSkills deploys it: its user, environment and probes; stopped by SIGTERM',
      async () => {
        const chart = new Chart(Testing.app(), 'assistant');
        new AssistantSkills(chart, 'skills', { mcpToken: { name: 'probekit-mcp-token', key: 'token' }, clients: [kplus.Pods.select(chart, 'assistant', { labels: { app: 'assistant' } })] });
        const { container, pod } = deployed(chart);
        expect([...config.entrypoint, ...config.cmd]).toEqual([...container.command, ...container.args]);
        // The Secrets' values, as the kubelet would set them from secretKeyRef; the search engine is reached on first use only.
        const env = Object.fromEntries((container.env as { name: string }[]).map(({ name }) => [name, name.endsWith('_URL') ? 'http://127.0.0.1:9' : `value-of-${name}`]));
        const port = await freePort();
        const probePort = container.readinessProbe.httpGet.port;
        expect(container.args).toContain(String(probePort));
        const argv = [...config.entrypoint, ...config.cmd.map((word) => (word === String(probePort) ? String(port) : word))];
        const running = start(root, { config, argv, env, user: podUser(container, pod) });
        try {
          for (const probe of [container.livenessProbe, container.readinessProbe]) {
            expect((await answered(`http://127.0.0.1:${port}${probe.httpGet.path}`, running)).status).toBe(200);
          }
          expect((await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST' })).status).toBe(401);
          expect(childProcesses(running.child.pid!)).toEqual([]);
        } finally {
          expect(await running.stop()).toEqual({ code: 0, signal: null });
        }
      },
      RUN_TIMEOUT,
    );

    it(`is at most 250 MiB`, () => {
      expect(sizes[PROBEKIT_IMAGE]! / MIB).toBeLessThan(250);
    });
  });
});
