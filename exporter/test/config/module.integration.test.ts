/**
 * A module compiled once at load into the form probes use: patterns compiled, durations and sizes as
 * numbers, the prober's section always there; a probe then parses nothing. And every problem of a module
 * at once, as the contract reports them to the spec.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProbeRegistry } from '../../src/metrics';
import * as duration from '../../src/config/duration';
import * as regexp from '../../src/config/regexp';
import * as size from '../../src/config/size';
import { parseConfig } from '../../src/config/load';
import type { CompiledModule } from '../../src/config/module';
import { moduleProblems } from '../../src/contract';
import { moduleSchema } from '../../src/config/schema';
import { formatProblem } from '../../src/contract/problems';
import { Logger, ProbeLog } from '../../src/log';
import { probe } from '../../src/probers';
import { PROBER_DEFINITIONS, PROBER_NAMES, type ProberName } from '../../src/probers/registry';
import { deadlineIn } from '../../src/probers/shared/deadline';
import { startDnsTestServer, ZONE, type DnsTestServer } from '../../loopback/dns-test-server';
import { startTcpTestServer, type TcpTestServer } from '../../loopback/tcp-test-server';

const PATTERNS = ['status: (ok|fine)', '(?i)error', '^v0$', 'v[0-9]+', '^220 (?P<host>\\S+)', `www\\.probe\\.test\\.\\s+\\d+\\s+IN\\s+A`];

const CONFIG = `modules:
  web:
    prober: http
    timeout: 5s
    http:
      preferred_ip_protocol: ip4
      body_size_limit: 1KB
      fail_if_body_not_matches_regexp: ['${PATTERNS[0]}']
      fail_if_body_matches_regexp: ['${PATTERNS[1]}']
      fail_if_header_matches: [{ header: X-Probe, regexp: '${PATTERNS[2]}' }]
      fail_if_header_not_matches: [{ header: X-Probe, regexp: '${PATTERNS[3]}' }]
  banner:
    prober: tcp
    timeout: 2s
    tcp:
      preferred_ip_protocol: ip4
      query_response:
        - expect: '${PATTERNS[4]}'
        - send: QUIT
  zone:
    prober: dns
    timeout: 2s
    dns:
      query_name: www.${ZONE}
      query_type: A
      preferred_ip_protocol: ip4
      validate_answer_rrs:
        fail_if_not_matches_regexp: ['${PATTERNS[5]}']
`;

function of<N extends ProberName>(module: CompiledModule, prober: N): CompiledModule<N> {
  if (module.prober !== prober) throw new Error(`module of prober ${module.prober}, not ${prober}`);
  return module as CompiledModule<N>;
}

describe('a module compiled at load', () => {
  let web: Server;
  let tcp: TcpTestServer;
  let dns: DnsTestServer;

  beforeAll(async () => {
    web = createServer((_request, response) => {
      response.setHeader('X-Probe', 'v1');
      response.end('status: ok');
    }).listen(0, '127.0.0.1');
    await once(web, 'listening');
    tcp = await startTcpTestServer();
    dns = await startDnsTestServer();
  });
  afterAll(async () => {
    web.close();
    await tcp.close();
    await dns.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it('compiles each pattern exactly once, and a probe parses nothing', async () => {
    const compiles = jest.spyOn(regexp, 'compileGoRegexp');
    const parsers = [
      jest.spyOn(duration, 'parseDuration'),
      jest.spyOn(size, 'parseByteSize'),
      jest.spyOn(moduleSchema, 'parse'),
      jest.spyOn(moduleSchema, 'safeParse'),
      ...PROBER_NAMES.flatMap((name) => [jest.spyOn(PROBER_DEFINITIONS[name].schema, 'parse'), jest.spyOn(PROBER_DEFINITIONS[name].schema, 'safeParse')]),
    ];
    const config = parseConfig(CONFIG, '/tmp/blackbox.yml');
    expect(compiles.mock.calls.map(([source]) => source).sort()).toEqual([...PATTERNS].sort());
    expect(parsers.map((parser) => parser.mock.calls.length).reduce((sum, calls) => sum + calls)).toBeGreaterThan(0);

    for (const spy of [compiles, ...parsers]) spy.mockClear();
    const targets: Record<string, string> = {
      web: `http://127.0.0.1:${(web.address() as AddressInfo).port}/`,
      banner: `127.0.0.1:${tcp.port}`,
      zone: `127.0.0.1:${dns.port}`,
    };
    for (let round = 0; round < 2; round += 1) {
      for (const [name, target] of Object.entries(targets)) {
        const log = new ProbeLog(new Logger('error', () => undefined), {});
        const deadline = deadlineIn(3000);
        const { success } = await probe(deadline, target, config.modules[name], new ProbeRegistry(), log, {});
        deadline.cancel();
        expect({ name, success, log: success ? '' : log.text() }).toEqual({ name, success: true, log: '' });
      }
    }
    expect(compiles).not.toHaveBeenCalled();
    for (const parser of parsers) expect(parser).not.toHaveBeenCalled();
  });

  it('settles durations, sizes, URLs and defaults into numbers and objects', () => {
    const config = parseConfig(
      `modules:
  web:
    prober: http
    timeout: 1m30s
    http:
      body_size_limit: 2MiB
      proxy_url: http://127.0.0.1:3128
      no_follow_redirects: true
      headers: { host: example.com, x-trace: 'on' }
      tls_config: { min_version: TLS12 }
  ping:
    prober: icmp
`,
      '/tmp/blackbox.yml',
    );
    const web = of(config.modules.web, 'http');
    expect(web.timeoutMs).toBe(90_000);
    expect(web.http).toMatchObject({ bodySizeLimit: 2 * 1024 * 1024, followRedirects: false, ip: { preferred: 6, fallback: true }, tls: { minVersion: 'TLSv1.2', insecureSkipVerify: false } });
    expect(web.http.proxy?.forUrl(new URL('https://example.com/'))?.url.href).toBe('http://127.0.0.1:3128/');
    expect(web.http.request.hostHeader).toBe('example.com');
    expect(web.http.request.headers.map((header) => header.name)).toEqual(['X-Trace', 'User-Agent']);
    // The module as written keeps its text, for /config and debug output.
    expect(web.written).toMatchObject({ timeout: '1m30s', http: { body_size_limit: '2MiB', proxy_url: 'http://127.0.0.1:3128' } });

    const ping = of(config.modules.ping, 'icmp');
    expect(ping.timeoutMs).toBeUndefined();
    expect(ping.icmp).toMatchObject({ ttl: 64, dontFragment: false });
    expect(ping.icmp.payload.toString()).toBe('Prometheus Blackbox Exporter');
    expect(ping.written.icmp).toMatchObject({ ttl: 64, preferred_ip_protocol: 'ip6' });
  });
});

describe('the problems of a module, as the contract reports them', () => {
  const lines = (name: string, input: unknown): string[] => moduleProblems(name, input).map((problem) => formatProblem(problem));

  it('are every problem at once, with paths from the config root', () => {
    expect(lines('api', { prober: 'http', tcp: {}, http: { body: 'a', body_file: 'b', fail_if_body_matches_regexp: ['ok', '(unclosed'], body_size_limit: 'lots' } })).toEqual([
      'modules.api.tcp: module has prober http but a tcp section; rename the section or the prober',
      'modules.api.http.body_file: set body or body_file, not both',
      'modules.api.http.body_size_limit: must be a size with a unit, such as 512KB, 1.5MiB or 1024B (units B, KB to EB or KiB to EiB, powers of 1024, one spelling per value); 0 means no limit',
      'modules.api.http.fail_if_body_matches_regexp[1]: could not compile regular expression "(unclosed": missing closing ): `(unclosed`; rewrite it in RE2 syntax, which has no lookaround or backreferences and repeats at most 1000 times',
    ]);
  });

  it('start with the schema: a module it refuses goes no further', () => {
    expect(lines('api', { prober: 'http', http: { metod: 'GET', fail_if_body_matches_regexp: ['('] } })).toEqual(['modules.api.http.metod: unknown field; did you mean "method"?']);
    expect(lines('my api', { prober: 'ftp' })).toEqual(['modules["my api"].prober: the text "ftp" is not allowed; use one of http, tcp, icmp, dns, grpc, unix']);
  });

  it('are none for a module the exporter loads; the schema alone passes a pattern that does not compile', () => {
    const module = { prober: 'dns', dns: { query_name: 'example.com', validate_answer_rrs: { fail_if_matches_regexp: ['[z-a]'] } } };
    expect(lines('ok', { prober: 'tcp', tcp: { query_response: [{ expect: '^220' }] } })).toEqual([]);
    expect(moduleProblems('zone', module, { schemaOnly: true })).toEqual([]);
    expect(lines('zone', module)).toEqual([
      'modules.zone.dns.validate_answer_rrs.fail_if_matches_regexp[0]: could not compile regular expression "[z-a]": invalid character class range: `z-a`; rewrite it in RE2 syntax, which has no lookaround or backreferences and repeats at most 1000 times',
    ]);
  });
});

describe('module problems that withhold values', () => {
  it('say a wrong value by its kind alone, for fields that may hold a secret', () => {
    const module = { prober: 'http', http: { bearer_token: 12345, compression: 'zip' } };
    expect(moduleProblems('api', module).map((problem) => formatProblem(problem))).toEqual([
      'modules.api.http.compression: the text "zip" is not allowed; use one of , gzip, br, deflate, identity',
      'modules.api.http.bearer_token: must be text, not number 12345',
    ]);
    expect(moduleProblems('api', module, { withholdValues: true }).map((problem) => formatProblem(problem))).toEqual([
      'modules.api.http.compression: must be one of , gzip, br, deflate, identity',
      'modules.api.http.bearer_token: must be text, not a number',
    ]);
  });
});

describe('compiled regexps', () => {
  it('are compiled at load, one object per pattern text that every module and probe shares', () => {
    const config = parseConfig(
      "modules:\n  m:\n    prober: http\n    http:\n      fail_if_body_matches_regexp: ['(?i)^HTTP/1\\.[01] 200']\n  n:\n    prober: http\n    http:\n      fail_if_body_not_matches_regexp: ['(?i)^HTTP/1\\.[01] 200']\n",
      'blackbox.yml',
    );
    const [pattern] = of(config.modules.m, 'http').http.failIfBodyMatches;
    expect(pattern.source).toBe('(?i)^HTTP/1\\.[01] 200');
    expect(of(config.modules.n, 'http').http.failIfBodyNotMatches[0].regexp).toBe(pattern.regexp);
    expect([pattern.regexp.test('http/1.1 200 OK'), pattern.regexp.test('http/1.1 200 OK')]).toEqual([true, true]);
  });
});
