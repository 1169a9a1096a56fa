/** The tcp section: refused as upstream refuses it, defaults, compiled form. */
import { parseConfig } from '../../../src/config/load';
import { PROBER_DEFINITIONS } from '../../../src/probers/registry';
import { configProblems, oneModule } from '../../support/config-problems';

describe('the tcp section', () => {
  it.each([
    [
      'an expect regexp that does not compile',
      'tcp: { query_response: [{ expect: ":[" }, { send: ". STARTTLS" }] }',
      /^blackbox\.yml:4: modules\.m\.tcp\.query_response\[0\]\.expect: could not compile regular expression ":\["/,
    ],
    [
      'expect and expect_bytes in one step',
      'tcp: { query_response: [{ expect: "^220", expect_bytes: "220" }] }',
      /^blackbox\.yml:4: modules\.m\.tcp\.query_response\[0\]\.expect_bytes: expect and expect_bytes are mutually exclusive/,
    ],
    [
      'a probe_expect_info label name Prometheus refuses',
      'tcp: { query_response: [{ expect: "(.*)", labels: [{ name: "bad-name", value: "${1}" }] }] }',
      /^blackbox\.yml:4: modules\.m\.tcp\.query_response\[0\]\.labels\[0\]\.name: must be a Prometheus label name$/,
    ],
  ])('refuses %s', (_name, section, message) => {
    expect(configProblems(oneModule('tcp', section))).toEqual([expect.stringMatching(message)]);
  });

  it('applies upstream defaults', () => {
    expect(PROBER_DEFINITIONS.tcp.schema.parse({ query_response: [{ send: 'x' }] })).toMatchObject({ tls: false, query_response: [{ send: 'x', starttls: false }] });
  });

  it('compiles each step: the pattern, the bytes to expect, what to send', () => {
    const module = parseConfig(
      oneModule('tcp', 'tcp: { query_response: [{ expect: "^220 (\\\\S+)", send: "EHLO ${1}" }, { expect_bytes: !!binary AAE=, starttls: true }, { expect_bytes: "" }] }'),
      'blackbox.yml',
    ).modules.m;
    if (module.prober !== 'tcp') throw new Error('not a tcp module');
    const [greeting, binary, empty] = module.tcp.steps;
    expect(greeting.expect?.regexp.exec('220 mx.example ESMTP')?.group(1)).toBe('mx.example');
    expect(greeting).toMatchObject({ send: 'EHLO ${1}', startTls: false, expectBytes: undefined });
    expect(binary).toMatchObject({ expectBytes: Buffer.from([0, 1]), startTls: true });
    // Empty text expects nothing, as upstream: no step waits for zero bytes.
    expect(empty.expectBytes).toBeUndefined();
  });
});
