import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, configText, loadConfigFile, parseConfig } from '../../src/config/load';
import type { CompiledModule } from '../../src/config/module';
import type { HttpSettings } from '../../src/probers/http/definition';
import { documentedModulesYaml } from '../support/documented-modules';
import { configProblems } from '../support/config-problems';
import { UPSTREAM_CONFIGS } from '../support/upstream-configs';

function httpOf(module: CompiledModule): HttpSettings {
  if (module.prober !== 'http') throw new Error(`module of prober ${module.prober}`);
  return module.http;
}

const problems = configProblems;

describe('config loading', () => {
  it('applies upstream defaults in one place, including the prober section', () => {
    const config = parseConfig('modules:\n  http_2xx:\n    prober: http\n    timeout: 5s\n', 'blackbox.yml');
    expect(config.modules.http_2xx.written.http).toMatchObject({
      preferred_ip_protocol: 'ip6',
      ip_protocol_fallback: true,
      follow_redirects: true,
      enable_http2: true,
      method: 'GET',
      tls_config: { insecure_skip_verify: false },
    });
    expect(parseConfig('modules:\n  m:\n    prober: http\n    http:\n', 'x.yml').modules.m.written.http?.method).toBe('GET');
  });

  it('accepts the documented http_2xx, http_2xx_with_header and http_post_2xx modules, with the deprecated no_follow_redirects', () => {
    const config = parseConfig(`modules:\n${documentedModulesYaml({ authentication: 'Bearer <ACCESS_TOKEN>', acceptLanguage: 'en-US', postBody: '{}' })}`, 'blackbox.yml');
    expect(Object.keys(config.modules)).toEqual(['http_2xx', 'http_2xx_with_header', 'http_post_2xx']);
    expect(config.modules.http_2xx.written.http?.no_follow_redirects).toBe(false);
    expect(httpOf(config.modules.http_2xx).followRedirects).toBe(true);
    expect(config.modules.http_post_2xx.written.http).toMatchObject({ method: 'POST', body: '{}', preferred_ip_protocol: 'ip4', ip_protocol_fallback: false });
  });

  it('refuses an unknown field with file, line and field name, and names the field it likely meant', () => {
    expect(problems('modules:\n  m:\n    prober: http\n    http:\n      method: GET\n      metod: POST\n')).toEqual(['blackbox.yml:6: modules.m.http.metod: unknown field; did you mean "method"?']);
    expect(problems('modules:\n  m:\n    prober: tcp\n    tcp:\n      tls_config:\n        insecure_skip_verfy: true\n')).toEqual([
      'blackbox.yml:6: modules.m.tcp.tls_config.insecure_skip_verfy: unknown field; did you mean "insecure_skip_verify"?',
    ]);
    expect(problems('modules:\n  m:\n    prober: http\n    colour: blue\n')).toEqual([
      'blackbox.yml:4: modules.m.colour: unknown field; remove it; the fields here are prober, timeout, http, tcp, icmp, dns, grpc, unix, allowed_targets',
    ]);
    expect(problems('modules: {}\nmodlues: {}\n')).toEqual(['blackbox.yml:2: modlues: unknown field; did you mean "modules"?']);
  });

  it('reports bad values at their line with the field path', () => {
    expect(problems('modules:\n  m:\n    prober: http\n    timeout: 5 seconds\n')).toEqual(['blackbox.yml:4: modules.m.timeout: must be a duration such as 5s, 1.5s, 1m30s or 500ms']);
    expect(problems('modules:\n  m:\n    prober: smtp\n')).toEqual(['blackbox.yml:3: modules.m.prober: the text "smtp" is not allowed; use one of http, tcp, icmp, dns, grpc, unix']);
    expect(problems('modules: [\n')[0]).toMatch(/^blackbox\.yml:\d+: /);
  });

  it('checks rules across fields', () => {
    expect(problems('modules:\n  m:\n    prober: http\n    tcp: {}\n')).toEqual(['blackbox.yml:4: modules.m.tcp: module has prober http but a tcp section; rename the section or the prober']);
    expect(problems('modules:\n  m:\n    prober: dns\n')).toEqual(['blackbox.yml:3: modules.m.prober: a dns module needs its dns section; add dns.query_name']);
    expect(problems('modules:\n  m:\n    prober: http\n    http:\n      enable_http3: true\n')).toEqual([
      'blackbox.yml:5: modules.m.http.enable_http3: enable_http3 is not supported by probekit-exporter (HTTP/3 needs a QUIC client, which Node does not have in its stable API); remove it',
    ]);
    expect(problems('modules:\n  m:\n    prober: http\n    http:\n      oauth2:\n        client_id: a\n        token_url: http://127.0.0.1/\n      bearer_token: x\n')).toEqual([
      'blackbox.yml:8: modules.m.http.bearer_token: set only one of oauth2, bearer_token',
    ]);
    expect(problems('modules:\n  m:\n    prober: http\n    http:\n      no_proxy: localhost\n')).toEqual(['blackbox.yml:5: modules.m.http.no_proxy: no_proxy needs proxy_url']);
    expect(problems('modules:\n  m:\n    prober: http\n    http:\n      http_headers:\n        Authorization:\n          values: [x]\n')[0]).toMatch(
      /Authorization cannot be set through http_headers/,
    );
    expect(problems('modules:\n  m:\n    prober: http\n    http:\n      body_size_limit: lots\n')[0]).toMatch(/body_size_limit: must be a size/);
  });

  it('makes file paths relative to the config file directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-config-'));
    writeFileSync(join(dir, 'blackbox.yml'), 'modules:\n  m:\n    prober: http\n    http:\n      body_file: body.json\n      tls_config:\n        ca_file: /abs/ca.pem\n');
    const config = await loadConfigFile(join(dir, 'blackbox.yml'));
    expect(config.modules.m.written.http?.body_file).toBe(join(dir, 'body.json'));
    expect(config.modules.m.written.http?.tls_config.ca_file).toBe('/abs/ca.pem');
    expect(httpOf(config.modules.m).request.body).toEqual({ file: join(dir, 'body.json') });
    expect(httpOf(config.modules.m).tls.caFile).toBe('/abs/ca.pem');
    await expect(loadConfigFile(join(dir, 'missing.yml'))).rejects.toThrow(/missing\.yml: cannot read the config file: ENOENT/);
  });
});

