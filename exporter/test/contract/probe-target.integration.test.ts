/**
 * Why a probe failed, for every failure class, against real servers on loopback: through the contract's
 * probeTarget (what `probekit test` calls: the exporter's own probe path, the reason metric included) and
 * through /probe of a running exporter, where the reason is a metric and a line of the debug output.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFailure, FAILURE_REASON_METRIC, FAILURE_REASONS, probeTarget, type TargetProbeResult } from '../../src/contract';
import type { ModuleInput } from '../../src/contract';
import { Logger } from '../../src/log';
import { Exporter } from '../../src/server/exporter-server';
import { startFailureTargets, type FailureTargets } from '../../loopback/failure-targets';
import { metricValue, parseMetrics } from '../../loopback/metrics-text';
import { ZONE } from '../../loopback/dns-test-server';
import { handlesLeftAfter, openHandles } from '../../../test/support/open-handles';

let targets: FailureTargets;
let webUrl: string;
let secureUrl: string;

beforeAll(async () => {
  targets = await startFailureTargets();
  ({ webUrl, untrustedUrl: secureUrl } = targets);
});

afterAll(() => targets.close());

const http = (settings: NonNullable<ModuleInput['http']> = {}, timeout = '2s'): ModuleInput => ({ prober: 'http', timeout, http: { preferred_ip_protocol: 'ip4', ...settings } });

function reasonSamples(result: TargetProbeResult) {
  return result.samples.filter((sample) => sample.name === FAILURE_REASON_METRIC.name);
}

describe('failure reasons through probeTarget', () => {
  const cases: Array<{ name: string; make: () => [ModuleInput, string]; reason: string; phase?: string; detail?: string }> = [
    { name: 'a closed port', make: () => [http(), `http://127.0.0.1:${targets.closedPort}/`], reason: 'connection refused' },
    { name: 'a name that does not resolve', make: () => [{ prober: 'tcp', timeout: '2s', tcp: { preferred_ip_protocol: 'ip4' } }, 'no-such-host.invalid:80'], reason: 'resolve failed' },
    { name: 'a stalled server', make: () => [http({}, '1s'), `${webUrl}/stall`], reason: 'timed out', phase: 'response' },
    {
      name: 'a server that never says its banner',
      make: () => [{ prober: 'tcp', timeout: '1s', tcp: { query_response: [{ expect: '^220' }] } }, `127.0.0.1:${targets.silent.port}`],
      reason: 'timed out',
      phase: 'response',
    },
    { name: 'a certificate from a CA the probe does not trust', make: () => [http(), `${secureUrl}/`], reason: 'certificate not valid' },
    {
      name: 'TLS towards a server that speaks plain HTTP',
      make: () => [http({ tls_config: { insecure_skip_verify: true } }), `${webUrl.replace('http:', 'https:')}/`],
      reason: 'TLS handshake failed',
    },
    { name: 'a status outside 2xx', make: () => [http(), `${webUrl}/missing`], reason: 'HTTP status not accepted' },
    { name: 'a body regexp', make: () => [http({ fail_if_body_not_matches_regexp: ['goodbye'] }), `${webUrl}/`], reason: 'body or header regexp failed' },
    {
      name: 'an HTTP version not accepted',
      make: () => [http({ valid_http_versions: ['HTTP/2.0'] }), `${webUrl}/`],
      reason: 'HTTP response not accepted',
      detail: 'the server answered HTTP/1.1; valid_http_versions allows HTTP/2.0',
    },
    {
      name: 'a 200 over HTTP/1.0 where the module wants 1.1',
      make: () => [http({ valid_http_versions: ['HTTP/1.1', 'HTTP/2.0'] }), `http://127.0.0.1:${targets.http10.port}/`],
      reason: 'HTTP response not accepted',
      detail: 'the server answered HTTP/1.0; valid_http_versions allows HTTP/1.1, HTTP/2.0',
    },
    {
      name: 'a banner that does not match',
      make: () => [{ prober: 'tcp', timeout: '2s', tcp: { query_response: [{ expect: '^SSH-' }] } }, `127.0.0.1:${targets.sayAndClose.port}`],
      reason: 'query response not matched',
    },
    {
      name: 'a DNS rcode',
      make: () => [{ prober: 'dns', timeout: '2s', dns: { query_name: `nothing.${ZONE}`, preferred_ip_protocol: 'ip4' } }, `127.0.0.1:${targets.dns.port}`],
      reason: 'DNS rcode not accepted',
    },
    {
      name: 'DNS records',
      make: () => [
        { prober: 'dns', timeout: '2s', dns: { query_name: `www.${ZONE}`, preferred_ip_protocol: 'ip4', validate_answer_rrs: { fail_if_not_matches_regexp: ['198\\.51\\.100\\.'] } } },
        `127.0.0.1:${targets.dns.port}`,
      ],
      reason: 'DNS records not accepted',
    },
    {
      name: 'a gRPC service that is down',
      make: () => [{ prober: 'grpc', timeout: '2s', grpc: { service: 'down', preferred_ip_protocol: 'ip4' } }, `127.0.0.1:${targets.grpc.port}`],
      reason: 'gRPC not serving',
    },
    {
      name: 'a gRPC service the server does not know',
      make: () => [{ prober: 'grpc', timeout: '2s', grpc: { service: 'unknown', preferred_ip_protocol: 'ip4' } }, `127.0.0.1:${targets.grpc.port}`],
      reason: 'gRPC not serving',
    },
    { name: 'a ca_file that does not exist', make: () => [http({ tls_config: { ca_file: '/nonexistent/ca.pem' } }), `${secureUrl}/`], reason: 'target or module not usable' },
  ];

  it.each(cases)('$name: $reason', async ({ make, reason, phase, detail }) => {
    const [module, target] = make();
    const result = await probeTarget('m', module, target);
    expect(result.success).toBe(false);
    expect(result.failure).toEqual({ reason, ...(phase === undefined ? {} : { phase }), ...(detail === undefined ? {} : { detail }) });
    expect(reasonSamples(result)).toEqual([{ name: FAILURE_REASON_METRIC.name, labels: phase === undefined ? { reason } : { reason, phase }, value: 1 }]);
    expect(FAILURE_REASONS).toContain(reason);
  });

  it("a version not accepted: the label is the reason's class, the detail is in the probe's log line and in words", async () => {
    const result = await probeTarget('m', http({ valid_http_versions: ['HTTP/1.1'] }), `http://127.0.0.1:${targets.http10.port}/`);
    const detail = 'the server answered HTTP/1.0; valid_http_versions allows HTTP/1.1';
    expect(reasonSamples(result)).toEqual([{ name: FAILURE_REASON_METRIC.name, labels: { reason: 'HTTP response not accepted' }, value: 1 }]);
    expect(result.samples.filter((sample) => ['probe_http_status_code', 'probe_http_version'].includes(sample.name)).map((sample) => [sample.name, sample.value])).toEqual([
      ['probe_http_status_code', 200],
      ['probe_http_version', 1],
    ]);
    expect(result.log.find((entry) => entry.message === 'Probe failed')?.fields).toMatchObject({ reason: 'HTTP response not accepted', detail });
    expect(result.log.find((entry) => entry.message === 'Invalid HTTP version number')?.fields).toMatchObject({ version: 'HTTP/1.0' });
    expect(describeFailure(result.failure!)).toBe(`HTTP response not accepted: ${detail}`);
  });

  it('gives no reason for a probe that succeeded, of any prober', async () => {
    const runs = await Promise.all([
      probeTarget('m', http(), `${webUrl}/`),
      probeTarget('m', { ...http({ tls_config: { ca_file: targets.tls.caFile } }) }, `${secureUrl.replace('127.0.0.1', 'localhost')}/`),
      probeTarget('m', { prober: 'tcp', timeout: '2s', tcp: { query_response: [{ expect: '^220' }] } }, `127.0.0.1:${targets.sayAndClose.port}`),
      probeTarget('m', { prober: 'dns', timeout: '2s', dns: { query_name: `www.${ZONE}`, preferred_ip_protocol: 'ip4' } }, `127.0.0.1:${targets.dns.port}`),
      probeTarget('m', { prober: 'grpc', timeout: '2s', grpc: { preferred_ip_protocol: 'ip4' } }, `127.0.0.1:${targets.grpc.port}`),
    ]);
    for (const run of runs) {
      expect(run).toMatchObject({ success: true });
      expect(run.failure).toBeUndefined();
      expect(reasonSamples(run)).toEqual([]);
    }
  });

  it('stops at once when its signal fires, with every socket closed', async () => {
    const before = openHandles();
    const controller = new AbortController();
    const running = probeTarget('m', http({}, '30s'), `${webUrl}/stall`, { signal: controller.signal, scrapeTimeoutSeconds: 30 });
    setTimeout(() => controller.abort(), 200);
    const result = await running;
    // The server stalls for good and the deadline is 30 s away: the signal ended the probe, as its reason says.
    expect(result.failure).toEqual({ reason: 'probe interrupted' });
    expect(await handlesLeftAfter(before)).toEqual([]);
  });

  it('refuses a module that is not valid, naming the field', async () => {
    await expect(probeTarget('broken', { prober: 'http', http: { valid_status_codes: 'two hundred' } }, `${webUrl}/`)).rejects.toThrow(/modules\.broken\.http\.valid_status_codes/);
  });
});

describe('failure reasons on /probe', () => {
  let exporter: Exporter;
  let base: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-reasons-'));
    const configFile = join(dir, 'blackbox.yml');
    writeFileSync(configFile, `modules:\n  http_2xx:\n    prober: http\n    timeout: 1s\n    http:\n      preferred_ip_protocol: ip4\n`);
    exporter = new Exporter({ configFile, timeoutOffsetSeconds: 0.5, historyLimit: 3, log: new Logger('error', () => undefined) });
    await exporter.reload();
    base = `http://127.0.0.1:${await exporter.listen('127.0.0.1', 0)}`;
  });
  afterAll(() => exporter.close());

  const scrape = async (target: string, debug = false) => (await fetch(`${base}/probe?module=http_2xx&target=${encodeURIComponent(target)}${debug ? '&debug=true' : ''}`)).text();

  it('is a metric of the failed probe, with the phase of a timeout, and absent on success', async () => {
    const refused = parseMetrics(await scrape(`http://127.0.0.1:${targets.closedPort}/`));
    expect(metricValue(refused, 'probe_success')).toBe(0);
    expect(metricValue(refused, FAILURE_REASON_METRIC.name, { reason: 'connection refused' })).toBe(1);
    const stalled = parseMetrics(await scrape(`${webUrl}/stall`));
    expect(metricValue(stalled, FAILURE_REASON_METRIC.name, { reason: 'timed out', phase: 'response' })).toBe(1);
    const fine = parseMetrics(await scrape(`${webUrl}/`));
    expect(metricValue(fine, 'probe_success')).toBe(1);
    expect(fine.filter((sample) => sample.name === FAILURE_REASON_METRIC.name)).toEqual([]);
  });

  it('is in the debug output: the log line and the metric', async () => {
    const debug = await scrape(`${webUrl}/missing`, true);
    expect(debug).toMatch(/msg="Probe failed" .*reason="HTTP status not accepted"/);
    expect(debug).toContain(`${FAILURE_REASON_METRIC.name}{reason="HTTP status not accepted"} 1`);
  });
});
