/**
 * allowed_targets against someone trying to get past it: redirect chains that come back to a host, a change
 * of scheme between default ports, a proxy that resolves names itself, addresses spelled every way a resolver
 * or URL parser reads them, and an address an interface gains after the exporter started. As the other
 * allowed_targets test: the exporters run in a network namespace this test makes, whose resolver asks a
 * dnsmasq the test starts there; the servers they probe are the test's own, in the namespace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describeWithBinaries } from '../../../test/support/integration';
import { FROM_SOURCE } from '../../loopback/from-source';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { OUR_EXPORTER_MAIN } from '../../loopback/reference-exporter';
import { makeTlsFixtures, OPENSSL, type TlsFixtures } from '../../loopback/tls-fixtures';
import { NAMESPACE_BINARIES, startDnsNamespace, waitUntil, type DnsNamespace, type Reply } from '../support/dns-namespace';
import { rootHere } from '../support/release';

/** The exporter on one address at port 80: the port a change of scheme between default ports lands on. */
const ON_PORT_80 = 'http://127.0.0.1:80';
/** The exporter on every interface. */
const ON_ALL = 'http://127.0.0.1:9115';

/**
 * A (127.0.0.2:80), B (127.0.0.1:8080, beside the exporter), C (https, 127.0.0.1:443) and a stand-in proxy
 * (127.0.0.2:3128) that says which request line it got. `?to=URL` answers a redirect there.
 */
const SERVERS = (certFile: string, keyFile: string) => `
const http = require('node:http');
const https = require('node:https');
const fs = require('node:fs');
const handler = (name) => (request, response) => {
  const to = new URL(request.url, 'http://x').searchParams.get('to');
  if (to) response.writeHead(302, { Location: to });
  response.end(name + ' ' + request.method + ' ' + request.url);
};
const ready = () => console.log('listening');
http.createServer(handler('served by 127.0.0.2:80')).listen(80, '127.0.0.2', ready);
http.createServer(handler('served by 127.0.0.1:8080')).listen(8080, '127.0.0.1', ready);
https.createServer({ cert: fs.readFileSync(${JSON.stringify(certFile)}), key: fs.readFileSync(${JSON.stringify(keyFile)}) }, handler('served by 127.0.0.1:443')).listen(443, '127.0.0.1', ready);
http.createServer(handler('proxied')).listen(3128, '127.0.0.2', ready);`;

const TLS_SKIP = { insecure_skip_verify: true };

const CONFIG = stringify({
  allowed_targets: { deny_self_and_metadata: true },
  modules: {
    // Passes only when the last hop reached A itself.
    http_back_to_a: { prober: 'http', timeout: '5s', http: { preferred_ip_protocol: 'ip4', fail_if_body_not_matches_regexp: ['^served by 127\\.0\\.0\\.2:80 '] } },
    http_any: { prober: 'http', timeout: '5s', http: { tls_config: TLS_SKIP } },
    http_proxy_resolves: { prober: 'http', timeout: '5s', http: { proxy_url: 'http://127.0.0.2:3128', skip_resolve_phase_with_proxy: true } },
    http_proxy: {
      prober: 'http',
      timeout: '5s',
      http: { proxy_url: 'http://127.0.0.2:3128', preferred_ip_protocol: 'ip4', fail_if_body_not_matches_regexp: ['^proxied GET http://127\\.0\\.0\\.2/path\\?q=1$'] },
    },
    tcp_any: { prober: 'tcp', timeout: '5s' },
  },
});

const runs = rootHere();

