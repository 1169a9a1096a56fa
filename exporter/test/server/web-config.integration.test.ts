/**
 * --web.config.file: a web config refused with the field and the fix; real TLS clients with right, wrong
 * and missing client certificates, right, wrong and missing basic auth; a reload that swaps users and one
 * that keeps the old file; and the same file given to the reference blackbox_exporter and to ours, each
 * client getting the same answer from both.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer as createTlsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { describeWithBinaries } from '../../../test/support/integration';
import { ConfigError } from '../../src/config/load';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { basicCredentials, parseWebConfig, WebGate } from '../../src/server/web-config';
import { FROM_SOURCE } from '../../loopback/from-source';
import { OUR_EXPORTER_MAIN, REFERENCE_EXPORTER, startExporter, type RunningExporter } from '../../loopback/reference-exporter';
import { makeTlsFixtures, OPENSSL, type TlsFixtures } from '../../loopback/tls-fixtures';

const CONFIG = 'modules:\n  http_2xx:\n    prober: http\n';
/** Cost 4, the least Go's bcrypt takes: the tests check many passwords. */
const HASH = bcrypt.hashSync('right password', 4);

function problemsOf(text: string): string {
  try {
    parseWebConfig(text, '/etc/web.yml');
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('a web config file refused at start', () => {
  it.each([
    ['an unknown field, with its line', 'tls_server_config:\n  cert_fil: a.crt\n', /\/etc\/web\.yml:2: tls_server_config\.cert_fil: unknown field; did you mean "cert_file"/],
    ['a certificate without its key', 'tls_server_config:\n  cert_file: a.crt\n', /tls_server_config\.key_file: is missing.*set key_file/],
    [
      'a client CA without a client auth policy',
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_ca_file: ca.crt\n',
      /tls_server_config\.client_auth_type: is NoClientCert while a client CA is set/,
    ],
    [
      'a client auth type that does not exist',
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  client_auth_type: Always\n',
      /web\.yml:4: tls_server_config\.client_auth_type: the text "Always" is not allowed; use one of NoClientCert, /,
    ],
    [
      'a TLS version upstream does not name',
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS1.2\n',
      /tls_server_config\.min_version: the text "TLS1.2" is not allowed; use one of TLS10, TLS11, TLS12, TLS13/,
    ],
    [
      'a cipher suite in OpenSSL spelling',
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  cipher_suites: [ECDHE-RSA-AES128-GCM-SHA256]\n',
      /tls_server_config\.cipher_suites\[0\]: is not a cipher suite Go accepts; use one of TLS_RSA_WITH/,
    ],
    [
      'min_version above max_version',
      'tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS13\n  max_version: TLS12\n',
      /tls_server_config\.max_version: is TLS12, below min_version TLS13/,
    ],
    ['a password where the hash goes, without repeating it', 'basic_auth_users:\n  alice: hunter2\n', /web\.yml:2: basic_auth_users\.alice: is not a bcrypt hash; write the hash/],
    [
      'a header the toolkit does not allow',
      'http_server_config:\n  headers:\n    Server: probekit\n',
      /http_server_config\.headers\.Server: cannot be configured; the headers a web config may set are Strict-Transport-Security/,
    ],
    ['a header value the toolkit does not allow', 'http_server_config:\n  headers:\n    X-Frame-Options: allow\n', /headers\.X-Frame-Options: must be one of deny, sameorigin/],
    [
      'a certificate file that cannot be read',
      'tls_server_config:\n  cert_file: /nonexistent/a.crt\n  key_file: /nonexistent/a.key\n',
      /tls_server_config\.cert_file: cannot read \/nonexistent\/a\.crt: ENOENT/,
    ],
  ])('%s', (_name, text, expected) => {
    const message = problemsOf(text);
    expect(message).toMatch(expected);
    expect(message).not.toContain('hunter2');
  });

  it('takes an empty file, and one that only sets headers, as plain HTTP', () => {
    expect(parseWebConfig('', 'web.yml').tls).toBeUndefined();
    expect(parseWebConfig('http_server_config:\n  headers:\n    X-Frame-Options: deny\n', 'web.yml').headers).toEqual([['X-Frame-Options', 'deny']]);
  });

  it('reads user and password from a Basic header as Go does: the password may hold colons', () => {
    expect(basicCredentials(`Basic ${Buffer.from('alice:a:b').toString('base64')}`)).toEqual({ user: 'alice', password: 'a:b' });
    expect(basicCredentials('Bearer abc')).toBeUndefined();
  });
});

interface ClientOptions {
  readonly cert?: string;
  readonly key?: string;
  readonly user?: string;
  readonly password?: string;
  readonly path?: string;
  readonly method?: string;
}

/** The status a TLS client gets, or 'refused' when the TLS handshake or connection fails. */
function ask(baseUrl: string, ca: string, options: ClientOptions = {}): Promise<{ status: number | 'refused'; headers: Record<string, unknown> }> {
  return new Promise((resolve) => {
    const auth = options.user === undefined ? {} : { Authorization: `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}` };
    const request = httpsRequest(
      `${baseUrl}${options.path ?? '/-/healthy'}`,
      { ca, cert: options.cert, key: options.key, headers: auth, method: options.method ?? 'GET', agent: false, timeout: 10_000 },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
      },
    );
    request.on('error', () => resolve({ status: 'refused', headers: {} }));
    request.end();
  });
}

describeWithBinaries([OPENSSL])('the exporter behind a web config', () => {
  let tls: TlsFixtures;
  let stranger: TlsFixtures;
  let dir: string;

  beforeAll(() => {
    tls = makeTlsFixtures();
    // A client certificate from a CA the exporter does not trust.
    stranger = makeTlsFixtures({ caName: 'some other CA' });
    dir = mkdtempSync(join(tmpdir(), 'probekit-web-config-'));
    writeFileSync(join(dir, 'blackbox.yml'), CONFIG);
  });
  afterAll(() => {
    tls.cleanup();
    stranger.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const webConfig = (users: Record<string, string>, clientAuth = 'RequireAndVerifyClientCert'): string =>
    [
      'tls_server_config:',
      `  cert_file: ${tls.serverCertFile}`,
      `  key_file: ${tls.serverKeyFile}`,
      `  client_auth_type: ${clientAuth}`,
      `  client_ca_file: ${tls.caFile}`,
      '  min_version: TLS12',
      '  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]',
      'http_server_config:',
      '  headers:',
      '    X-Frame-Options: deny',
      '    X-Content-Type-Options: nosniff',
      'basic_auth_users:',
      ...Object.entries(users).map(([user, hash]) => `  ${user}: ${hash}`),
      '',
    ].join('\n');

  const client = (): ClientOptions => ({ cert: readFileSync(tls.clientCertFile, 'utf8'), key: readFileSync(tls.clientKeyFile, 'utf8') });

  it('lets in only a client with a trusted certificate and the right password, and reloads users and refusals', async () => {
    const webFile = join(dir, 'web.yml');
    writeFileSync(webFile, webConfig({ alice: HASH }));
    const exporter = new Exporter({ configFile: join(dir, 'blackbox.yml'), timeoutOffsetSeconds: 0.5, historyLimit: 10, log: new Logger('error'), webConfigFile: webFile });
    await exporter.reload();
    const port = await exporter.listen('127.0.0.1', 0);
    const baseUrl = `https://127.0.0.1:${port}`;
    try {
      const right = await ask(baseUrl, tls.ca, { ...client(), user: 'alice', password: 'right password' });
      expect(right.status).toBe(200);
      expect(right.headers['x-frame-options']).toBe('deny');
      expect((await ask(baseUrl, tls.ca, { ...client(), user: 'alice', password: 'wrong' })).status).toBe(401);
      expect((await ask(baseUrl, tls.ca, { ...client(), user: 'mallory', password: 'right password' })).status).toBe(401);
      const anonymous = await ask(baseUrl, tls.ca, client());
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('Basic');
      expect((await ask(baseUrl, tls.ca, { user: 'alice', password: 'right password' })).status).toBe('refused');
      const strangerCert = { cert: readFileSync(stranger.clientCertFile, 'utf8'), key: readFileSync(stranger.clientKeyFile, 'utf8') };
      expect((await ask(baseUrl, tls.ca, { ...strangerCert, user: 'alice', password: 'right password' })).status).toBe('refused');

      // Reload: bob replaces alice, and client certificates become optional but still checked when given.
      writeFileSync(webFile, webConfig({ bob: bcrypt.hashSync('bobs password', 4) }, 'VerifyClientCertIfGiven'));
      expect((await ask(baseUrl, tls.ca, { ...client(), user: 'alice', password: 'right password', path: '/-/reload', method: 'POST' })).status).toBe(200);
      expect((await ask(baseUrl, tls.ca, { ...client(), user: 'alice', password: 'right password' })).status).toBe(401);
      expect((await ask(baseUrl, tls.ca, { user: 'bob', password: 'bobs password' })).status).toBe(200);
      expect((await ask(baseUrl, tls.ca, { ...strangerCert, user: 'bob', password: 'bobs password' })).status).toBe('refused');

      // A broken file, or one that turns TLS off, is refused and bob stays.
      writeFileSync(webFile, 'basic_auth_users:\n  bob: plain-text\n');
      await expect(exporter.reload()).rejects.toThrow(/basic_auth_users\.bob: is not a bcrypt hash/);
      writeFileSync(webFile, `basic_auth_users:\n  bob: ${HASH}\n`);
      await expect(exporter.reload()).rejects.toThrow(/tls_server_config: turns TLS off, which takes a restart/);
      expect((await ask(baseUrl, tls.ca, { user: 'bob', password: 'bobs password' })).status).toBe(200);
    } finally {
      await exporter.close();
    }
  });

  it('answers 429 beyond rate_limit, and lets in only client certificates naming one of client_allowed_sans', async () => {
    const named = makeTlsFixtures({ clientNames: ['DNS:prometheus.monitoring.svc'] });
    const webFile = join(dir, 'limited-web.yml');
    writeFileSync(
      webFile,
      [
        'tls_server_config:',
        `  cert_file: ${named.serverCertFile}`,
        `  key_file: ${named.serverKeyFile}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        `  client_ca_file: ${named.caFile}`,
        '  client_allowed_sans: [prometheus.monitoring.svc]',
        'rate_limit: { burst: 2, interval: 1h }',
        '',
      ].join('\n'),
    );
    const exporter = new Exporter({ configFile: join(dir, 'blackbox.yml'), timeoutOffsetSeconds: 0.5, historyLimit: 10, log: new Logger('error'), webConfigFile: webFile });
    await exporter.reload();
    const baseUrl = `https://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
    try {
      const namedClient = { cert: readFileSync(named.clientCertFile, 'utf8'), key: readFileSync(named.clientKeyFile, 'utf8') };
      expect((await ask(baseUrl, named.ca, namedClient)).status).toBe(200);
      expect((await ask(baseUrl, named.ca, namedClient)).status).toBe(200);
      expect((await ask(baseUrl, named.ca, namedClient)).status).toBe(429);
      // The same certificate, once the name it carries is no longer allowed:
      writeFileSync(
        webFile,
        readFileSync(webFile, 'utf8')
          .replace('[prometheus.monitoring.svc]', '[grafana.monitoring.svc]')
          .replace(/rate_limit.*\n/, ''),
      );
      await exporter.reload();
      expect((await ask(baseUrl, named.ca, namedClient)).status).toBe('refused');
    } finally {
      await exporter.close();
      named.cleanup();
    }
  });

  it('compares IP names of client_allowed_sans as addresses: ::1 in the file lets in a certificate naming IP ::1', async () => {
    const named = makeTlsFixtures({ clientNames: ['IP:::1', 'IP:127.0.0.1', 'DNS:client.test'] });
    const webFile = join(dir, 'ip-sans-web.yml');
    const writeWeb = (sans: readonly string[]) =>
      writeFileSync(
        webFile,
        [
          'tls_server_config:',
          `  cert_file: ${named.serverCertFile}`,
          `  key_file: ${named.serverKeyFile}`,
          '  client_auth_type: RequireAndVerifyClientCert',
          `  client_ca_file: ${named.caFile}`,
          `  client_allowed_sans: ${JSON.stringify(sans)}`,
          '',
        ].join('\n'),
      );
    writeWeb(['::1']);
    const exporter = new Exporter({ configFile: join(dir, 'blackbox.yml'), timeoutOffsetSeconds: 0.5, historyLimit: 10, log: new Logger('error'), webConfigFile: webFile });
    await exporter.reload();
    const baseUrl = `https://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
    const client = { cert: readFileSync(named.clientCertFile, 'utf8'), key: readFileSync(named.clientKeyFile, 'utf8') };
    try {
      const accepted = [['::1'], ['0:0:0:0:0:0:0:1'], ['0000::0001'], ['127.0.0.1'], ['::ffff:127.0.0.1'], ['::ffff:7f00:1'], ['client.test']];
      const refused = [['::2'], ['127.0.0.2'], ['::1%lo'], ['fe80::1'], ['CLIENT.TEST'], ['::ffff:127.0.0.2'], ['1']];
      for (const sans of [...accepted, ...refused]) {
        writeWeb(sans);
        await exporter.reload();
        expect({ sans, status: (await ask(baseUrl, named.ca, client)).status }).toEqual({ sans, status: accepted.includes(sans) ? 200 : 'refused' });
      }
    } finally {
      await exporter.close();
      named.cleanup();
    }
  });

  it('picks up a renewed certificate written over the old files', async () => {
    const renewed = makeTlsFixtures({ caName: 'renewing CA' });
    const certFile = join(dir, 'renewing.crt');
    const keyFile = join(dir, 'renewing.key');
    writeFileSync(certFile, readFileSync(tls.serverCertFile));
    writeFileSync(keyFile, readFileSync(tls.serverKeyFile));
    const webFile = join(dir, 'renewing-web.yml');
    writeFileSync(webFile, `tls_server_config:\n  cert_file: ${certFile}\n  key_file: ${keyFile}\n`);
    const gate = new WebGate(parseWebConfig(readFileSync(webFile, 'utf8'), webFile));
    const errors: string[] = [];
    const server = createTlsServer({ ...gate.tls!.context }, (_request, response) => response.end('ok'));
    gate.attach(server, (error) => errors.push(error.message), 50);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await ask(baseUrl, tls.ca)).status).toBe(200);
      expect((await ask(baseUrl, renewed.ca)).status).toBe('refused');
      writeFileSync(keyFile, readFileSync(renewed.serverKeyFile));
      writeFileSync(certFile, readFileSync(renewed.serverCertFile));
      const until = Date.now() + 10_000;
      while ((await ask(baseUrl, renewed.ca)).status !== 200 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await ask(baseUrl, renewed.ca)).status).toBe(200);
      expect((await ask(baseUrl, tls.ca)).status).toBe('refused');
      expect(errors.filter((message) => !message.includes('do not make a TLS identity'))).toEqual([]);
    } finally {
      server.close();
      renewed.cleanup();
    }
  });

  it('refuses to start on an invalid web config, naming the file and the field', () => {
    const webFile = join(dir, 'broken-web.yml');
    writeFileSync(webFile, 'tls_server_config:\n  cert_file: server.crt\n');
    const run = spawnSync(process.execPath, [...FROM_SOURCE, OUR_EXPORTER_MAIN, `--config.file=${join(dir, 'blackbox.yml')}`, `--web.config.file=${webFile}`, '--web.listen-address=127.0.0.1:0'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${webFile}:1: tls_server_config.key_file: is missing`);
    const check = spawnSync(process.execPath, [...FROM_SOURCE, OUR_EXPORTER_MAIN, `--config.file=${join(dir, 'blackbox.yml')}`, `--web.config.file=${webFile}`, '--config.check'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('tls_server_config.key_file: is missing');
  });
});

describeWithBinaries([OPENSSL, REFERENCE_EXPORTER])('one web config file, the reference and ours', () => {
  let tls: TlsFixtures;
  let stranger: TlsFixtures;
  const running: RunningExporter[] = [];

  beforeAll(async () => {
    tls = makeTlsFixtures();
    stranger = makeTlsFixtures({ caName: 'some other CA' });
    const webFile = join(tls.dir, 'web.yml');
    // Written as for the reference: relative file names, taken from the web config's own directory.
    writeFileSync(
      webFile,
      [
        'tls_server_config:',
        '  cert_file: server.crt',
        '  key_file: server.key',
        '  client_auth_type: RequireAndVerifyClientCert',
        '  client_ca_file: ca.crt',
        '  min_version: TLS12',
        '  prefer_server_cipher_suites: true',
        '  cipher_suites:',
        '    - TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
        '    - TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
        'http_server_config:',
        '  headers:',
        '    X-Content-Type-Options: nosniff',
        'basic_auth_users:',
        `  prometheus: ${HASH}`,
        '',
      ].join('\n'),
    );
    const client = { cert: readFileSync(tls.clientCertFile, 'utf8'), key: readFileSync(tls.clientKeyFile, 'utf8'), user: 'prometheus', password: 'right password' };
    const options = { flags: [`--web.config.file=${webFile}`], https: true, healthy: async (baseUrl: string) => (await ask(baseUrl, tls.ca, client)).status === 200 };
    running.push(await startExporter('reference', CONFIG, options), await startExporter('ours', CONFIG, options));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(running.map((exporter) => exporter.stop()));
    tls?.cleanup();
    stranger?.cleanup();
  });

  it.each([
    ['the right certificate and password', 'client', 'right password', 200],
    ['the right certificate, a wrong password', 'client', 'wrong password', 401],
    ['the right certificate, no password', 'client', undefined, 401],
    ['no certificate', 'none', 'right password', 'refused'],
    ['a certificate from another CA', 'stranger', 'right password', 'refused'],
  ] as const)('%s: both answer the same', async (_name, certificate, password, expected) => {
    const files = certificate === 'client' ? tls : certificate === 'stranger' ? stranger : undefined;
    const options: ClientOptions = {
      ...(files ? { cert: readFileSync(files.clientCertFile, 'utf8'), key: readFileSync(files.clientKeyFile, 'utf8') } : {}),
      ...(password === undefined ? {} : { user: 'prometheus', password }),
      path: '/metrics',
    };
    const answers = await Promise.all(running.map((exporter) => ask(exporter.baseUrl, tls.ca, options)));
    expect(answers.map((answer) => answer.status)).toEqual([expected, expected]);
    if (expected === 200) expect(answers.map((answer) => answer.headers['x-content-type-options'])).toEqual(['nosniff', 'nosniff']);
  });
});
