import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DEFAULTS, SpecError, documentedExample, http2xx, http2xxWithHeader, httpPost2xx, loadSpecFile, parseSpec, parseSpecText, type SpecInput } from '../../src/model';
import { fullEnv, fullSpec, SEED_HTTP_SETTINGS } from '../fixtures/specs';

const minimal = (overrides: Partial<SpecInput> = {}): SpecInput => ({
  modules: { http_2xx: { preset: 'http_2xx' } },
  jobs: [{ module: 'http_2xx', targets: ['https://example.com'] }],
  ...overrides,
});

/** The problems a spec is refused with, one line each. */
function problemsOf(input: unknown, env: Record<string, string> = {}): readonly string[] {
  try {
    parseSpec(input, { env });
  } catch (error) {
    expect(error).toBeInstanceOf(SpecError);
    return (error as SpecError).problems;
  }
  throw new Error('the spec was accepted');
}

describe('spec defaults', () => {
  it('fills every documented default', () => {
    const spec = parseSpec(minimal());
    expect(spec.namespace).toBe('monitoring');
    expect(spec.exporter).toEqual({
      image: `ghcr.io/probekit/exporter:${require('../../package.json').version}`,
      replicas: 1,
      serviceName: 'blackbox-exporter',
      resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
    });
    expect(spec.jobs[0]).toEqual({ name: 'blackbox-exporter', module: 'http_2xx', targets: ['https://example.com'], scrapeInterval: '30s', scrapeTimeout: '30s', labels: {} });
    expect(spec.agent).toEqual({ chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: true });
    expect(spec.searchEngine).toBeUndefined();
  });

  it('keeps what the user set', () => {
    const spec = parseSpec(fullSpec, { env: fullEnv });
    expect(spec.namespace).toBe('observability');
    expect(spec.exporter.resources.limits).toEqual({ cpu: '1', memory: '512Mi' });
    expect(spec.jobs[1]).toMatchObject({ scrapeInterval: '1m', scrapeTimeout: '20s' });
    expect(spec.searchEngine).toEqual({ url: 'https://search.example.com:9200', apiToken: { fromEnv: 'SEARCH_TOKEN' }, secretName: DEFAULTS.searchEngine.secretName });
  });

  it('the YAML example file is the documented example', () => {
    expect(parse(readFileSync('examples/probekit.yaml', 'utf8'))).toEqual(documentedExample);
    expect(loadSpecFile('examples/probekit.yaml')).toEqual(parseSpec(documentedExample));
  });
});

