/**
 * oauth2 client credentials against a token endpoint this test starts (plain and over TLS), in front of a
 * target that wants the token: the token request as golang.org/x/oauth2 sends it, the token cached until
 * shortly before it expires, a changed client_secret_file, an endpoint that wants the credentials in the
 * form, and an endpoint that fails (the probe fails, the secret never shows in its log).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metricValue } from '../../../loopback/metrics-text';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';
import { parseConfig } from '../../../src/config/load';
import { Logger, ProbeLog } from '../../../src/log';
import { probe } from '../../../src/probers';
import { deadlineIn } from '../../../src/probers/shared/deadline';
import { ProbeRegistry } from '../../../src/metrics';
import { parseMetrics } from '../../../loopback/metrics-text';

interface TokenRequest {
  readonly path: string;
  readonly authorization?: string;
  readonly userAgent?: string;
  readonly form: Record<string, string>;
}

let fixtures: TlsFixtures;
let tokenEndpoint: Server;
let secureTokenEndpoint: Server;
let target: Server;
const tokenRequests: TokenRequest[] = [];
let issued = 0;
const dir = mkdtempSync(join(tmpdir(), 'oauth2-'));

const port = (server: Server): number => (server.address() as AddressInfo).port;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolve(body));
  });
}

/** Issues `token-N` to client `probe` with secret `s3cret` or `rotated`; `/form-only` wants them in the form, `/broken` fails. */
async function handleToken(request: IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
  const form = Object.fromEntries(new URLSearchParams(await readBody(request)));
  const path = request.url ?? '';
  tokenRequests.push({ path, authorization: request.headers.authorization, userAgent: request.headers['user-agent'], form });
  const basic = request.headers.authorization?.startsWith('Basic ') ? Buffer.from(request.headers.authorization.slice(6), 'base64').toString() : undefined;
  const [id, secret] = path.startsWith('/form-only') ? [form.client_id, form.client_secret] : (basic?.split(':') ?? []);
  if (path.startsWith('/broken') || form.grant_type !== 'client_credentials' || id !== 'probe' || !['s3cret', 'rotated'].includes(secret ?? '')) {
    response.writeHead(path.startsWith('/broken') ? 500 : 401, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ error: 'invalid_client' }));
    return;
  }
  issued += 1;
  const expiresIn = path.startsWith('/short') ? 11 : 3600;
  response.writeHead(200, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify({ access_token: `token-${issued}`, token_type: 'bearer', expires_in: expiresIn }));
}

