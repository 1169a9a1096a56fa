/** The dns section: refused as upstream refuses it (upstream's invalid-dns test configs), defaults, compiled form. */
import { PROBER_DEFINITIONS } from '../../../src/probers/registry';
import { configProblems, oneModule } from '../../support/config-problems';
import { parseConfig } from '../../../src/config/load';

describe('the dns section', () => {
  it.each([
    [
      'a query_class that does not exist',
      'dns: { query_name: example.com, query_class: X, query_type: A }',
      /^blackbox\.yml:4: modules\.m\.dns\.query_class: the text "X" is not allowed; use one of IN, CS, CH, HS, ANY$/,
    ],
    [
      'a query_type that does not exist',
      'dns: { query_name: example.com, query_class: CH, query_type: X }',
      /^blackbox\.yml:4: modules\.m\.dns\.query_type: the text "X" is not allowed; use one of A, AAAA, /,
    ],
    ['a section without query_name', 'dns: { preferred_ip_protocol: ip6, validate_answer_rrs: { fail_if_matches_regexp: [test] } }', /^blackbox\.yml:4: modules\.m\.dns\.query_name: is required$/],
    [
      'a validator regexp that does not compile',
      'dns: { query_name: a, validate_additional_rrs: { fail_if_none_matches_regexp: ["(a"] } }',
      /^blackbox\.yml:4: modules\.m\.dns\.validate_additional_rrs\.fail_if_none_matches_regexp\[0\]: could not compile/,
    ],
    [
      'an rcode name that does not exist',
      'dns: { query_name: a, valid_rcodes: [NOTANRCODE] }',
      /^blackbox\.yml:4: modules\.m\.dns\.valid_rcodes\[0\]: the text "NOTANRCODE" is not allowed; use one of NOERROR, /,
    ],
    ['dns_over_tls over udp', 'dns: { query_name: a, dns_over_tls: true }', /^blackbox\.yml:4: modules\.m\.dns\.transport_protocol: dns_over_tls needs transport_protocol: tcp$/],
  ])('refuses %s', (_name, section, message) => {
    expect(configProblems(oneModule('dns', section))).toEqual([expect.stringMatching(message)]);
  });

  it('applies upstream defaults', () => {
    expect(PROBER_DEFINITIONS.dns.schema.parse({ query_name: 'a' })).toMatchObject({
      query_type: 'ANY',
      query_class: 'IN',
      transport_protocol: 'udp',
      recursion_desired: true,
      valid_rcodes: ['NOERROR'],
    });
  });

  it('compiles the validators and the port a target without one gets', () => {
    const module = parseConfig(oneModule('dns', 'dns: { query_name: a, transport_protocol: tcp, dns_over_tls: true, validate_answer_rrs: { fail_if_all_match_regexp: ["^a"] } }'), 'blackbox.yml')
      .modules.m;
    if (module.prober !== 'dns') throw new Error('not a dns module');
    expect(module.dns).toMatchObject({ defaultPort: 853, overTls: true, transport: 'tcp', queryName: 'a', validateAuthority: undefined });
    expect(module.dns.validateAnswer?.failIfAllMatch.map((pattern) => pattern.regexp.test('abc'))).toEqual([true]);
    expect(module.dns.validateAnswer?.failIfMatches).toEqual([]);
  });
});