/**
 * The failure classes upstream's own config tests cover, each written here as a module of ours: every one
 * must be refused with a problem that names its file and line, and the field the fix is in.
 */
const REFUSED: ReadonlyArray<readonly [string, string, RegExp]> = [
  ['an unknown prober', 'prober: ping-pong\n    http: {}', /prober: the text "ping-pong" is not allowed; use one of http, /],
  ['a section without its prober', 'prober: tcp\n    http:\n      method: GET', /module has prober tcp but a http section/],
  ['an unknown field', 'prober: http\n    http:\n      methd: POST', /http\.methd: unknown field; did you mean "method"/],
  ['body and body_file together', 'prober: http\n    http:\n      body: hello\n      body_file: hello.txt', /set body or body_file, not both/],
  ['bearer_token and bearer_token_file together', 'prober: http\n    http:\n      bearer_token: a\n      bearer_token_file: b', /set bearer_token or bearer_token_file, not both/],
  ['two authentication schemes', 'prober: http\n    http:\n      bearer_token: a\n      basic_auth: { username: u, password: p }', /set only one of basic_auth, bearer_token/],
  ['a body regexp that does not compile', "prober: http\n    http:\n      fail_if_body_matches_regexp: ['(unclosed']", /fail_if_body_matches_regexp\[0\]: could not compile/],
  ['a negated body regexp that does not compile', "prober: http\n    http:\n      fail_if_body_not_matches_regexp: ['[z-a]']", /fail_if_body_not_matches_regexp\[0\]: could not compile/],
  [
    'a header regexp that does not compile',
    "prober: http\n    http:\n      fail_if_header_matches:\n        - { header: Server, regexp: '(?<' }",
    /fail_if_header_matches\[0\]\.regexp: could not compile/,
  ],
  ['a header check without its regexp', 'prober: http\n    http:\n      fail_if_header_not_matches:\n        - { header: Server }', /fail_if_header_not_matches\[0\]\.regexp: is required/],
  [
    'an Accept-Encoding that refuses the configured compression',
    'prober: http\n    http:\n      compression: br\n      headers:\n        accept-ENCODING: gzip',
    /refuses the configured compression "br"/,
  ],
  [
    'an Accept-Encoding that refuses every encoding',
    "prober: http\n    http:\n      compression: deflate\n      headers:\n        Accept-Encoding: '*;q=0'",
    /refuses the configured compression "deflate"/,
  ],
  ['HTTP/3, which no Node client speaks', 'prober: http\n    http:\n      enable_http3: true', /enable_http3 is not supported/],
  ['a dns module without a query name', 'prober: dns\n    dns:\n      query_type: MX', /modules\.checked\.dns\.query_name: is required/],
  ['a dns query class that does not exist', 'prober: dns\n    dns:\n      query_name: example.org\n      query_class: XX', /query_class/],
  ['a dns query type that does not exist', 'prober: dns\n    dns:\n      query_name: example.org\n      query_type: AAAAA', /query_type/],
  ['an icmp TTL above 255', 'prober: icmp\n    icmp:\n      ttl: 300', /icmp\.ttl: must be at most 255/],
  ['a negative icmp TTL', 'prober: icmp\n    icmp:\n      ttl: -3', /icmp\.ttl: must be at least 0/],
  ['a query_response regexp that does not compile', "prober: tcp\n    tcp:\n      query_response:\n        - expect: '+OK'", /query_response\[0\]\.expect: could not compile/],
];

