/**
 * Upstream 0.28's web and reload flags: --web.external-url and --web.route-prefix, --web.systemd-socket
 * (a listening socket passed to a child process as systemd passes it), --config.enable-auto-reload with
 * --config.auto-reload-interval, --log.format and --log.prober, as the exporter's command line reads them.
 */
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../src/main';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { externalUrl, routePrefixOf, systemdListenFd } from '../../src/server/web-flags';
import { freePort } from '../../loopback/reference-exporter';
import { startExporter as start, stopExporter as stop, waitFor } from '../support/exporter-process';

const dir = mkdtempSync(join(tmpdir(), 'web-flags-'));

const config = (module: string): string => `modules:\n  ${module}:\n    prober: tcp\n`;

describe('flags', () => {
  it('reads the 0.28 flags with their defaults', () => {
    expect(parseFlags([])).toMatchObject({ logFormat: 'logfmt', logProber: 'info', systemdSocket: false, autoReload: false, autoReloadIntervalSeconds: 30 });
    expect(
      parseFlags([
        '--log.format=json',
        '--log.prober=debug',
        '--web.external-url=http://bb.example:80/x',
        '--web.route-prefix',
        '/y',
        '--web.systemd-socket',
        '--config.enable-auto-reload',
        '--config.auto-reload-interval=5',
      ]),
    ).toMatchObject({ logFormat: 'json', logProber: 'debug', externalUrl: 'http://bb.example:80/x', routePrefix: '/y', systemdSocket: true, autoReload: true, autoReloadIntervalSeconds: 5 });
    // kingpin's negated form of a boolean flag.
    expect(parseFlags(['--config.enable-auto-reload', '--no-config.enable-auto-reload', '--no-web.systemd-socket'])).toMatchObject({ autoReload: false, systemdSocket: false });
    expect(() => parseFlags(['--no-log.level'])).toThrow('unknown flag --no-log.level');
    expect(() => parseFlags(['--log.format=text'])).toThrow('--log.format must be one of logfmt, json, not text');
    expect(() => parseFlags(['--log.prober=trace'])).toThrow('--log.prober must be one of debug, info, warn, error, not trace');
    expect(() => parseFlags(['--config.auto-reload-interval=1m'])).toThrow('--config.auto-reload-interval must be a whole number of seconds above 0, not 1m');
  });

  it('derives the external URL and the route prefix as upstream does', () => {
    expect(externalUrl(undefined, 9115).href).toBe(`http://${hostname()}:9115/`);
    expect(externalUrl('https://proxy.example/blackbox///', 9115).href).toBe('https://proxy.example/blackbox');
    expect(() => externalUrl(undefined, undefined)).toThrow(/pass --web.external-url/);
    expect(() => externalUrl('"http://x/"', 9115)).toThrow(/quotes/);
    expect(routePrefixOf(undefined, new URL('https://proxy.example/blackbox'))).toBe('/blackbox/');
    expect(routePrefixOf('//inner//', new URL('https://proxy.example/blackbox'))).toBe('/inner/');
    expect(routePrefixOf(undefined, new URL('http://h:9115/'))).toBe('/');
  });

  it('takes the systemd socket only when LISTEN_PID names this process', () => {
    expect(systemdListenFd({ LISTEN_PID: '42', LISTEN_FDS: '1' }, 42)).toBe(3);
    expect(() => systemdListenFd({ LISTEN_PID: '41', LISTEN_FDS: '1' }, 42)).toThrow(/systemd passed no socket/);
    expect(() => systemdListenFd({}, 42)).toThrow(/systemd passed no socket/);
  });
});

describe('route prefix', () => {
  let exporter: Exporter;
  let base: string;

  beforeAll(async () => {
    const file = join(dir, 'prefix.yml');
    writeFileSync(file, config('tcp_connect'));
    exporter = new Exporter({
      configFile: file,
      timeoutOffsetSeconds: 0.5,
      historyLimit: 3,
      log: new Logger('error', () => undefined),
      routePrefix: '/blackbox/',
      externalUrl: 'https://proxy.example/blackbox',
    });
    await exporter.reload();
    base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
  });

  afterAll(() => exporter.close());

  it('serves every endpoint under the prefix, redirects / to the external URL, and nothing else', async () => {
    expect((await fetch(`${base}/blackbox/-/healthy`)).status).toBe(200);
    expect(await (await fetch(`${base}/blackbox/config`)).text()).toContain('tcp_connect:');
    expect((await fetch(`${base}/blackbox/metrics`)).status).toBe(200);
    expect(await (await fetch(`${base}/blackbox/`)).text()).toContain('<h1>probekit exporter</h1>');
    const probe = await fetch(`${base}/blackbox/probe?module=tcp_connect&target=127.0.0.1:1`);
    expect(await probe.text()).toContain('probe_success 0');
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('https://proxy.example/blackbox');
    expect((await fetch(`${base}/-/healthy`)).status).toBe(404);
    expect((await fetch(`${base}/probe?module=tcp_connect&target=127.0.0.1:1`)).status).toBe(404);
  });
});

