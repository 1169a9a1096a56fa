/**
 * Config files that are not files. The config file, and every file a module names, may be a symlink to
 * /dev/zero, a FIFO nobody writes, a directory or a file past the cap: each is refused by what it is, at once,
 * with the previous config kept; probes naming such a file fail with that reason and leave the exporter's
 * file reads working; and SIGTERM stops the process after any of these reloads.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_FILE_BYTES } from '../../src/config/regular-file';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { freePort, waitHealthy } from '../../loopback/reference-exporter';
import { startExporter, waitFor } from '../support/exporter-process';

let dir: string;
let target: Server;
let targetUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-config-files-'));
  symlinkSync('/dev/zero', join(dir, 'zero'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  mkdirSync(join(dir, 'directory'));
  writeFileSync(join(dir, 'huge'), '');
  truncateSync(join(dir, 'huge'), MAX_FILE_BYTES + 1);
  writeFileSync(join(dir, 'body.txt'), 'hello');
  target = createServer((request, response) => request.resume().on('end', () => response.end('ok'))).listen(0, '127.0.0.1');
  await once(target, 'listening');
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
});

afterAll(() => {
  target.close();
  rmSync(dir, { recursive: true, force: true });
});

const MODULE = (section: string): string => `    prober: http\n    timeout: 3s\n    http:\n      preferred_ip_protocol: ip4\n      method: POST\n${section}`;

describe('files a module names', () => {
  it('fail the probe at once when not a regular file, and leave later probes working', async () => {
    const configFile = join(dir, 'modules.yml');
    writeFileSync(
      configFile,
      `modules:\n  fifo_token:\n${MODULE('      bearer_token_file: fifo\n')}  zero_body:\n${MODULE('      body_file: zero\n')}  directory_password:\n${MODULE(
        '      basic_auth: { username: u, password_file: directory }\n',
      )}  huge_ca:\n${MODULE('      tls_config: { ca_file: huge }\n')}  plain_body:\n${MODULE('      body_file: body.txt\n')}`,
    );
    const exporter = new Exporter({ configFile, timeoutOffsetSeconds: 0.5, historyLimit: 20, log: new Logger('error', () => undefined) });
    await exporter.reload();
    const base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
    const debug = (module: string, url = targetUrl): Promise<string> => fetch(`${base}/probe?module=${module}&debug=true&target=${encodeURIComponent(url)}`).then((response) => response.text());
    try {
      // More than Node's four pool threads: a FIFO opened for reading used to hold one each until a writer came.
      const fifo = await Promise.all(Array.from({ length: 6 }, () => debug('fifo_token')));
      for (const text of fifo) {
        expect(text).toMatch(/^probe_success 0$/m);
        expect(text).toMatch(/bearer_token_file: cannot read \S+fifo: it is a FIFO \(named pipe\), not a regular file/);
      }
      expect(await debug('zero_body')).toMatch(/body_file: cannot read \S+zero: it is a character device, not a regular file/);
      expect(await debug('directory_password')).toMatch(/basic_auth\.password_file: cannot read \S+directory: it is a directory, not a regular file/);
      // TLS files are read for an https target, before it connects.
      expect(await debug('huge_ca', targetUrl.replace('http:', 'https:'))).toMatch(/tls_config\.ca_file: cannot read \S+huge: it is larger than 64 MiB/);
      const plain = await debug('plain_body');
      expect(plain).toMatch(/^probe_success 1$/m);
    } finally {
      await exporter.close();
    }
  }, 60_000);
});

describe('a config file that is not a file', () => {
  it('is refused at each reload by what it is, the old config kept, and SIGTERM then stops the process', async () => {
    const configFile = join(dir, 'exporter.yml');
    writeFileSync(configFile, `modules:\n  web:\n    prober: http\n    http: { preferred_ip_protocol: ip4 }\n`);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const started = startExporter([`--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`]);
    const exited = once(started.child, 'exit');
    try {
      await waitHealthy(base, started.child, started.stderr);
      const cases: Array<[string, (path: string) => void, RegExp]> = [
        ['a symlink to /dev/zero', (path) => symlinkSync('/dev/zero', path), /it is a character device, not a regular file/],
        ['a FIFO', (path) => execFileSync('mkfifo', [path]), /it is a FIFO \(named pipe\), not a regular file/],
        ['a directory', (path) => mkdirSync(path), /it is a directory, not a regular file/],
        [
          'a file past the cap',
          (path) => {
            writeFileSync(path, '');
            truncateSync(path, MAX_FILE_BYTES + 1);
          },
          /it is larger than 64 MiB, the most the exporter reads/,
        ],
      ];
      for (const [index, [what, make, reason]] of cases.entries()) {
        rmSync(configFile, { recursive: true, force: true });
        make(configFile);
        started.child.kill('SIGHUP');
        // The exporter's own report: its log line for the refused reload, one per case, then (a line of its own,
        // written after it) the problem.
        const problem = new RegExp(`problem=".*exporter\\.yml: cannot read the config file: ${reason.source}`);
        await waitFor(async () => problem.test(started.stderr()), `the refusal of ${what}`);
        expect(started.stderr().split('Error reloading config; the previous config stays in use')).toHaveLength(index + 2);
        const metrics = parseMetrics(await (await fetch(`${base}/metrics`)).text());
        expect(metricValue(metrics, 'blackbox_exporter_config_last_reload_successful')).toBe(0);
        // /dev/zero used to be read until the memory ran out; the refusal reads nothing.
        expect(metricValue(metrics, 'process_resident_memory_bytes')).toBeLessThan(400 * 1024 * 1024);
        const probe = await (await fetch(`${base}/probe?module=web&target=${encodeURIComponent(targetUrl)}`)).text();
        expect(probe).toMatch(/^probe_success 1$/m);
      }
      started.child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (started.child.exitCode === null) started.child.kill('SIGKILL');
    }
  }, 90_000);
});