describe('configs the exporter refuses', () => {
  it.each(REFUSED)('refuses %s, naming the file, the line and the fix', (_name, module, expected) => {
    const found = problems(`modules:\n  checked:\n    ${module}\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^blackbox\.yml:\d+: \S/);
    expect(found[0]).toMatch(expected);
  });

  it('reports every broken module of a file at once', () => {
    const text = REFUSED.map(([, module], index) => `  m${index}:\n    ${module}\n`).join('');
    const found = problems(`modules:\n${text}`);
    const modulesNamed = new Set(found.map((problem) => /modules\.(m\d+)/.exec(problem)?.[1]).filter(Boolean));
    expect(modulesNamed.size).toBe(REFUSED.length);
  });
});

describe('config files blackbox_exporter reads', () => {
  const load = (text: string | Buffer) => parseConfig(typeof text === 'string' ? text : configText(text, 'blackbox.yml'), 'blackbox.yml');
  const outcome = (text: string | Buffer): string => {
    try {
      load(text);
      return 'loads';
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      // Every refusal names the file and a line.
      for (const line of error.message.split('\n')) expect(line).toMatch(/^blackbox\.yml:\d+: \S/);
      return 'refuses';
    }
  };

  it.each(UPSTREAM_CONFIGS.map((config) => [config.name, config] as const))('%s: as upstream, or as docs/differences.md says', (_name, config) => {
    expect(outcome(config.text)).toBe(config.ours?.does ?? config.upstream);
  });

  it('reads them with the values upstream reads', () => {
    const byName = (name: string) => UPSTREAM_CONFIGS.find((config) => config.name === name)!.text as string;
    const merged = load(byName('merge keys from an anchored module')).modules.m;
    expect(merged).toMatchObject({ prober: 'http', timeoutMs: 3000, written: { http: { method: 'HEAD' } } });
    expect(httpOf(load(byName('YAML 1.1 booleans')).modules.m)).toMatchObject({ failIfSsl: true, failIfNotSsl: false, followRedirects: true, enableHttp2: false });
    expect(load(byName('a timeout with a fraction')).modules.m.timeoutMs).toBe(1500);
    const fine = load(byName('a timeout in microseconds, and minutes with a fraction of a second')).modules;
    expect([fine.a.timeoutMs, fine.b.timeoutMs]).toEqual([0.5, 60_500]);
    expect(httpOf(load(byName('a size with a fraction')).modules.m).bodySizeLimit).toBe(1_572_864);
    expect(load(byName('header values that YAML reads as a number and a boolean')).modules.m.written.http?.headers).toEqual({ 'X-Count': '5', 'X-Debug': 'true' });
    expect(load(byName('a query name that YAML reads as a number')).modules.m.written.dns?.query_name).toBe('123');
    expect(load(byName('a TTL written as a float')).modules.m.written.icmp?.ttl).toBe(64);
    expect(httpOf(load(byName('status codes in hexadecimal')).modules.m).validStatusCodes).toEqual([200, 204]);
    expect(load(byName('modules: left empty')).modules).toEqual({});
    expect(Object.keys(load(byName('a module name YAML reads as a number')).modules)).toEqual(['5']);
    const twoDocuments = load(byName('two documents'));
    expect([Object.keys(twoDocuments.modules), twoDocuments.notes]).toEqual([['a'], ['the file holds more than one YAML document; only the first is read, as blackbox_exporter does']]);
    expect(load(byName('a NUL written as an escape')).modules.m.written.http?.headers).toEqual({ 'X-Name': 'a\0b' });
  });

  it('takes module names as written, __proto__ and constructor included, and finds no module the file lacks', () => {
    const config = load('modules:\n  __proto__:\n    prober: http\n  constructor:\n    prober: tcp\n');
    expect(Object.keys(config.modules).sort()).toEqual(['__proto__', 'constructor']);
    expect(config.modules['constructor' as string].prober).toBe('tcp');
    expect(config.modules['toString' as string]).toBeUndefined();
  });

  it('refuses what upstream refuses, saying where and what to do', () => {
    const byName = (name: string) => UPSTREAM_CONFIGS.find((config) => config.name === name)!.text;
    const refusal = (text: string | Buffer): string => {
      try {
        load(text);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('loaded');
    };
    expect(refusal(byName('invalid UTF-8'))).toBe('blackbox.yml:5: is not valid UTF-8; save the file as UTF-8');
    expect(refusal(byName('a NUL byte'))).toBe('blackbox.yml:5: a NUL character is not allowed in a YAML file; remove it, or write \\0 in a double-quoted string');
    expect(refusal(byName('a key given twice'))).toBe('blackbox.yml:4: mapping key "a" is given twice, first on line 2; keep one');
    expect(refusal(byName('an empty file'))).toBe('blackbox.yml:1: the file has no YAML document; write modules: and the modules under it');
    expect(refusal(byName('a timeout in days'))).toBe('blackbox.yml:4: modules.m.timeout: must be a duration such as 5s, 1.5s, 1m30s or 500ms');
    expect(refusal(byName('a quoted "true" for a boolean'))).toBe('blackbox.yml:5: modules.m.http.fail_if_ssl: must be true or false, not the text "true"');
  });
});
