/**
 * allowed_targets end to end: the exporter as a process in a network namespace this test makes, whose
 * resolver (resolv.conf laid over the machine's in the namespace's own mounts) asks a dnsmasq the test
 * starts on 127.0.0.1:53 there. Names resolve into an allowed loopback address (127.0.0.1) and forbidden
 * ones (127.0.0.2, 169.254.169.254), so the checks after name resolution, on redirect hops and of the
 * exporter's own listener are tested as getaddrinfo really answers, with real HTTP servers in the namespace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describeWithBinaries } from '../../../test/support/integration';
import { FROM_SOURCE } from '../../loopback/from-source';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { OUR_EXPORTER_MAIN } from '../../loopback/reference-exporter';
import { NAMESPACE_BINARIES, startDnsNamespace, waitUntil, type DnsNamespace, type Reply } from '../support/dns-namespace';
import { rootHere } from '../support/release';

const EXPORTER = 'http://127.0.0.1:9115';
const SERVER_PORT = 8080;

/** HTTP servers on the allowed and a forbidden loopback address; `?to=URL` answers a redirect there. */
const SERVERS = `
const http = require('node:http');
for (const host of ['127.0.0.1', '127.0.0.2']) {
  http.createServer((request, response) => {
    const to = new URL(request.url, 'http://x').searchParams.get('to');
    if (to) response.writeHead(302, { Location: to });
    response.end('served by ' + host);
  }).listen(${SERVER_PORT}, host, () => console.log('listening on ' + host));
}`;

const allowedHttp = (networks: readonly string[]) => ({
  prober: 'http',
  timeout: '5s',
  http: { preferred_ip_protocol: 'ip4', ip_protocol_fallback: false },
  allowed_targets: { networks },
});

function config(networks: readonly string[]): string {
  return stringify({
    allowed_targets: { deny_self_and_metadata: true },
    modules: {
      http_allowed: allowedHttp(networks),
      http_named: { prober: 'http', timeout: '5s', http: { preferred_ip_protocol: 'ip4' }, allowed_targets: { hosts: ['allowed.test', '*.allowed.test'] } },
      // The servers below answer a proxy's absolute-form request line too: one stands in for the proxy.
      http_proxy_resolves: {
        prober: 'http',
        timeout: '5s',
        http: { proxy_url: `http://127.0.0.1:${SERVER_PORT}`, skip_resolve_phase_with_proxy: true },
        allowed_targets: { networks: ['127.0.0.0/8'] },
      },
      tcp_any: { prober: 'tcp', timeout: '5s', tcp: { preferred_ip_protocol: 'ip4' } },
      dns_forbidden_server: { prober: 'dns', timeout: '5s', dns: { query_name: 'allowed.test', preferred_ip_protocol: 'ip4' }, allowed_targets: { networks: ['127.0.0.2/32'] } },
    },
  });
}

const runs = rootHere();

