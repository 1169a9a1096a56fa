/**
 * The contract's target grammar against the probers themselves: for each target of the table, the contract
 * refuses it exactly when the real probe stops before looking its host up (or, for http, before asking the
 * proxy), and with the words the table says. Then what the strict reading refuses on top, for the spec.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModuleInput } from '../../src/contract';
import { targetProblem } from '../../src/contract/targets';
import type { ProberName } from '../../src/probers/registry';
import { runModule } from '../support/probe-run';
import { freePort } from '../../loopback/reference-exporter';

const NOT_A_URL = 'is not a URL; write it as http://host[:port]/path or https://host[:port]/path';
const NOT_TCP_HOST_PORT = 'is not host:port; a tcp module needs the port, for example example.com:443 or [::1]:443';
const NOT_A_DNS_SERVER = 'is not the address of a DNS server; write host or host:port, for example 1.1.1.1 or ns1.example.com:53';
const NO_GRPC_HOST = 'has no host; write host:port, for example grpc.example.com:443';

/** Prober, target (`PORT` stands for a closed loopback port), and the problem, or undefined when the exporter probes it. */
const TABLE: ReadonlyArray<readonly [ProberName, string, string | undefined]> = [
  ['http', 'example.com', undefined],
  ['http', 'http://127.0.0.1:PORT/health?x=1', undefined],
  ['http', 'https://[::1]:PORT/', undefined],
  // Upstream reads it the same way: not http:// or https://, so http:// goes in front (host "ftp").
  ['http', 'ftp://example.com', undefined],
  ['http', 'http://exa mple.com/', NOT_A_URL],
  ['http', 'http://[::1/', NOT_A_URL],
  ['http', 'example.com:99999', NOT_A_URL],
  ['tcp', '127.0.0.1:PORT', undefined],
  ['tcp', '[::1]:PORT', undefined],
  ['tcp', 'localhost:PORT', undefined],
  ['tcp', '127.0.0.1', NOT_TCP_HOST_PORT],
  ['tcp', '::1', NOT_TCP_HOST_PORT],
  ['tcp', 'https://example.com', NOT_TCP_HOST_PORT],
  ['tcp', '127.0.0.1:0', 'has an invalid port 0; use 1 to 65535'],
  ['tcp', '[::1]:70000', 'has an invalid port 70000; use 1 to 65535'],
  ['dns', '127.0.0.1:PORT', undefined],
  ['dns', '[::1]:PORT', undefined],
  ['dns', '127.0.0.1', undefined],
  ['dns', '::1', undefined],
  ['dns', '[::1]', undefined],
  ['dns', '127.0.0.1:70000', 'has an invalid port 70000; use 1 to 65535'],
  ['dns', 'https://ns.example.com', NOT_A_DNS_SERVER],
  ['icmp', '127.0.0.1', undefined],
  ['icmp', '::1', undefined],
  ['icmp', 'localhost', undefined],
  ['grpc', '127.0.0.1:PORT', undefined],
  ['grpc', '[::1]:PORT', undefined],
  ['grpc', 'https://localhost:443/health', undefined],
  ['grpc', 'http://127.0.0.1:PORT', undefined],
  ['grpc', 'localhost', undefined],
  ['grpc', '127.0.0.1:abc', 'has an invalid port abc; use 1 to 65535'],
  ['grpc', ':50051', NO_GRPC_HOST],
  ['grpc', 'https://', NO_GRPC_HOST],
];