beforeAll(async () => {
  fixtures = makeTlsFixtures();
  tokenEndpoint = createServer((request, response) => void handleToken(request, response));
  secureTokenEndpoint = createHttpsServer({ cert: fixtures.serverCert, key: fixtures.serverKey }, (request, response) => void handleToken(request, response));
  // The target answers 200 to a token this test's endpoint issued, 401 otherwise.
  target = createServer((request, response) => {
    response.statusCode = /^Bearer token-\d+$/.test(request.headers.authorization ?? '') ? 200 : 401;
    response.end(request.headers.authorization ?? '');
  });
  await Promise.all([tokenEndpoint, secureTokenEndpoint, target].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
});

afterAll(async () => {
  await Promise.all([tokenEndpoint, secureTokenEndpoint, target].map((server) => new Promise((done) => server.close(done))));
  fixtures.cleanup();
});

beforeEach(() => {
  tokenRequests.length = 0;
});

/** Loads `oauth2` (YAML lines) into one module and returns a function probing the target with it: the module stays loaded between probes. */
function loadModule(oauth2Yaml: string): () => Promise<{ success: boolean; samples: ReturnType<typeof parseMetrics>; log: string }> {
  const yaml = `modules:\n  m:\n    prober: http\n    http:\n      preferred_ip_protocol: ip4\n      oauth2:\n${oauth2Yaml.replace(/^/gm, '        ')}\n`;
  const module = parseConfig(yaml, join(dir, 'blackbox.yml')).modules.m;
  return async () => {
    const registry = new ProbeRegistry();
    const log = new ProbeLog(new Logger('error', () => undefined), {});
    const deadline = deadlineIn(3000);
    try {
      const { success } = await probe(deadline, `http://127.0.0.1:${port(target)}/`, module, registry, log, {});
      return { success, samples: parseMetrics(registry.text()), log: log.text() };
    } finally {
      deadline.cancel();
    }
  };
}

const tokenUrl = (path: string): string => `token_url: http://127.0.0.1:${port(tokenEndpoint)}${path}`;

describe('oauth2 client credentials', () => {
  it("fetches a token as golang.org/x/oauth2 does (upstream's documented module) and reuses it", async () => {
    const probeOnce = loadModule(`client_id: probe\nclient_secret: s3cret\n${tokenUrl('/token')}\nscopes: [read, probe]\nendpoint_params:\n  grant_type: client_credentials\n  audience: targets`);
    const first = await probeOnce();
    expect(first.success).toBe(true);
    expect(metricValue(first.samples, 'probe_http_status_code')).toBe(200);
    const second = await probeOnce();
    expect(second.success).toBe(true);
    expect(tokenRequests).toEqual([
      {
        path: '/token',
        authorization: `Basic ${Buffer.from('probe:s3cret').toString('base64')}`,
        userAgent: expect.stringMatching(/^Probekit-Exporter\//),
        form: { grant_type: 'client_credentials', scope: 'read probe', audience: 'targets' },
      },
    ]);
  });

  it('fetches a new token once the cached one is within 10 seconds of expiry', async () => {
    const probeOnce = loadModule(`client_id: probe\nclient_secret: s3cret\n${tokenUrl('/short')}`);
    expect((await probeOnce()).success).toBe(true);
    expect((await probeOnce()).success).toBe(true);
    expect(tokenRequests).toHaveLength(1);
    // expires_in 11: renewed from one second on.
    await new Promise((done) => setTimeout(done, 1100));
    expect((await probeOnce()).success).toBe(true);
    expect(tokenRequests).toHaveLength(2);
  });

  it('starts over when client_secret_file changes, reading it relative to the config file', async () => {
    writeFileSync(join(dir, 'secret'), 's3cret\n');
    const probeOnce = loadModule(`client_id: probe\nclient_secret_file: secret\n${tokenUrl('/token')}`);
    expect((await probeOnce()).success).toBe(true);
    expect((await probeOnce()).success).toBe(true);
    writeFileSync(join(dir, 'secret'), 'rotated\n');
    expect((await probeOnce()).success).toBe(true);
    expect(tokenRequests.map((request) => request.authorization)).toEqual([`Basic ${Buffer.from('probe:s3cret').toString('base64')}`, `Basic ${Buffer.from('probe:rotated').toString('base64')}`]);
  });

  it('sends the credentials in the form to an endpoint that refuses them in the header, and remembers it', async () => {
    const probeOnce = loadModule(`client_id: probe\nclient_secret: s3cret\n${tokenUrl('/form-only')}`);
    expect((await probeOnce()).success).toBe(true);
    expect(tokenRequests.map((request) => [request.authorization !== undefined, request.form.client_secret])).toEqual([
      [true, undefined],
      [false, 's3cret'],
    ]);
  });

  it('gets tokens over TLS with the section’s own tls_config', async () => {
    const probeOnce = loadModule(`client_id: probe\nclient_secret: s3cret\ntoken_url: https://localhost:${port(secureTokenEndpoint)}/token\ntls_config:\n  ca_file: ${fixtures.caFile}`);
    expect((await probeOnce()).success).toBe(true);
    const untrusted = loadModule(`client_id: probe\nclient_secret: s3cret\ntoken_url: https://localhost:${port(secureTokenEndpoint)}/token`);
    expect((await untrusted()).success).toBe(false);
  });

  it('fails the probe when no token comes, without the secret in the log', async () => {
    const run = await loadModule(`client_id: probe\nclient_secret: s3cret\n${tokenUrl('/broken')}`)();
    expect(run.success).toBe(false);
    expect(metricValue(run.samples, 'probe_http_status_code')).toBe(0);
    expect(run.log).toMatch(/oauth2: cannot fetch token: 500/);
    expect(run.log).not.toContain('s3cret');
    const wrongSecret = await loadModule(`client_id: probe\nclient_secret: wrong\n${tokenUrl('/token')}`)();
    expect(wrongSecret.success).toBe(false);
    expect(wrongSecret.log).not.toContain('wrong');
  });
});
