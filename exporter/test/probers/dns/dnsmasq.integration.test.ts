/**
 * The dns prober against a DNS server we did not write: Debian's dnsmasq on a loopback port, with a
 * config this test writes. Our answers and the reference exporter's must agree, and match what the
 * zone says, over UDP and TCP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describeWithBinaries } from '../../../../test/support/integration';
import { metricValue, upstreamSamples, type Sample } from '../../../loopback/metrics-text';
import { REFERENCE_EXPORTER, freePort, startPair, type ExporterPair } from '../../../loopback/reference-exporter';

const DNSMASQ = '/usr/sbin/dnsmasq';

const withoutTimes = (samples: readonly Sample[]): string[] =>
  upstreamSamples(samples)
    .filter((sample) => !/duration_seconds|lookup_time_seconds/.test(sample.name))
    .map((sample) => `${sample.name}${JSON.stringify(sample.labels)} ${sample.value}`)
    .sort();

describeWithBinaries([DNSMASQ, REFERENCE_EXPORTER])('dns prober against dnsmasq', () => {
  let dir: string;
  let dnsmasq: ChildProcess;
  let port: number;
  let exporters: ExporterPair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-dnsmasq-'));
    port = await freePort();
    const config = join(dir, 'dnsmasq.conf');
    writeFileSync(
      config,
      [
        `port=${port}`,
        'listen-address=127.0.0.1',
        'bind-interfaces',
        'no-resolv',
        'no-hosts',
        'local=/dnsmasq.test/',
        'address=/www.dnsmasq.test/192.0.2.7',
        'mx-host=dnsmasq.test,mail.dnsmasq.test,20',
        'txt-record=dnsmasq.test,"hello world"',
        'srv-host=_ldap._tcp.dnsmasq.test,ldap.dnsmasq.test,389,1,2',
        '',
      ].join('\n'),
    );
    dnsmasq = spawn(DNSMASQ, ['--keep-in-foreground', `--conf-file=${config}`, '--pid-file=', '--log-facility=-'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    dnsmasq.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      log += chunk;
    });
    for (let tries = 0; tries < 100 && !log.includes('started'); tries += 1) await new Promise((done) => setTimeout(done, 50));
    if (!log.includes('started')) throw new Error(`dnsmasq did not start: ${log}`);
    const module = (dns: Record<string, unknown>) => ({ prober: 'dns', timeout: '3s', dns: { preferred_ip_protocol: 'ip4', ...dns } });
    exporters = await startPair(
      stringify({
        modules: {
          a: module({ query_name: 'www.dnsmasq.test', query_type: 'A', validate_answer_rrs: { fail_if_not_matches_regexp: ['^www\\.dnsmasq\\.test\\.\\t\\d+\\tIN\\tA\\t192\\.0\\.2\\.7$'] } }),
          a_tcp: module({ query_name: 'www.dnsmasq.test', query_type: 'A', transport_protocol: 'tcp' }),
          mx: module({ query_name: 'dnsmasq.test', query_type: 'MX', validate_answer_rrs: { fail_if_none_matches_regexp: ['\\tMX\\t20 mail\\.dnsmasq\\.test\\.$'] } }),
          txt: module({ query_name: 'dnsmasq.test', query_type: 'TXT', validate_answer_rrs: { fail_if_not_matches_regexp: ['\\tTXT\\t"hello world"$'] } }),
          srv: module({ query_name: '_ldap._tcp.dnsmasq.test', query_type: 'SRV', validate_answer_rrs: { fail_if_not_matches_regexp: ['\\tSRV\\t1 2 389 ldap\\.dnsmasq\\.test\\.$'] } }),
          nxdomain: module({ query_name: 'nope.dnsmasq.test', query_type: 'A' }),
          nxdomain_valid: module({ query_name: 'nope.dnsmasq.test', query_type: 'A', valid_rcodes: ['NXDOMAIN'] }),
        },
      }),
    );
  });

  afterAll(async () => {
    await exporters?.stop();
    if (dnsmasq && dnsmasq.exitCode === null) {
      dnsmasq.kill('SIGTERM');
      await once(dnsmasq, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['a', 1, 1],
    ['a_tcp', 1, 1],
    ['mx', 1, 1],
    ['txt', 1, 1],
    ['srv', 1, 1],
    ['nxdomain', 0, 0],
    ['nxdomain_valid', 1, 0],
  ])('%s: success %s with %s answers, as the reference says', async (module, success, answers) => {
    const { reference, ours } = await exporters.probeBoth({ module, target: `127.0.0.1:${port}` });
    expect(metricValue(ours.samples, 'probe_success')).toBe(success);
    expect(metricValue(ours.samples, 'probe_dns_answer_rrs')).toBe(answers);
    expect(withoutTimes(ours.samples)).toEqual(withoutTimes(reference.samples));
  });
});
