/**
 * The tcp, dns, icmp and grpc sections of the config, through the exporter's loader: upstream's invalid
 * test configs for these probers (its config/testdata/invalid-*) are refused with a line naming the
 * field, and defaults are upstream's.
 */
import { ConfigError, parseConfig } from '../../src/config/load';
import { moduleSchema } from '../../src/config/schema';

function problems(yaml: string): string {
  try {
    parseConfig(yaml, 'blackbox.yml');
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the config was accepted');
}

const moduleWith = (prober: string, section: string): string => `modules:\n  m:\n    prober: ${prober}\n    ${section}\n`;

describe('prober config sections', () => {
  it.each([
    ['a dns query_class that does not exist', 'dns', 'dns: { query_name: example.com, query_class: X, query_type: A }', /^blackbox\.yml:4: modules\.m\.dns\.query_class: the text "X" is not allowed; use one of IN, CS, CH, HS, ANY$/],
    ['a dns query_type that does not exist', 'dns', 'dns: { query_name: example.com, query_class: CH, query_type: X }', /^blackbox\.yml:4: modules\.m\.dns\.query_type: the text "X" is not allowed; use one of A, AAAA, /],
    ['a dns module without query_name', 'dns', 'dns: { preferred_ip_protocol: ip6, validate_answer_rrs: { fail_if_matches_regexp: [test] } }', /^blackbox\.yml:4: modules\.m\.dns\.query_name: is required$/],
    ['an icmp ttl above 255', 'icmp', 'icmp: { ttl: 256 }', /^blackbox\.yml:4: modules\.m\.icmp\.ttl: must be at most 255$/],
    ['a negative icmp ttl', 'icmp', 'icmp: { ttl: -1 }', /^blackbox\.yml:4: modules\.m\.icmp\.ttl: must be at least 0$/],
    ['a tcp expect regexp that does not compile', 'tcp', 'tcp: { query_response: [{ expect: ":[" }, { send: ". STARTTLS" }] }', /^blackbox\.yml:4: modules\.m\.tcp\.query_response\[0\]\.expect: could not compile regular expression ":\["/],
    ['a dns validator regexp that does not compile', 'dns', 'dns: { query_name: a, validate_additional_rrs: { fail_if_none_matches_regexp: ["(a"] } }', /modules\.m\.dns\.validate_additional_rrs\.fail_if_none_matches_regexp\[0\]: could not compile/],
    ['an rcode name that does not exist', 'dns', 'dns: { query_name: a, valid_rcodes: [NOTANRCODE] }', /modules\.m\.dns\.valid_rcodes\[0\]: the text "NOTANRCODE" is not allowed; use one of NOERROR, /],
    ['dns_over_tls over udp', 'dns', 'dns: { query_name: a, dns_over_tls: true }', /modules\.m\.dns\.transport_protocol: dns_over_tls needs transport_protocol: tcp/],
    ['an unknown grpc field', 'grpc', 'grpc: { service: a, tls_confg: {} }', /^blackbox\.yml:4: modules\.m\.grpc\.tls_confg: unknown field; did you mean "tls_config"\?$/],
    ['expect and expect_bytes in one step', 'tcp', 'tcp: { query_response: [{ expect: "^220", expect_bytes: "220" }] }', /modules\.m\.tcp\.query_response\[0\]\.expect_bytes: expect and expect_bytes are mutually exclusive/],
    ['a probe_expect_info label name Prometheus refuses', 'tcp', 'tcp: { query_response: [{ expect: "(.*)", labels: [{ name: "bad-name", value: "${1}" }] }] }', /modules\.m\.tcp\.query_response\[0\]\.labels\[0\]\.name: must be a Prometheus label name/],
  ])('refuses %s', (_name, prober, section, message) => {
    expect(problems(moduleWith(prober, section))).toMatch(message);
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