describe("the contract's target grammar and the probers", () => {
  let proxy: Server;
  let proxied: string[];
  let closedPort: number;
  const modules = (): Record<ProberName, ModuleInput> => ({
    // Through a loopback proxy that answers everything, so that no host name is ever resolved.
    http: { prober: 'http', http: { proxy_url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, skip_resolve_phase_with_proxy: true } },
    tcp: { prober: 'tcp' },
    dns: { prober: 'dns', dns: { query_name: 'probe.test' } },
    icmp: { prober: 'icmp' },
    grpc: { prober: 'grpc' },
    unix: { prober: 'unix' },
  });

  /**
   * Each case ends as soon as the probe reaches the proxy or fails, so this only bounds a slow machine: under the
   * whole suite on two cores a probe once took longer than 500 ms to reach the proxy.
   */
  const PROBE_TIMEOUT_MS = 3000;

  beforeAll(async () => {
    proxied = [];
    proxy = createServer((request, response) => {
      proxied.push(`${request.method} ${request.url}`);
      response.end('ok');
    });
    proxy.on('connect', (request, socket) => {
      proxied.push(`CONNECT ${request.url}`);
      socket.destroy();
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    closedPort = await freePort();
  });
  afterAll(() => {
    proxy.closeAllConnections();
    proxy.close();
  });

  it.each(TABLE)('%s %p: %p', async (prober, written, problem) => {
    const target = written.replace('PORT', String(closedPort));
    expect(targetProblem(prober, target)).toBe(problem);
    proxied.length = 0;
    const run = await runModule(modules()[prober], target, { timeoutMs: PROBE_TIMEOUT_MS });
    // Every prober but http through its proxy looks the host up once the target is read, and says so in probe_ip_protocol.
    const readTarget = prober === 'http' ? proxied.length > 0 : run.samples.some((sample) => sample.name === 'probe_ip_protocol');
    expect({ readTarget, log: run.log }).toEqual({ readTarget: problem === undefined, log: expect.any(String) });
    if (problem !== undefined) expect(run.log).toContain(problem);
  });

  it('probes a bare host for http as http://host/, as upstream does', async () => {
    proxied.length = 0;
    await runModule(modules().http, 'example.com', { timeoutMs: PROBE_TIMEOUT_MS });
    expect(proxied).toEqual(['GET http://example.com/']);
  });
});

/** What the strict reading refuses among what the exporter probes; it refuses everything the exporter refuses too. */
const STRICT: ReadonlyArray<readonly [ProberName, string, string | undefined]> = [
  ['http', 'https://example.com/health', undefined],
  ['http', 'http://[::1]:8080/x', undefined],
  ['http', 'example.com', 'has no scheme; write https://example.com or http://example.com, so that whether the probe uses TLS is written down'],
  ['http', 'ftp://example.com', 'has scheme ftp; an http module probes http:// and https:// URLs'],
  ['http', 'HTTPS://example.com', 'has scheme HTTPS; write it in lower case, the only way the exporter reads it'],
  ['tcp', '[::1]:22', undefined],
  ['tcp', 'exa mple.com:80', 'has an invalid host "exa mple.com"; write a host name or an IP address'],
  ['tcp', ':80', 'has an invalid host ""; write a host name or an IP address'],
  ['dns', '[::1]', undefined],
  ['dns', 'ns_1.example.com:5353', undefined],
  ['dns', 'exa mple.com', 'has an invalid host "exa mple.com"; write a host name or an IP address'],
  ['icmp', '[::1]', undefined],
  ['icmp', 'host.example.com', undefined],
  ['icmp', 'example.com:80', 'is not a host; an icmp module pings a host name or IP address, without scheme or port'],
  ['grpc', 'https://grpc.example.com:443/health', "has a path /health, which the grpc prober does not use (it checks the module's grpc.service); write https://grpc.example.com:443"],
  ['grpc', 'grpc.example.com', 'is not host:port; a grpc module needs the port, for example example.com:443 or [::1]:50051'],
  ['grpc', 'https://exa mple.com:443', 'has an invalid host "exa mple.com"; write a host name or an IP address'],
  ['unix', '/run/app.sock', undefined],
  ['unix', 'app.sock', 'is not an absolute path; a unix module probes a socket by its full path, for example /run/app.sock'],
];

describe('the strict target grammar', () => {
  it.each(STRICT)('%s %p: %p', (prober, target, problem) => {
    expect(targetProblem(prober, target)).toBeUndefined();
    expect(targetProblem(prober, target, { strict: true })).toBe(problem);
  });

  it.each(TABLE.filter(([, , problem]) => problem !== undefined))('refuses %s %p as the exporter does', (prober, target, problem) => {
    expect(targetProblem(prober, target, { strict: true })).toBe(problem);
  });
});
