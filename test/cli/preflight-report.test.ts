/** What `probekit test` reads from a probe's metrics for its DETAILS column, per prober, and how it writes them. */
import { detailsText, durationText, internalErrorNote, probeDetails, summarize, tableText } from '../../src/cli/preflight-report';

const NOW = 1_800_000_000;
const sample = (name: string, value: number, labels: Record<string, string> = {}) => ({ name, labels, value });

describe('probe details', () => {
  it('http over TLS: status, version, TLS version and whole days until the certificate expires', () => {
    const details = probeDetails(
      'http',
      {
        samples: [
          sample('probe_http_status_code', 200),
          sample('probe_http_version', 2),
          sample('probe_tls_version_info', 1, { version: 'TLS 1.3' }),
          sample('probe_ssl_earliest_cert_expiry', NOW + 89.5 * 86_400),
        ],
        log: [],
      },
      NOW,
    );
    expect(details).toEqual({ httpStatus: 200, httpVersion: 'HTTP/2.0', tlsVersion: 'TLS 1.3', certificateDaysLeft: 89 });
    expect(detailsText(details)).toBe('HTTP 200 HTTP/2.0, TLS 1.3, certificate 89 days');
  });

  it('an http probe that got no response says nothing rather than status 0', () => {
    expect(probeDetails('http', { samples: [sample('probe_http_status_code', 0), sample('probe_http_version', 0), sample('probe_ssl_earliest_cert_expiry', 0)], log: [] }, NOW)).toEqual({});
  });

  it('dns: the rcode the prober logged and the answer count', () => {
    const log = [{ level: 'info' as const, message: 'Got response', fields: { rcode: 'NXDOMAIN', answers: 0 } }];
    expect(detailsText(probeDetails('dns', { samples: [sample('probe_dns_answer_rrs', 0)], log }, NOW))).toBe('NXDOMAIN, 0 answers');
  });

  it('counts in words a person reads: 1 answer, 2 answers, 1 day', () => {
    expect(detailsText({ dnsRcode: 'NOERROR', dnsAnswers: 1 })).toBe('NOERROR, 1 answer');
    expect(detailsText({ dnsRcode: 'NOERROR', dnsAnswers: 2 })).toBe('NOERROR, 2 answers');
    expect(detailsText({ certificateDaysLeft: 1 })).toBe('certificate 1 day');
    expect(detailsText({ certificateDaysLeft: 0 })).toBe('certificate 0 days');
  });

  it('grpc: the serving status answered; icmp: the round trip', () => {
    const grpc = probeDetails(
      'grpc',
      { samples: [sample('probe_grpc_healthcheck_response', 0, { serving_status: 'SERVING' }), sample('probe_grpc_healthcheck_response', 1, { serving_status: 'NOT_SERVING' })], log: [] },
      NOW,
    );
    expect(detailsText(grpc)).toBe('NOT_SERVING');
    const icmp = probeDetails('icmp', { samples: [sample('probe_icmp_duration_seconds', 0.000421, { phase: 'rtt' }), sample('probe_icmp_duration_seconds', 0.01, { phase: 'setup' })], log: [] }, NOW);
    expect(detailsText(icmp)).toBe('round trip 0.421 ms');
  });
});

describe('durations', () => {
  it.each([
    [0, '0 ms'],
    [0.0000421, '0.0421 ms'],
    [0.000421, '0.421 ms'],
    [0.0123456, '12.3 ms'],
    [0.0012345, '1.23 ms'],
    [0.1234, '123 ms'],
    [0.9996, '1000 ms'],
    [2.5, '2500 ms'],
    [9.9994, '9999 ms'],
    [12.345, '12.3 s'],
    [125.4, '125 s'],
  ])('%d s is %s', (seconds, text) => {
    expect(durationText(seconds)).toBe(text);
  });
});

describe('the note of an internal error', () => {
  const addonMissing = {
    level: 'error' as const,
    message: 'The ICMP addon is missing; icmp probes cannot run',
    fields: { err: 'the ICMP addon cannot be loaded from /x: no such file; copy icmp_socket.node into /x' },
  };

  it("is the cause the probe's log gives, shown after the reason; a target's own failure has none", () => {
    const note = internalErrorNote({ failure: { reason: 'internal error' }, log: [{ level: 'debug', message: 'Beginning probe', fields: {} }, addonMissing] });
    expect(note).toBe('the ICMP addon cannot be loaded from /x: no such file; copy icmp_socket.node into /x');
    expect(internalErrorNote({ failure: { reason: 'connection refused' }, log: [addonMissing] })).toBeUndefined();
    const result = {
      job: 'ping',
      target: '127.0.0.1',
      module: 'icmp',
      prober: 'icmp',
      skipped: false,
      success: false,
      durationSeconds: 0.001,
      failure: { reason: 'internal error' as const },
      note,
      details: {},
    };
    expect(tableText([result], summarize([result], 0.1)).split('\n')[1]).toMatch(/ FAIL .* internal error: the ICMP addon cannot be loaded from \/x: no such file; copy icmp_socket\.node into \/x$/);
  });
});