(runs ? describeWithBinaries([...NAMESPACE_BINARIES, OPENSSL]) : describe.skip)('allowed_targets against hostile targets', () => {
  let tls: TlsFixtures;
  let namespace: DnsNamespace;

  const get = (url: string): Promise<Reply> => namespace.get(url);
  const probe = (exporter: string, module: string, target: string): Promise<Reply> => get(`${exporter}/probe?module=${module}&target=${encodeURIComponent(target)}`);
  const refusedCount = async (exporter: string, module: string, reason: string): Promise<number> =>
    metricValue(parseMetrics((await get(`${exporter}/metrics`)).body), 'probekit_exporter_targets_refused_total', { module, reason }) ?? 0;
  const startExporter = async (listen: string, base: string): Promise<void> => {
    const command = [process.execPath, ...FROM_SOURCE, OUR_EXPORTER_MAIN, `--config.file=${join(namespace.dir, 'blackbox.yml')}`, `--web.listen-address=${listen}`];
    const exporter = await namespace.startIn(command, () => true, 'the exporter', true);
    await waitUntil(
      async () => (await get(`${base}/-/healthy`)).status === 200,
      () => `the exporter on ${listen}: ${exporter.output()}`,
    );
  };

  beforeAll(async () => {
    tls = makeTlsFixtures();
    namespace = await startDnsNamespace({ 'a.test': '127.0.0.2', 'b.test': '127.0.0.1', 'self.test': '127.0.0.1', 'metadata.test': '169.254.169.254', 'nat64.test': '64:ff9b::a9fe:a9fe' });
    writeFileSync(join(namespace.dir, 'blackbox.yml'), CONFIG);
    await namespace.startIn([process.execPath, '-e', SERVERS(tls.serverCertFile, tls.serverKeyFile)], (output) => output.split('listening').length === 5, 'the servers');
    await startExporter('127.0.0.1:80', ON_PORT_80);
    await startExporter(':9115', ON_ALL);
  }, 300_000);

  afterAll(async () => {
    await namespace?.stop();
    tls?.cleanup();
  });

  it('sends the third hop of A -> B -> A to A, not to B’s address at A’s port (the exporter itself, there)', async () => {
    const back = `http://a.test/final?${new URLSearchParams({ x: '1' })}`;
    const viaB = `http://b.test:8080/?${new URLSearchParams({ to: back })}`;
    const reply = await probe(ON_PORT_80, 'http_back_to_a', `http://a.test/?${new URLSearchParams({ to: viaB })}`);
    const samples = parseMetrics(reply.body);
    expect({ success: metricValue(samples, 'probe_success'), redirects: metricValue(samples, 'probe_http_redirects') }).toEqual({ success: 1, redirects: 2 });
  });

  it('refuses a hop that comes back to a host at the exporter’s own port, however the chain got there', async () => {
    const before = await refusedCount(ON_PORT_80, 'http_any', 'exporter_itself');
    for (const last of ['http://self.test/metrics', 'http://b.test/metrics', 'http://0x7f000001/metrics', 'http://[::ffff:127.0.0.1]/metrics', 'http://self.test./metrics', '/metrics']) {
      // B sends the probe on to `last` (a relative one to B's own host, at port 80).
      const viaB = `http://b.test:8080/?${new URLSearchParams({ to: last.startsWith('/') ? `http://b.test${last}` : last })}`;
      const reply = await probe(ON_PORT_80, 'http_any', `http://a.test/?${new URLSearchParams({ to: viaB })}`);
      const samples = parseMetrics(reply.body);
      expect({ last, success: metricValue(samples, 'probe_success'), refused: metricValue(samples, 'probe_failure_reason', { reason: 'target refused' }) }).toEqual({ last, success: 0, refused: 1 });
    }
    expect(await refusedCount(ON_PORT_80, 'http_any', 'exporter_itself')).toBe(before + 6);
  });

  it('checks a change of scheme between default ports: https://self.test/ -> http://self.test/ is the exporter at port 80', async () => {
    const before = await refusedCount(ON_PORT_80, 'http_any', 'exporter_itself');
    const reply = await probe(ON_PORT_80, 'http_any', `https://self.test/?${new URLSearchParams({ to: 'http://self.test/metrics' })}`);
    const samples = parseMetrics(reply.body);
    expect({ success: metricValue(samples, 'probe_success'), refused: metricValue(samples, 'probe_failure_reason', { reason: 'target refused' }) }).toEqual({ success: 0, refused: 1 });
    expect(await refusedCount(ON_PORT_80, 'http_any', 'exporter_itself')).toBe(before + 1);
    // The same change to another port is no business of the allow-list.
    const elsewhere = await probe(ON_PORT_80, 'http_any', `https://self.test/?${new URLSearchParams({ to: 'http://self.test:8080/' })}`);
    expect(metricValue(parseMetrics(elsewhere.body), 'probe_success')).toBe(1);
  });

  it('refuses every name a proxy would resolve under deny_self_and_metadata, as networks does', async () => {
    const before = await refusedCount(ON_PORT_80, 'http_proxy_resolves', 'address_not_resolved');
    for (const target of ['http://metadata.test/', 'http://self.test/metrics', 'http://a.test/']) {
      expect(await probe(ON_PORT_80, 'http_proxy_resolves', target)).toEqual({
        status: 403,
        body: `target refused: host ${JSON.stringify(new URL(target).hostname)} is resolved by the proxy, not the exporter, so allowed_targets.deny_self_and_metadata cannot be checked; set skip_resolve_phase_with_proxy: false\n`,
      });
    }
    expect(await refusedCount(ON_PORT_80, 'http_proxy_resolves', 'address_not_resolved')).toBe(before + 3);
    // An IP literal is the address the proxy dials: checked as one.
    expect((await probe(ON_PORT_80, 'http_proxy_resolves', 'http://169.254.169.254/')).status).toBe(403);
    expect(metricValue(parseMetrics((await probe(ON_PORT_80, 'http_proxy_resolves', 'http://127.0.0.2:8080/')).body), 'probe_success')).toBe(1);
  });

  it('hands a proxy the address it checked, not the name, so the proxy cannot resolve it to another', async () => {
    // The stand-in proxy answers with the request line it got; the module passes only when it holds the address.
    const reply = await probe(ON_PORT_80, 'http_proxy', 'http://a.test/path?q=1');
    expect(metricValue(parseMetrics(reply.body), 'probe_success')).toBe(1);
  });

  it.each([
    ['tcp_any', '2130706433:80'],
    ['tcp_any', '0x7f000001:80'],
    ['tcp_any', '0177.0.0.1:80'],
    ['tcp_any', '127.1:80'],
    ['tcp_any', '[::ffff:127.0.0.1]:80'],
    ['tcp_any', '[::ffff:7f00:1]:80'],
    ['tcp_any', '[0:0:0:0:0:ffff:127.0.0.1]:80'],
    ['tcp_any', '0.0.0.0:80'],
    ['tcp_any', '0:80'],
    ['tcp_any', '[::]:80'],
    ['tcp_any', 'self.test.:80'],
    ['tcp_any', 'SELF.TEST:80'],
    ['tcp_any', '169.254.169.254:80'],
    ['tcp_any', '2852039166:80'],
    ['tcp_any', '0xa9.0xfe.0xa9.0xfe:80'],
    ['tcp_any', '0251.0376.0251.0376:80'],
    ['tcp_any', '[::ffff:169.254.169.254]:80'],
    ['tcp_any', '[::ffff:a9fe:a9fe]:80'],
    ['tcp_any', '[fe80::1%lo]:80'],
    ['tcp_any', 'metadata.test.:80'],
    ['http_any', 'http://2130706433/metrics'],
    ['http_any', 'http://0x7f.1/metrics'],
    ['http_any', 'http://[::ffff:127.0.0.1]/metrics'],
    ['http_any', 'http://self.test./metrics'],
    ['http_any', 'http://alice:pw@self.test/metrics'],
    ['http_any', 'http://169.254.169.254/latest/meta-data/'],
    ['http_any', 'http://[::ffff:169.254.169.254]/'],
    ['http_any', 'http://2852039166/'],
    ['http_any', 'http://[fe80::a9fe:a9fe%25lo]/'],
    ['http_any', 'http://metadata.test./'],
    ['tcp_any', '[64:ff9b::a9fe:a9fe]:80'],
    ['tcp_any', '[::a9fe:a9fe]:80'],
    ['tcp_any', '[::ffff:0:a9fe:a9fe]:80'],
    ['tcp_any', '[2002:a9fe:a9fe::1]:80'],
    ['tcp_any', '[64:ff9b::7f00:1]:80'],
    ['tcp_any', 'nat64.test:80'],
    ['http_any', 'http://[64:ff9b::169.254.169.254]/'],
    ['http_any', 'http://nat64.test/latest/meta-data/'],
  ])('%s refuses %s, the exporter or a metadata address spelled another way', async (module, target) => {
    const reply = await probe(ON_PORT_80, module, target);
    expect({ target, status: reply.status }).toEqual({ target, status: 403 });
    expect(reply.body).toMatch(/exporter's own listener|link-local or cloud metadata address/);
  });

  it('counts an address an interface gains after the start as the exporter’s own at once, without a reload', async () => {
    await namespace.runIn(['ip', 'addr', 'add', '10.77.0.1/32', 'dev', 'lo']);
    await namespace.runIn(['ip', '-6', 'addr', 'add', 'fd00:77::1/128', 'dev', 'lo', 'nodad']);
    for (const target of ['10.77.0.1:9115', '[fd00:77::1]:9115', '[::ffff:10.77.0.1]:9115']) {
      const reply = await probe(ON_ALL, 'tcp_any', target);
      expect({ target, reply }).toEqual({
        target,
        reply: { status: 403, body: expect.stringContaining("port 9115 is the exporter's own listener, refused by allowed_targets.deny_self_and_metadata") as unknown },
      });
    }
    // Another port of the new address is not the exporter.
    expect((await probe(ON_ALL, 'tcp_any', '10.77.0.1:9116')).status).toBe(200);
  });
});