(runs ? describeWithBinaries(NAMESPACE_BINARIES) : describe.skip)('allowed_targets, with names resolved by a DNS server the test starts', () => {
  let namespace: DnsNamespace;

  const get = (url: string, method = 'GET'): Promise<Reply> => namespace.get(url, method);
  const probe = (module: string, target: string): Promise<Reply> => get(`${EXPORTER}/probe?module=${module}&target=${encodeURIComponent(target)}`);
  const refusedCount = async (module: string, reason: string): Promise<number> =>
    metricValue(parseMetrics((await get(`${EXPORTER}/metrics`)).body), 'probekit_exporter_targets_refused_total', { module, reason }) ?? 0;

  beforeAll(async () => {
    namespace = await startDnsNamespace({ 'allowed.test': '127.0.0.1', 'forbidden.test': '127.0.0.2', 'metadata.test': '169.254.169.254' });
    writeFileSync(join(namespace.dir, 'blackbox.yml'), config(['127.0.0.1/32']));
    await namespace.startIn([process.execPath, '-e', SERVERS], (output) => output.split('listening').length === 3, 'the HTTP servers');
    const command = [process.execPath, ...FROM_SOURCE, OUR_EXPORTER_MAIN, `--config.file=${join(namespace.dir, 'blackbox.yml')}`, '--web.listen-address=127.0.0.1:9115'];
    const exporter = await namespace.startIn(command, () => true, 'the exporter', true);
    await waitUntil(
      async () => (await get(`${EXPORTER}/-/healthy`)).status === 200,
      () => `the exporter: ${exporter.output()}`,
    );
  }, 300_000);

  afterAll(async () => {
    await namespace?.stop();
  });

  it('probes a name that resolves into an allowed network', async () => {
    const reply = await probe('http_allowed', `http://allowed.test:${SERVER_PORT}/`);
    expect(reply.status).toBe(200);
    expect(metricValue(parseMetrics(reply.body), 'probe_success')).toBe(1);
  });

  it('answers 403 with the reason for a name that resolves into a forbidden range, and counts it', async () => {
    const before = await refusedCount('http_allowed', 'network_not_allowed');
    const reply = await probe('http_allowed', `http://forbidden.test:${SERVER_PORT}/`);
    expect(reply).toEqual({ status: 403, body: 'target refused: "forbidden.test" (resolved to 127.0.0.2) lies in none of modules.http_allowed.allowed_targets.networks\n' });
    expect(await refusedCount('http_allowed', 'network_not_allowed')).toBe(before + 1);
  });

  it('answers 403 for a forbidden IP literal, which is never looked up', async () => {
    const reply = await probe('http_allowed', `http://127.0.0.2:${SERVER_PORT}/`);
    expect(reply).toEqual({ status: 403, body: 'target refused: 127.0.0.2 lies in none of modules.http_allowed.allowed_targets.networks\n' });
  });

  it('refuses a name no hosts pattern matches before resolving it', async () => {
    expect((await probe('http_named', `http://www.allowed.test:${SERVER_PORT}/`)).status).toBe(200);
    const before = await refusedCount('http_named', 'host_not_allowed');
    expect(await probe('http_named', `http://forbidden.test:${SERVER_PORT}/`)).toEqual({
      status: 403,
      body: 'target refused: host "forbidden.test" matches none of modules.http_named.allowed_targets.hosts\n',
    });
    expect(await refusedCount('http_named', 'host_not_allowed')).toBe(before + 1);
  });

  it('fails a probe whose redirect leads into a forbidden range, with the reason target refused', async () => {
    for (const hop of [`http://forbidden.test:${SERVER_PORT}/`, `http://127.0.0.2:${SERVER_PORT}/`]) {
      const before = await refusedCount('http_allowed', 'network_not_allowed');
      const reply = await probe('http_allowed', `http://allowed.test:${SERVER_PORT}/?to=${encodeURIComponent(hop)}`);
      expect(reply.status).toBe(200);
      const samples = parseMetrics(reply.body);
      expect(metricValue(samples, 'probe_success')).toBe(0);
      expect(metricValue(samples, 'probe_failure_reason', { reason: 'target refused' })).toBe(1);
      expect(await refusedCount('http_allowed', 'network_not_allowed')).toBe(before + 1);
    }
  });

  it("refuses the exporter's own listener, by address and by a name resolving to it, and metadata addresses", async () => {
    expect((await probe('tcp_any', `127.0.0.1:${SERVER_PORT}`)).status).toBe(200);
    expect(await probe('tcp_any', '127.0.0.1:9115')).toEqual({
      status: 403,
      body: "target refused: 127.0.0.1 port 9115 is the exporter's own listener, refused by allowed_targets.deny_self_and_metadata\n",
    });
    expect((await probe('tcp_any', 'allowed.test:9115')).status).toBe(403);
    expect(await probe('tcp_any', 'metadata.test:80')).toEqual({
      status: 403,
      body: 'target refused: "metadata.test" (resolved to 169.254.169.254) is a link-local or cloud metadata address, refused by allowed_targets.deny_self_and_metadata\n',
    });
    expect(await refusedCount('tcp_any', 'exporter_itself')).toBe(2);
    expect(await refusedCount('tcp_any', 'link_local_or_metadata')).toBe(1);
  });

  it('refuses a name the proxy would resolve when networks are listed, and checks an IP literal as the address', async () => {
    expect(await probe('http_proxy_resolves', `http://allowed.test:${SERVER_PORT}/`)).toEqual({
      status: 403,
      body: 'target refused: host "allowed.test" is resolved by the proxy, not the exporter, so modules.http_proxy_resolves.allowed_targets.networks cannot be checked; set skip_resolve_phase_with_proxy: false\n',
    });
    expect(await refusedCount('http_proxy_resolves', 'address_not_resolved')).toBe(1);
    const through = await probe('http_proxy_resolves', `http://127.0.0.2:${SERVER_PORT}/`);
    expect(through.status).toBe(200);
    expect(metricValue(parseMetrics(through.body), 'probe_success')).toBe(1);
    expect((await probe('http_proxy_resolves', `http://10.0.0.1:${SERVER_PORT}/`)).status).toBe(403);
  });

  it("refuses a DNS server outside the module's networks", async () => {
    const reply = await probe('dns_forbidden_server', '127.0.0.1');
    expect(reply.status).toBe(403);
    expect(reply.body).toContain('modules.dns_forbidden_server.allowed_targets.networks');
  });

  it('keeps the old allow-list when a reload brings a bad one, and applies a good one', async () => {
    writeFileSync(join(namespace.dir, 'blackbox.yml'), config(['not-a-network']));
    const refused = await get(`${EXPORTER}/-/reload`, 'POST');
    expect(refused.status).toBe(500);
    expect(refused.body).toContain('modules.http_allowed.allowed_targets.networks[0]: "not-a-network" is not an IP address or CIDR range');
    expect((await probe('http_allowed', `http://forbidden.test:${SERVER_PORT}/`)).status).toBe(403);
    expect((await probe('http_allowed', `http://allowed.test:${SERVER_PORT}/`)).status).toBe(200);

    writeFileSync(join(namespace.dir, 'blackbox.yml'), config(['127.0.0.0/8']));
    expect((await get(`${EXPORTER}/-/reload`, 'POST')).status).toBe(200);
    const reply = await probe('http_allowed', `http://forbidden.test:${SERVER_PORT}/`);
    expect(reply.status).toBe(200);
    expect(metricValue(parseMetrics(reply.body), 'probe_success')).toBe(1);
  });
});