describe('command line', () => {
  it('serves under the path of --web.external-url, logging JSON', async () => {
    const file = join(dir, 'external.yml');
    writeFileSync(file, config('tcp_connect'));
    const port = await freePort();
    const started = start([`--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--web.external-url=http://bb.example:9115/bb/', '--log.format=json']);
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/bb/-/healthy`)).ok, 'the exporter under /bb/');
      expect((await fetch(`http://127.0.0.1:${port}/-/healthy`)).status).toBe(404);
      const first = JSON.parse(started.stderr().split('\n')[0]) as Record<string, unknown>;
      expect(first).toMatchObject({ level: expect.any(String), msg: expect.any(String), time: expect.any(String) });
    } finally {
      await stop(started);
    }
  });

  it('serves on the listening socket systemd passes as descriptor 3', async () => {
    const file = join(dir, 'systemd.yml');
    writeFileSync(file, config('tcp_connect'));
    const socket: Server = createServer();
    await new Promise<void>((resolve) => socket.listen(0, '127.0.0.1', resolve));
    const port = (socket.address() as AddressInfo).port;
    const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
    const started = start([`--config.file=${file}`, '--web.systemd-socket', '--web.external-url=http://bb.example:9115/'], { fd, asSystemdService: true });
    // The child holds its own copy of the socket; this process stops accepting on it.
    socket.close();
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/-/healthy`)).ok, 'the exporter on the passed socket');
      expect(started.stderr()).toContain('Listening on the socket systemd passed');
    } finally {
      await stop(started);
    }
  });

  it('refuses --web.systemd-socket without a passed socket, and without --web.external-url', async () => {
    const file = join(dir, 'systemd-missing.yml');
    writeFileSync(file, config('tcp_connect'));
    const noSocket = start([`--config.file=${file}`, '--web.systemd-socket', '--web.external-url=http://bb.example:9115/']);
    expect((await once(noSocket.child, 'exit'))[0]).toBe(1);
    expect(noSocket.stderr()).toContain('systemd passed no socket');
    const noUrl = start([`--config.file=${file}`, '--web.systemd-socket']);
    expect((await once(noUrl.child, 'exit'))[0]).toBe(1);
    expect(noUrl.stderr()).toContain('pass --web.external-url');
  });

  it('reloads a changed config file by itself with --config.enable-auto-reload, and only when it changed', async () => {
    const file = join(dir, 'auto.yml');
    writeFileSync(file, config('first'));
    const port = await freePort();
    const started = start([`--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--config.enable-auto-reload', '--config.auto-reload-interval=1']);
    const configText = async (): Promise<string> => (await fetch(`http://127.0.0.1:${port}/config`)).text();
    try {
      await waitFor(async () => (await configText()).includes('first:'), 'the first config');
      writeFileSync(file, config('second'));
      await waitFor(async () => (await configText()).includes('second:'), 'the changed config');
      // Two more ticks on an unchanged file load nothing.
      await new Promise((done) => setTimeout(done, 2500));
      expect(started.stderr().match(/msg="Loaded config file"/g)).toHaveLength(2);
    } finally {
      await stop(started);
    }
  });

  it('waits out an auto-reload interval longer than a Node timer can hold, instead of reloading at once', async () => {
    const file = join(dir, 'auto-long.yml');
    writeFileSync(file, config('first'));
    const port = await freePort();
    // 3,000,000 s is past 2^31 ms, which a bare Node timer would run after 1 ms.
    const started = start([`--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--config.enable-auto-reload', '--config.auto-reload-interval=3000000']);
    const configText = async (): Promise<string> => (await fetch(`http://127.0.0.1:${port}/config`)).text();
    try {
      await waitFor(async () => (await configText()).includes('first:'), 'the first config');
      writeFileSync(file, config('second'));
      await new Promise((done) => setTimeout(done, 1500));
      expect(await configText()).toContain('first:');
    } finally {
      await stop(started);
    }
  });

  it('writes probes’ lines to the log from --log.prober on, below --log.level', async () => {
    const file = join(dir, 'prober-log.yml');
    writeFileSync(file, config('tcp_connect'));
    const port = await freePort();
    const started = start([`--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=error', '--log.prober=debug']);
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/-/healthy`)).ok, 'the exporter');
      await (await fetch(`http://127.0.0.1:${port}/probe?module=tcp_connect&target=127.0.0.1:1`)).text();
      expect(started.stderr()).toMatch(/level=debug msg="Beginning probe" module=tcp_connect target=127\.0\.0\.1:1/);
      expect(started.stderr()).not.toContain('msg=Listening');
    } finally {
      await stop(started);
    }
  });
});