describe('the documented modules (seed 2.3)', () => {
  const base = SEED_HTTP_SETTINGS;

  it('http_2xx: GET, no headers, no body', () => {
    expect(http2xx()).toEqual({ prober: 'http', timeout: '5s', http: { ...base, method: 'GET' } });
  });

  it('http_2xx_with_header: Authentication Bearer token by reference, and Accept-Language', () => {
    expect(http2xxWithHeader({ accessToken: { fromEnv: 'ACCESS_TOKEN' }, acceptLanguage: 'de-DE' })).toEqual({
      prober: 'http',
      timeout: '5s',
      http: { ...base, method: 'GET', headers: { Authentication: { fromEnv: 'ACCESS_TOKEN', prefix: 'Bearer ' }, 'Accept-Language': 'de-DE' } },
    });
  });

  it('http_post_2xx: POST with a JSON content type and the chosen body', () => {
    expect(httpPost2xx({ body: '{"a":1}' })).toEqual({
      prober: 'http',
      timeout: '5s',
      http: { ...base, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' },
    });
  });

  it('presets in YAML expand to the same modules', () => {
    const spec = parseSpecText(
      ['modules:', '  p:', '    preset: http_post_2xx', '    body: "{}"', 'jobs:', '  - module: p', '    targets: [https://example.com]'].join('\n'),
    );
    expect(spec.modules.p).toEqual(httpPost2xx({ body: '{}' }));
  });

  it('presets do not share state', () => {
    const first = http2xx();
    first.http!.valid_http_versions!.push('HTTP/3.0');
    expect(http2xx().http!.valid_http_versions).toEqual(['HTTP/1.1', 'HTTP/2.0']);
  });
});

describe('validation: one line naming the field and the fix', () => {
  it('a job naming a module that does not exist', () => {
    expect(problemsOf(minimal({ jobs: [{ module: 'http_3xx', targets: ['https://example.com'] }] }))).toEqual([
      'jobs[0].module: module "http_3xx" is not defined; use one of: http_2xx, or define it under modules',
    ]);
  });

  it('an empty target list', () => {
    expect(problemsOf(minimal({ jobs: [{ module: 'http_2xx', targets: [] }] }))).toEqual(['jobs[0].targets: is empty; list at least one endpoint to probe']);
  });

  it('no jobs at all', () => {
    expect(problemsOf(minimal({ jobs: [] }))).toEqual(['jobs: is empty; add at least one job with a module and its targets']);
  });

  it('scrapeTimeout longer than scrapeInterval', () => {
    expect(problemsOf(minimal({ jobs: [{ module: 'http_2xx', targets: ['https://example.com'], scrapeInterval: '30s', scrapeTimeout: '45s' }] }))).toEqual([
      'jobs[0].scrapeTimeout: 45s is longer than scrapeInterval 30s, which Prometheus refuses; lower scrapeTimeout or raise scrapeInterval',
    ]);
  });

  it('a module timeout longer than its job scrapeTimeout', () => {
    const input = minimal({
      modules: { slow: { prober: 'http', timeout: '25s' } },
      jobs: [{ name: 'slow', module: 'slow', targets: ['https://example.com'], scrapeTimeout: '20s' }],
    });
    expect(problemsOf(input)).toEqual([
      'modules.slow.timeout: 25s is longer than scrapeTimeout 20s of job "slow", so probes would be cut short; lower the module\'s timeout or raise the job\'s scrapeTimeout',
    ]);
  });

  it('duplicate job names', () => {
    const input = minimal({ jobs: [{ module: 'http_2xx', targets: ['https://a.example'] }, { module: 'http_2xx', targets: ['https://b.example'] }] });
    expect(problemsOf(input)).toEqual([
      'jobs[1].name: "blackbox-exporter" is already the name of jobs[0]; Prometheus needs unique job names, so give this job a name of its own',
    ]);
  });

  it('an unknown module field, with the likely intended one', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', http: { methd: 'GET' } as never } } }))).toEqual([
      'modules.http_2xx.http.methd: unknown field; did you mean "method"?',
    ]);
  });

  it('an unknown field with no close match lists the fields', () => {
    const [problem] = problemsOf(minimal({ modules: { http_2xx: { prober: 'http', zzzzzzzz: 1 } as never } }));
    expect(problem).toBe('modules.http_2xx.zzzzzzzz: unknown field; remove it; the fields here are: prober, timeout, http, tcp, icmp, dns, grpc');
  });

  it('an unknown spec field', () => {
    expect(problemsOf({ ...minimal(), namespce: 'x' })).toEqual(['namespce: unknown field; did you mean "namespace"?']);
  });

  it('a bad value in a module', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', timeout: '5 seconds' } } }))).toEqual([
      'modules.http_2xx.timeout: must be a Prometheus duration such as 5s, 1m30s or 500ms',
    ]);
  });

  it('an unknown preset', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { preset: 'http_3xx' } as never } }))[0]).toMatch(/^modules\.http_2xx\.preset: /);
  });

  it('a regexp the exporter could not compile', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', http: { fail_if_body_matches_regexp: ['(unclosed'] } } } }))[0]).toMatch(
      /^modules\.http_2xx\.http\.fail_if_body_matches_regexp\[0\]: could not compile regular expression "\(unclosed": /,
    );
  });

  it('settings of another prober', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', tcp: {} } } }))).toEqual([
      'modules.http_2xx.tcp: module has prober http but a tcp section; rename the section or the prober',
    ]);
  });

  it('an unset token env var', () => {
    const input = minimal({ searchEngine: { url: 'https://search.example.com', apiToken: { fromEnv: 'SEARCH_TOKEN' } } });
    expect(problemsOf(input)).toEqual([
      'searchEngine.apiToken.fromEnv: environment variable SEARCH_TOKEN is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
    ]);
    expect(() => parseSpec(input, { env: { SEARCH_TOKEN: 'x' } })).not.toThrow();
  });

  it('an unset env var behind a secret header', () => {
    const input = minimal({ modules: { h: { preset: 'http_2xx_with_header', accessToken: { fromEnv: 'ACCESS_TOKEN' } } }, jobs: [{ module: 'h', targets: ['https://example.com'] }] });
    expect(problemsOf(input)).toEqual([
      'modules.h.http.headers.Authentication.fromEnv: environment variable ACCESS_TOKEN is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
    ]);
  });

  it.each([
    ['http', 'example.com', 'is not a URL; write it with its scheme, for example https://example.com/health'],
    ['http', 'ftp://example.com', 'has scheme ftp; an http module probes http:// and https:// URLs'],
    ['tcp', 'example.com', 'is not host:port; a tcp module needs the port, for example example.com:443 or [::1]:443'],
    ['tcp', 'example.com:70000', 'has an invalid port 70000; use 1 to 65535'],
    ['grpc', 'https://example.com', 'is not host:port; a grpc module needs the port, for example example.com:443 or [::1]:50051'],
    ['dns', 'https://ns.example.com', 'is not the address of a DNS server; write host or host:port, for example 1.1.1.1 or ns1.example.com:53'],
    ['icmp', 'example.com:80', 'is not a host; an icmp module pings a host name or IP address, without scheme or port'],
  ] as const)('a %s target %p', (prober, target, problem) => {
    const module = prober === 'dns' ? { prober, dns: { query_name: 'example.com' } } : { prober };
    expect(problemsOf(minimal({ modules: { m: module }, jobs: [{ module: 'm', targets: [target] }] }))).toEqual([`jobs[0].targets[0]: "${target}" ${problem}`]);
  });

  it.each([
    ['http', 'http://[::1]:8080/x'],
    ['tcp', '[::1]:22'],
    ['tcp', '127.0.0.1:22'],
    ['dns', '::1'],
    ['dns', 'ns1.example.com:5353'],
    ['icmp', '::1'],
    ['icmp', 'host.example.com'],
    ['grpc', 'grpc.example.com:50051'],
    ['grpc', 'https://grpc.example.com:443'],
  ] as const)('accepts a %s target %p', (prober, target) => {
    const module = prober === 'dns' ? { prober, dns: { query_name: 'example.com' } } : { prober };
    expect(() => parseSpec(minimal({ modules: { m: module }, jobs: [{ module: 'm', targets: [target] }] }))).not.toThrow();
  });

  it('reports every problem at once, with the source first', () => {
    try {
      parseSpec(minimal({ jobs: [{ module: 'nope', targets: [] }] }), { source: 'probekit.yaml' });
      throw new Error('accepted');
    } catch (error) {
      expect((error as Error).message.split('\n')).toEqual([
        'probekit.yaml: jobs[0].module: module "nope" is not defined; use one of: http_2xx, or define it under modules',
        'probekit.yaml: jobs[0].targets: is empty; list at least one endpoint to probe',
      ]);
    }
  });

  it('YAML syntax errors name the line', () => {
    expect(() => parseSpecText('jobs:\n  - module: [x\n', { source: 's.yaml' })).toThrow(/^s\.yaml: line \d+: .*; fix the YAML syntax$/);
  });

  it('a missing spec file names the file and the variable', () => {
    expect(() => loadSpecFile('/nonexistent/probekit.yaml')).toThrow('/nonexistent/probekit.yaml: cannot read the spec file: ENOENT; check the path given in PROBEKIT_SPEC');
  });
});
