/**
 * A blackbox_exporter 0.28 deployment moved to probekit's exporter unchanged: a config written in the form of
 * upstream's documented examples (example.yml and CONFIGURATION.md, every field 0.24 to 0.28 added among
 * them; our own text) and command lines in the form upstream's documentation shows. The exporter starts
 * from them, serves under the external URL's path, and probes loopback servers with the new fields.
 */
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { freePort } from '../../loopback/reference-exporter';
import { startExporter as start, stopExporter as stop, waitFor, type StartedExporter } from '../support/exporter-process';

const dir = mkdtempSync(join(tmpdir(), 'upstream-028-'));
const SOCKET = join(dir, 'app.sock');

/** Modules as upstream 0.28 documents them; the hosts and files they name are examples, used only at probe time. */
const CONFIG_028 = `modules:
  http_2xx:
    prober: http
    timeout: 5s
    http:
      valid_http_versions: ["HTTP/1.1", "HTTP/2.0"]
      valid_status_codes: []
      method: GET
      headers:
        Origin: example.com
      http_headers:
        Accept-Language:
          values:
            - "en-US"
      follow_redirects: true
      preferred_ip_protocol: "ip4"
      ip_protocol_fallback: false
  http_json_cel_match:
    prober: http
    timeout: 5s
    http:
      method: GET
      preferred_ip_protocol: "ip4"
      fail_if_body_json_not_matches_cel: "body.foo == 'bar' && body.baz.startsWith('q')"
  http_json_cel_fail:
    prober: http
    http:
      preferred_ip_protocol: "ip4"
      fail_if_body_json_matches_cel: "body.status != 'ok'"
  http_2xx_oauth_client_credentials:
    prober: http
    timeout: 5s
    http:
      valid_http_versions: ["HTTP/1.1", "HTTP/2"]
      follow_redirects: true
      preferred_ip_protocol: "ip4"
      valid_status_codes:
        - 200
        - 201
      oauth2:
        client_id: "client_id"
        client_secret: "client_secret"
        token_url: "https://api.example.com/token"
        scopes: ["probe"]
        endpoint_params:
          grant_type: "client_credentials"
  http_with_proxy_and_headers:
    prober: http
    http:
      proxy_url: "http://127.0.0.1:3128"
      no_proxy: "internal.example.com,10.0.0.0/8"
      proxy_connect_header:
        Proxy-Authorization:
          - Bearer token
  http_proxy_from_environment:
    prober: http
    http:
      proxy_from_environment: true
      skip_resolve_phase_with_proxy: true
  http_with_header_from_files:
    prober: http
    http:
      http_headers:
        X-API-Key:
          files:
            - /path/to/api-key.txt
  smtp_starttls:
    prober: tcp
    timeout: 5s
    tcp:
      query_response:
        - expect: "^220 ([^ ]+) ESMTP (.+)$"
          labels:
            - name: server
              value: "\${1}"
        - send: "EHLO prober\\r"
        - expect: "^250-STARTTLS"
        - send: "STARTTLS\\r"
        - expect: "^220"
        - starttls: true
        - send: "EHLO prober\\r"
        - expect: "^250-AUTH"
        - send: "QUIT\\r"
  postgresql:
    prober: tcp
    tcp:
      query_response:
      - send: !!binary AAAACATSFi8=
      - expect_bytes: S
      - starttls: true
  unix_socket_ping:
    prober: unix
    timeout: 5s
    unix:
      query_response:
        - send: "PING"
        - expect: "PONG (.+)"
          labels:
            - name: version
              value: "\${1}"
  unix_tls:
    prober: unix
    unix:
      tls: true
      tls_config:
        server_name: app.example.com
        ca_file: /etc/blackbox_exporter/CA_cert.crt
  grpc_with_metadata:
    prober: grpc
    grpc:
      service: "service1"
      preferred_ip_protocol: "ip4"
      metadata:
        authorization:
          - "Bearer token"
        x-tenant: ["blue", "green"]
      tls: true
      tls_config:
        insecure_skip_verify: false
  icmp_example:
    prober: icmp
    timeout: 5s
    icmp:
      preferred_ip_protocol: "ip4"
      source_ip_address: "127.0.0.1"
  dns_soa:
    prober: dns
    dns:
      query_name: "prometheus.io"
      query_type: "SOA"
`;

