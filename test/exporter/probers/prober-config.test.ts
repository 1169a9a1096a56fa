/**
 * The tcp, dns, icmp and grpc sections of the config: upstream's invalid test configs for these probers
 * (its config/testdata/invalid-*) are refused with a message naming the field, and defaults are upstream's.
 */
import { parse } from 'yaml';
import { configSchema, moduleSchema } from '../../../exporter/src/config/schema';

function refusal(yaml: string): string {
  const result = configSchema.safeParse(parse(yaml));
  if (result.success) throw new Error('the config was accepted');
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n');
}

describe('prober config sections', () => {
  it.each([
    ['a dns query_class that does not exist', 'dns: { query_name: example.com, query_class: X, query_type: A }', /modules\.m\.dns\.query_class: .*"IN"/],
    ['a dns query_type that does not exist', 'dns: { query_name: example.com, query_class: CH, query_type: X }', /modules\.m\.dns\.query_type: .*"A"/],
    ['a dns module without query_name', 'dns: { preferred_ip_protocol: ip6, validate_answer_rrs: { fail_if_matches_regexp: [test] } }', /modules\.m\.dns\.query_name: query name must be set/],
    ['an icmp ttl above 255', 'icmp: { ttl: 256 }', /modules\.m\.icmp\.ttl: must be between 0 and 255/],
    ['a negative icmp ttl', 'icmp: { ttl: -1 }', /modules\.m\.icmp\.ttl: must be between 0 and 255/],
    ['a tcp expect regexp that does not compile', 'tcp: { query_response: [{ expect: ":[" }, { send: ". STARTTLS" }] }', /modules\.m\.tcp\.query_response\.0\.expect: is not a valid regular expression/],
    ['a dns validator regexp that does not compile', 'dns: { query_name: a, validate_additional_rrs: { fail_if_none_matches_regexp: ["(a"] } }', /validate_additional_rrs\.fail_if_none_matches_regexp\.0: is not a valid regular expression/],
    ['an rcode name that does not exist', 'dns: { query_name: a, valid_rcodes: [NOTANRCODE] }', /modules\.m\.dns\.valid_rcodes\.0/],
    ['dns_over_tls over udp', 'dns: { query_name: a, dns_over_tls: true }', /modules\.m\.dns\.transport_protocol: dns_over_tls needs transport_protocol: tcp/],
    ['an unknown grpc field', 'grpc: { service: a, tls_confg: {} }', /modules\.m\.grpc: .*tls_confg/],
    ['a probe_expect_info label name Prometheus refuses', 'tcp: { query_response: [{ expect: "(.*)", labels: [{ name: "bad-name", value: "${1}" }] }] }', /labels\.0\.name: must be a Prometheus label name/],
  ])('refuses %s', (_name, section, message) => {
    expect(refusal(`modules:\n  m:\n    prober: x\n    ${section}\n`.replace('prober: x', `prober: ${section.split(':')[0]}`))).toMatch(message);
  });

  it('applies upstream defaults', () => {
    const icmp = moduleSchema.parse({ prober: 'icmp', icmp: {} }).icmp;
    expect(icmp).toMatchObject({ ttl: 64, dont_fragment: false, preferred_ip_protocol: 'ip6', ip_protocol_fallback: true });
    const dns = moduleSchema.parse({ prober: 'dns', dns: { query_name: 'a' } }).dns;
    expect(dns).toMatchObject({ query_type: 'ANY', query_class: 'IN', transport_protocol: 'udp', recursion_desired: true, valid_rcodes: ['NOERROR'] });
    const grpc = moduleSchema.parse({ prober: 'grpc', grpc: {} }).grpc;
    expect(grpc).toMatchObject({ service: '', tls: false, ip_protocol_fallback: true });
    const tcp = moduleSchema.parse({ prober: 'tcp', tcp: { query_response: [{ send: 'x' }] } }).tcp;
    expect(tcp).toMatchObject({ tls: false, query_response: [{ send: 'x', starttls: false }] });
  });
});