let unixServer: NetServer;
let jsonServer: HttpServer;
let jsonBase: string;

beforeAll(async () => {
  writeFileSync(join(dir, 'blackbox.yml'), CONFIG_028);
  unixServer = createNetServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.on('data', (data) => {
      if (data.toString().trim() === 'PING') socket.write('PONG 1.2.3\n');
    });
  });
  await new Promise<void>((resolve) => unixServer.listen(SOCKET, resolve));
  jsonServer = createHttpServer((request, response) => {
    response.setHeader('Content-Type', 'application/json');
    response.end(request.url === '/status' ? JSON.stringify({ status: 'degraded' }) : JSON.stringify({ foo: 'bar', baz: 'qux' }));
  });
  await new Promise<void>((resolve) => jsonServer.listen(0, '127.0.0.1', resolve));
  jsonBase = `http://127.0.0.1:${(jsonServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => unixServer.close(done));
  await new Promise((done) => jsonServer.close(done));
});

/** Waits for `url` to answer 200; fails at once, with the exporter's log, when the exporter exited. */
async function healthy(url: string, started: StartedExporter): Promise<void> {
  let exited = false;
  await waitFor(async () => {
    exited = started.child.exitCode !== null;
    return exited || (await fetch(url)).ok;
  }, url);
  if (exited) throw new Error(`the exporter exited ${started.child.exitCode}: ${started.stderr()}`);
}

describe('a blackbox_exporter 0.28 deployment', () => {
  it('passes --config.check, in the space-separated form docs/exporter.md shows', async () => {
    const check = start(['--config.file', join(dir, 'blackbox.yml'), '--config.check']);
    const [code] = (await once(check.child, 'exit')) as [number];
    expect({ code, stderr: check.stderr() }).toEqual({ code: 0, stderr: expect.any(String) });
  });

  it('starts from the 0.28 command line and probes with the new fields', async () => {
    const port = await freePort();
    const started = start([
      `--config.file=${join(dir, 'blackbox.yml')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.external-url=http://blackbox.example.com:9115/blackbox',
      '--log.level=info',
      '--log.format=json',
      '--log.prober=warn',
      '--config.enable-auto-reload',
      '--config.auto-reload-interval=30',
      '--history.limit=50',
      '--timeout-offset=0.5',
      '--no-web.systemd-socket',
    ]);
    const base = `http://127.0.0.1:${port}/blackbox`;
    try {
      await healthy(`${base}/-/healthy`, started);
      const config = await (await fetch(`${base}/config`)).text();
      for (const module of CONFIG_028.match(/^ {2}[a-z0-9_]+:$/gm)!) expect(config).toContain(module.trim());
      // The oauth2 secret and the credential-like metadata are masked.
      expect(config).not.toMatch(/client_secret: client_secret|Bearer token/);

      const probe = async (module: string, target: string) => parseMetrics(await (await fetch(`${base}/probe?module=${module}&target=${encodeURIComponent(target)}`)).text());
      const unix = await probe('unix_socket_ping', SOCKET);
      expect(metricValue(unix, 'probe_success')).toBe(1);
      expect(metricValue(unix, 'probe_expect_info', { version: '1.2.3' })).toBe(1);
      const cel = await probe('http_json_cel_match', `${jsonBase}/`);
      expect(metricValue(cel, 'probe_success')).toBe(1);
      expect(metricValue(cel, 'probe_failed_due_to_cel')).toBe(0);
      const celFails = await probe('http_json_cel_fail', `${jsonBase}/status`);
      expect(metricValue(celFails, 'probe_success')).toBe(0);
      expect(metricValue(celFails, 'probe_failed_due_to_cel')).toBe(1);

      // JSON lines; the failed probe's error reaches the log at --log.prober=warn.
      const lines = started
        .stderr()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toContainEqual(expect.objectContaining({ level: 'ERROR', msg: 'Body matched CEL expression', module: 'http_json_cel_fail' }));
      expect(lines.some((line) => line.level === 'DEBUG')).toBe(false);
    } finally {
      await stop(started);
    }
  });
});
