import { DEFAULTS, SpecError, parseSpec, type SpecInput } from '../../src/model';
import { probeWorkersUnder } from '../../src/model/defaults';
import { fullEnv, fullSpec } from '../fixtures/specs';
import { hostileText, samples } from '../support/hostile-text';
import { problemsOf as problemsThrownBy } from '../support/problems';

const minimal = (overrides: Partial<SpecInput> = {}): SpecInput => ({
  modules: { http_2xx: { preset: 'http_2xx' } },
  jobs: [{ module: 'http_2xx', targets: ['https://example.com'] }],
  ...overrides,
});

/** The problems a spec is refused with, one line each. */
function problemsOf(input: unknown, env: Record<string, string> = {}): readonly string[] {
  expect(() => parseSpec(input, { env })).toThrow(SpecError);
  return problemsThrownBy(() => parseSpec(input, { env }));
}

describe('spec defaults', () => {
  it('fills every documented default', () => {
    const spec = parseSpec(minimal());
    expect(spec.namespace).toBe('monitoring');
    expect(spec.exporter).toEqual({
      image: `ghcr.io/probekit/exporter:${require('../../package.json').version}`,
      replicas: 1,
      podDisruptionBudget: true,
      serviceName: 'blackbox-exporter',
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
      externalUrl: 'http://localhost:9115',
    });
    const thresholds = { downFor: '5m', slowerThan: '1s', slowFor: '10m', certificateWarningDays: 21, certificateCriticalDays: 7 };
    expect(spec.jobs[0]).toEqual({
      name: 'blackbox-exporter',
      module: 'http_2xx',
      targets: [{ target: 'https://example.com', module: 'http_2xx', labels: {}, scrapeInterval: '30s' }],
      scrapeInterval: '30s',
      scrapeTimeout: '30s',
      labels: {},
      alerts: thresholds,
    });
    expect(spec.agent).toEqual({ chart: 'generic', chartKey: 'agent', exporterKey: 'blackbox-exporter', enableExporter: false, scrapeJobs: true, targets: 'inline', shards: 1 });
    expect(spec.searchEngine).toBeUndefined();
    expect(spec.dashboard).toEqual({ enabled: true, title: 'Endpoints', uid: 'probekit-endpoints', labels: { grafana_dashboard: '1' } });
    expect(spec.alerts).toEqual({
      enabled: true,
      thresholds,
      routing: { receivers: [{ name: 'default', severities: [] }], groupWait: '30s', groupInterval: '5m', repeatInterval: '4h' },
    });
    expect([spec.location, spec.locations, spec.maintenance]).toEqual([undefined, [], []]);
    expect(spec.operator).toBeUndefined();
  });

  it('the scrape timeout defaults to 30s, or to the interval when that is shorter', () => {
    const timeoutFor = (scrapeInterval?: string) =>
      parseSpec(minimal({ jobs: [{ module: 'http_2xx', targets: ['https://example.com'], ...(scrapeInterval ? { scrapeInterval } : {}) }] })).jobs[0]!.scrapeTimeout;
    expect(timeoutFor()).toBe('30s');
    expect(timeoutFor('15s')).toBe('15s');
    expect(timeoutFor('1m')).toBe('30s');
    expect(timeoutFor('30s')).toBe('30s');
    expect(parseSpec(minimal({ jobs: [{ module: 'http_2xx', targets: ['https://example.com'], scrapeInterval: '10s', scrapeTimeout: '5s' }] })).jobs[0]!.scrapeTimeout).toBe('5s');
  });

  it('keeps what the user set', () => {
    const spec = parseSpec(fullSpec, { env: fullEnv });
    expect(spec.namespace).toBe('observability');
    expect(spec.exporter.resources.limits).toEqual({ cpu: '1', memory: '512Mi' });
    expect(spec.jobs[1]).toMatchObject({ scrapeInterval: '1m', scrapeTimeout: '20s' });
    expect(spec.searchEngine).toEqual({ url: 'https://search.example.com:9200', apiToken: { fromEnv: 'SEARCH_TOKEN' }, secretName: DEFAULTS.searchEngine.secretName });
  });

  it('grows the memory defaults by a probe worker per CPU of the limit above one, and keeps amounts the spec sets', () => {
    const resources = (limits: Record<string, string | number>, requests: Record<string, string> = {}) => parseSpec(minimal({ exporter: { resources: { limits, requests } } })).exporter.resources;
    const { perWorkerMiB } = DEFAULTS.exporter.resources;
    // Half a CPU or one: probes in the serving thread, the one-thread defaults.
    for (const cpu of ['500m', '1', 1, '1000m']) expect(resources({ cpu })).toEqual({ requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu, memory: '256Mi' } });
    expect(resources({ cpu: '2' })).toEqual({ requests: { cpu: '50m', memory: `${128 + 2 * perWorkerMiB.idle}Mi` }, limits: { cpu: '2', memory: `${256 + 2 * perWorkerMiB.peak}Mi` } });
    // 1.5 CPUs round up to two workers, as the exporter's --probe.workers=auto rounds the cgroup quota.
    expect(resources({ cpu: '1500m' }).limits.memory).toBe(`${256 + 2 * perWorkerMiB.peak}Mi`);
    expect(resources({ cpu: 4 }).requests.memory).toBe(`${128 + 4 * perWorkerMiB.idle}Mi`);
    expect(resources({ cpu: '4', memory: '1Gi' }, { memory: '200Mi' })).toEqual({ requests: { cpu: '50m', memory: '200Mi' }, limits: { cpu: '4', memory: '1Gi' } });
    expect(probeWorkersUnder('250m')).toBe(1);
    expect(probeWorkersUnder('2.5')).toBe(3);
    expect(probeWorkersUnder(undefined)).toBeUndefined();
  });

  it('an autoscaler takes its minimum from replicas and 80% of the CPU request as its target, unless told otherwise', () => {
    expect(parseSpec(minimal({ exporter: { replicas: 2, autoscaling: { maxReplicas: 5 } } })).exporter.autoscaling).toEqual({ minReplicas: 2, maxReplicas: 5, cpuUtilization: 80 });
    expect(parseSpec(minimal({ exporter: { autoscaling: { minReplicas: 3, maxReplicas: 9, cpuUtilization: 50 } } })).exporter.autoscaling).toEqual({
      minReplicas: 3,
      maxReplicas: 9,
      cpuUtilization: 50,
    });
    expect(parseSpec(minimal()).exporter.autoscaling).toBeUndefined();
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
    const input = minimal({
      jobs: [
        { module: 'http_2xx', targets: ['https://a.example'] },
        { module: 'http_2xx', targets: ['https://b.example'] },
      ],
    });
    expect(problemsOf(input)).toEqual(['jobs[1].name: "blackbox-exporter" is already the name of jobs[0]; Prometheus needs unique job names, so give this job a name of its own']);
  });

  it('a target listed twice in one job, naming both positions', () => {
    const input = minimal({ jobs: [{ module: 'http_2xx', targets: ['https://a.example', 'https://b.example', 'https://c.example', 'https://a.example'] }] });
    expect(problemsOf(input)).toEqual(['jobs[0].targets[3]: "https://a.example" is already jobs[0].targets[0]; list each target once']);
  });

  it('a bare number where a duration is wanted, with the unit to add', () => {
    const input = minimal({
      modules: { http_2xx: { prober: 'http', timeout: 5 as never }, tcp: { prober: 'tcp', timeout: '2' } },
      jobs: [{ module: 'http_2xx', targets: ['https://a.example'], scrapeInterval: '10', scrapeTimeout: 0.5 as never, alerts: { downFor: 3 as never } }],
      alerts: { thresholds: { slowFor: '15' } },
    });
    expect(problemsOf(input)).toEqual([
      'modules.http_2xx.timeout: is the number 5, not a duration; write 5s for 5 seconds (units: ms, s, m, h)',
      'modules.tcp.timeout: "2" has no unit; write 2s for 2 seconds (units: ms, s, m, h)',
      'jobs[0].scrapeTimeout: is the number 0.5, not a duration; write 500ms for 0.5 seconds (units: ms, s, m, h)',
      'jobs[0].alerts.downFor: is the number 3, not a duration; write 3s for 3 seconds (units: ms, s, m, h)',
      'jobs[0].scrapeInterval: "10" has no unit; write 10s for 10 seconds (units: ms, s, m, h)',
      'alerts.thresholds.slowFor: "15" has no unit; write 15s for 15 seconds (units: ms, s, m, h)',
    ]);
  });

  it('an unknown module field, with the likely intended one', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', http: { methd: 'GET' } as never } } }))).toEqual(['modules.http_2xx.http.methd: unknown field; did you mean "method"?']);
  });

  it('an unknown field with no close match lists the fields', () => {
    const [problem] = problemsOf(minimal({ modules: { http_2xx: { prober: 'http', zzzzzzzz: 1 } as never } }));
    expect(problem).toBe('modules.http_2xx.zzzzzzzz: unknown field; remove it; the fields here are prober, timeout, http, tcp, icmp, dns, grpc, unix, allowed_targets');
  });

  it('an unknown spec field', () => {
    expect(problemsOf({ ...minimal(), namespce: 'x' })).toEqual(['namespce: unknown field; did you mean "namespace"?']);
  });

  it('a bad value in a module', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', timeout: '5 seconds' } } }))).toEqual(['modules.http_2xx.timeout: must be a duration such as 5s, 1.5s, 1m30s or 500ms']);
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
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', tcp: {} } } }))).toEqual(['modules.http_2xx.tcp: module has prober http but a tcp section; rename the section or the prober']);
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
    ['http', 'example.com', 'has no scheme; write https://example.com or http://example.com, so that whether the probe uses TLS is written down'],
    ['http', 'localhost:8080/health', 'has no scheme; write https://localhost:8080/health or http://localhost:8080/health, so that whether the probe uses TLS is written down'],
    ['http', 'https://', 'is not a URL; write it as http://host[:port]/path or https://host[:port]/path'],
    ['http', 'ftp://example.com', 'has scheme ftp; an http module probes http:// and https:// URLs'],
    ['tcp', 'example.com', 'is not host:port; a tcp module needs the port, for example example.com:443 or [::1]:443'],
    ['tcp', 'example.com:70000', 'has an invalid port 70000; use 1 to 65535'],
    ['grpc', 'https://example.com', 'is not host:port; a grpc module needs the port, for example example.com:443 or [::1]:50051'],
    ['grpc', 'https://grpc.example.com:443/health', "has a path /health, which the grpc prober does not use (it checks the module's grpc.service); write https://grpc.example.com:443"],
    [
      'grpc',
      'grpc.example.com:50051/grpc.health.v1.Health',
      "has a path /grpc.health.v1.Health, which the grpc prober does not use (it checks the module's grpc.service); write grpc.example.com:50051",
    ],
    ['grpc', 'https://example.com/health', 'is not host:port; a grpc module needs the port, for example example.com:443 or [::1]:50051'],
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
    ['grpc', 'https://grpc.example.com:443/'],
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
});

describe('the autoscaler in the spec', () => {
  it('refuses a maximum below the minimum, and replicas beside minReplicas', () => {
    expect(problemsOf(minimal({ exporter: { replicas: 4, autoscaling: { maxReplicas: 3 } } }))).toEqual(['exporter.autoscaling.maxReplicas: is 3, below the minimum of 4 replicas; raise maxReplicas']);
    expect(problemsOf(minimal({ exporter: { replicas: 2, autoscaling: { minReplicas: 2, maxReplicas: 3 } } }))).toEqual([
      'exporter.replicas: is set beside autoscaling.minReplicas; with autoscaling the autoscaler sets the replicas, so keep only minReplicas',
    ]);
    expect(problemsOf(minimal({ exporter: { autoscaling: { minReplicas: 0 } } } as never))).toEqual([
      'exporter.autoscaling.minReplicas: must be at least 1',
      expect.stringMatching(/^exporter\.autoscaling\.maxReplicas: /),
    ]);
  });
});

describe('every problem at once, in words', () => {
  it('the problems of every part, also of parts that follow a part with schema problems', () => {
    const input = {
      namespce: 'x',
      exporter: { replicas: 0 },
      modules: { api: { preset: 'http_2xx_with_header' }, post: { preset: 'http_post_2xx', body: 12 }, '': { preset: 'http_2xx' }, m: { prober: 'http', timeout: '10s' } },
      jobs: [
        { module: 'nope', targets: ['https://example.com'], scrapeInterval: '15s', scrapeTimeout: '20s', labels: { 'bad-label': 'x' } },
        { name: 'm', module: 'm', targets: ['ftp://example.com'], scrapeTimeout: '5s' },
      ],
    };
    expect(problemsOf(input)).toEqual([
      'namespce: unknown field; did you mean "namespace"?',
      'exporter.replicas: must be at least 1',
      'modules.api.accessToken: required: the token sent as "Authentication: Bearer <token>", as { fromEnv: VAR } or { existingSecret: { name, key } }',
      'modules.post.body: must be text, not number 12',
      'modules[""]: a module needs a name; write one before the colon',
      'jobs[0].labels.bad-label: name must be a Prometheus label name: letters, digits and _, not starting with a digit',
      'jobs[0].scrapeTimeout: 20s is longer than scrapeInterval 15s, which Prometheus refuses; lower scrapeTimeout or raise scrapeInterval',
      'jobs[0].module: module "nope" is not defined; use one of: api, post, m, or define it under modules',
      'modules.m.timeout: 10s is longer than scrapeTimeout 5s of job "m", so probes would be cut short; lower the module\'s timeout or raise the job\'s scrapeTimeout',
      'jobs[1].targets[0]: "ftp://example.com" has scheme ftp; an http module probes http:// and https:// URLs',
    ]);
  });

  it('an empty spec, and one that is not a mapping', () => {
    expect(problemsOf(null)).toEqual([
      'the spec is empty; write at least jobs: with one job and the module it names, for example modules: { http_2xx: { preset: http_2xx } } and jobs: [{ module: http_2xx, targets: [https://example.com] }]',
    ]);
    expect(problemsOf(['jobs'])).toEqual([
      'the spec must be a mapping of its fields (namespace, exporter, modules, jobs, agent, searchEngine, dashboard, alerts, operator, host, location, locations, maintenance), not a list',
    ]);
    expect(problemsOf({ modules: 'http_2xx', jobs: 'all' })).toEqual([
      'modules: must be a mapping of module name to module, not the text "http_2xx"',
      'jobs: must be a list of jobs, not the text "all"',
    ]);
  });

  it('a job left out, and a job without its module and targets', () => {
    expect(problemsOf({ modules: { m: { preset: 'http_2xx' } } })).toEqual(['jobs: required: list at least one job with a module and its targets']);
    expect(problemsOf(minimal({ jobs: [{ name: 'j' } as never] }))).toEqual([
      "jobs[0].module: required: name the module of modules that probes this job's targets",
      'jobs[0].targets: required: list the endpoints to probe',
    ]);
  });

  it('a job naming a module that has problems is not told the module is missing', () => {
    expect(problemsOf(minimal({ modules: { m: { prober: 'http', timeout: 'soon' } }, jobs: [{ module: 'm', targets: ['https://example.com'] }] }))).toEqual([
      'modules.m.timeout: must be a duration such as 5s, 1.5s, 1m30s or 500ms',
    ]);
  });

  it('a preset parameter that is missing, wrong or misspelt is named as the parameter', () => {
    const withModule = (module: Record<string, unknown>) => minimal({ modules: { api: module as never }, jobs: [{ module: 'api', targets: ['https://example.com'] }] });
    expect(problemsOf(withModule({ preset: 'http_post_2xx' }))).toEqual([
      'modules.api.body: required: the JSON document the probe posts, as text (in YAML, quote it: body: \'{"check":"synthetic"}\')',
    ]);
    expect(problemsOf(withModule({ preset: 'http_2xx_with_header', acessToken: { fromEnv: 'T' } }))).toEqual([
      'modules.api.accessToken: required: the token sent as "Authentication: Bearer <token>", as { fromEnv: VAR } or { existingSecret: { name, key } }',
      'modules.api.acessToken: unknown field; did you mean "accessToken"?',
    ]);
    expect(problemsOf(withModule({ preset: 'http_2xx_with_header', accessToken: { fromEnv: 'T', existingSecret: { name: 's', key: 'k' } } }))).toEqual([
      'modules.api.accessToken: give one of fromEnv: VAR (an environment variable read at synth), existingSecret: { name, key } (a Secret in the cluster) or externalSecret: { name, store, key } (a value the External Secrets Operator copies into a Secret)',
    ]);
    expect(problemsOf(withModule({ preset: 'http_2xx', body: '{}' }))).toEqual([
      "modules.api.body: is a parameter of preset http_post_2xx, not of http_2xx (http_2xx takes no parameters); write preset: http_post_2xx, or leave preset out and write the module's own fields",
    ]);
    expect(problemsOf(withModule({ preset: 'http_2xx', colour: 'blue' }))).toEqual(['modules.api.colour: unknown field; remove it; the fields here are preset']);
  });

  it("a module field beside a preset, which the preset fixes, says how to change it: the module's own fields instead", () => {
    const withModule = (module: Record<string, unknown>) => minimal({ modules: { api: module as never }, jobs: [{ module: 'api', targets: ['https://example.com'] }] });
    const http2xx =
      '{ prober: http, timeout: 5s, http: { valid_http_versions: [ HTTP/1.1, HTTP/2.0 ], method: GET, preferred_ip_protocol: ip4, ip_protocol_fallback: false, no_follow_redirects: false, fail_if_ssl: false, fail_if_not_ssl: false, tls_config: { insecure_skip_verify: true } } }';
    expect(problemsOf(withModule({ preset: 'http_2xx', timeout: '10s' }))).toEqual([
      `modules.api.timeout: is set by preset http_2xx (timeout: 5s), and http_2xx takes no parameters; to change the module, leave preset out and write its own fields, starting from what the preset stands for: ${http2xx}`,
    ]);
    expect(problemsOf(withModule({ preset: 'http_post_2xx', body: '{}', method: 'PUT' }))[0]).toMatch(
      /^modules\.api\.method: is set by preset http_post_2xx \(http\.method: POST\), and http_post_2xx takes body; to change the module, leave preset out and write its own fields, starting from what the preset stands for: \{ prober: http, timeout: 5s, http: \{ .*method: POST.* \} \}$/,
    );
    expect(problemsOf(withModule({ preset: 'http_2xx', tcp: {} }))).toEqual([
      `modules.api.tcp: is a module field, and http_2xx takes no parameters; to change the module, leave preset out and write its own fields, starting from what the preset stands for: ${http2xx}`,
    ]);
  });

  it('an unknown preset names the likely one', () => {
    expect(problemsOf(minimal({ modules: { http_2xx: { preset: 'http_2xxx' } as never } }))).toEqual([
      'modules.http_2xx.preset: the text "http_2xxx" is not a preset; did you mean "http_2xx"? The presets are http_2xx, http_2xx_with_header, http_post_2xx, or leave preset out and write the module\'s own fields',
    ]);
  });

  it('header values are text or secret references, each checked', () => {
    const headers = { A: 5, B: { fromEnv: 'not a name' }, C: { fromEnvv: 'X' }, D: { existingSecret: { key: 'k' } }, E: { existingSecret: { name: 's', key: 'k' }, prefix: 'Bearer ' } };
    expect(problemsOf(minimal({ modules: { http_2xx: { prober: 'http', http: { headers } as never } } }))).toEqual([
      'modules.http_2xx.http.headers.A: must be text, or a secret reference { fromEnv: VAR } or { existingSecret: { name, key } }, not a number',
      'modules.http_2xx.http.headers.B.fromEnv: must be an environment variable name: letters, digits and _, not starting with a digit',
      'modules.http_2xx.http.headers.C.fromEnvv: unknown field; did you mean "fromEnv"?',
      'modules.http_2xx.http.headers.D.existingSecret.name: required: the name of the Secret',
      'modules.http_2xx.http.headers.E.prefix: applies to fromEnv only; a Secret holds the whole value',
    ]);
  });

  it('a module field of the wrong kind is said by its kind, never by its value, which may be a secret', () => {
    const http = { basic_auth: { username: 'probe', password: 8675309 }, bearer_token: true, headers: { 'X-Api-Key': 4815162342 } };
    const problems = problemsOf(minimal({ modules: { http_2xx: { prober: 'http', http } as never } }));
    expect(problems).toEqual([
      'modules.http_2xx.http.headers.X-Api-Key: must be text, or a secret reference { fromEnv: VAR } or { existingSecret: { name, key } }, not a number',
      'modules.http_2xx.http.bearer_token: must be text, or a secret reference { fromEnv: VAR } or { existingSecret: { name, key } }, not a boolean',
      'modules.http_2xx.http.basic_auth.password: must be text, or a secret reference { fromEnv: VAR } or { existingSecret: { name, key } }, not a number',
    ]);
    for (const value of ['8675309', '4815162342']) expect(problems.join('\n')).not.toContain(value);
  });

  it('record keys and values of the wrong kind, in words', () => {
    expect(problemsOf(minimal({ exporter: { replicas: 1.5, serviceName: 'Probe' }, jobs: [{ module: 'http_2xx', targets: ['https://example.com'], labels: { __name: 'x' } }] }))).toEqual([
      'exporter.replicas: must be a whole number, not number 1.5',
      'exporter.serviceName: must be a DNS-1035 label: lower case letters, digits and -, starting with a letter',
      'jobs[0].labels.__name: name must not start with __, which Prometheus reserves for itself',
    ]);
  });
});

describe('the dashboard, the alerts and the Operator in the spec', () => {
  it("a job's thresholds: its own, then the spec's alerts.thresholds, then the defaults", () => {
    const spec = parseSpec(
      minimal({
        alerts: { thresholds: { downFor: '3m', certificateWarningDays: 30 } },
        jobs: [
          { name: 'a', module: 'http_2xx', targets: ['https://example.com'], alerts: { downFor: '1m' }, slo: 99.5 },
          { name: 'b', module: 'http_2xx', targets: ['https://example.com'] },
        ],
      }),
    );
    expect(spec.jobs[0].alerts).toEqual({ ...DEFAULTS.alerts.thresholds, downFor: '1m', certificateWarningDays: 30 });
    expect(spec.jobs[0].slo).toBe(99.5);
    expect(spec.jobs[1].alerts).toEqual({ ...DEFAULTS.alerts.thresholds, downFor: '3m', certificateWarningDays: 30 });
    expect(spec.jobs[1].slo).toBeUndefined();
  });

  it('the Operator section turns on Probe objects and the PrometheusRule; the external URL loses a trailing slash', () => {
    const spec = parseSpec(minimal({ operator: { labels: { release: 'kps' } }, exporter: { externalUrl: 'https://probes.example.com/' } }));
    expect(spec.operator).toEqual({ probes: true, rules: true, labels: { release: 'kps' }, alertmanagerConfig: true });
    expect(spec.exporter.externalUrl).toBe('https://probes.example.com');
  });

  it('refuses thresholds, objectives and settings that cannot work, naming each and the fix', () => {
    expect(
      problemsOf(
        minimal({
          exporter: { externalUrl: 'probes.example.com:9115' },
          alerts: { thresholds: { downFor: 'five minutes', certificateCriticalDays: 30 } },
          dashboard: { uid: 'has spaces', labels: { grafana_dashboard: 'not ok!' } },
          operator: { labels: { 'bad key!': 'x' } },
          jobs: [
            { module: 'http_2xx', targets: ['https://example.com'], slo: 100, labels: { module: 'mine' }, alerts: { slowerThan: '1 s', certificateWarningDays: 5, certificateCriticalDays: 6 } },
            { name: 'Blackbox Exporter', module: 'http_2xx', targets: ['https://example.com'], slo: 0 },
          ],
        }),
      ),
    ).toEqual([
      'exporter.externalUrl: must be an http or https URL, for example http://localhost:9115',
      "dashboard.uid: must be Grafana's uid: 1 to 40 letters, digits, - or _",
      'dashboard.labels.grafana_dashboard: must be a Kubernetes label value: at most 63 letters, digits, -, _ or ., starting and ending with a letter or digit',
      'operator.labels["bad key!"]: name must be a Kubernetes label name such as grafana_dashboard or app.kubernetes.io/part-of',
      'jobs[0].slo: must be more than 0 and less than 100: the percent of probes that succeed, such as 99.9 (100 would leave no error budget to alert on)',
      'jobs[1].slo: must be more than 0 and less than 100: the percent of probes that succeed, such as 99.9 (100 would leave no error budget to alert on)',
      "jobs[0].labels.module: is set by probekit to the job's module (http_2xx), for the dashboard and the alerts' debug links; remove it, or name the label otherwise",
      'alerts.thresholds.downFor: "five minutes" must be a Prometheus duration such as 5s, 1m30s or 500ms',
      'alerts.thresholds.certificateCriticalDays: certificateCriticalDays (30) must be fewer than certificateWarningDays (21): the warning comes first; lower certificateCriticalDays or raise certificateWarningDays',
      'jobs[0].alerts.slowerThan: "1 s" must be a Prometheus duration such as 5s, 1m30s or 500ms',
      'jobs[0].alerts.certificateCriticalDays: certificateCriticalDays (6) must be fewer than certificateWarningDays (5): the warning comes first; lower certificateCriticalDays or raise certificateWarningDays',
    ]);
  });

  it('with Probe objects, two jobs whose names make one object name', () => {
    const jobs = [
      { module: 'http_2xx', targets: ['https://example.com'] },
      { name: 'Blackbox Exporter', module: 'http_2xx', targets: ['https://example.com'] },
    ];
    expect(problemsOf(minimal({ operator: {}, jobs }))).toEqual(['jobs[1].name: makes the Probe object name "blackbox-exporter", as jobs[0].name does; rename one of the jobs']);
    expect(parseSpec(minimal({ operator: { probes: false }, jobs })).jobs).toHaveLength(2);
  });

  it('agent.scrapeJobs: false only where Probe objects replace the scrape jobs', () => {
    expect(problemsOf(minimal({ agent: { scrapeJobs: false } }))).toEqual([
      'agent.scrapeJobs: is false but no Probe objects replace the scrape jobs, so nothing would probe the targets; add operator: {} for Probe objects, or remove scrapeJobs',
    ]);
    expect(parseSpec(minimal({ agent: { scrapeJobs: false }, operator: {} })).agent.scrapeJobs).toBe(false);
  });
});

describe('names that go into templates, refused where they are declared', () => {
  const spec = (modules: Record<string, unknown>, jobs: unknown[]) => ({ modules, jobs });

  it('a module name that is not a plain word, also hostile ones, named with the rule and the fix; its jobs are not told it is missing', () => {
    for (const name of ['web{{', '{{ with query "up" }}{{ . }}{{ end }}', ...samples(hostileText(), 200)]) {
      expect(problemsOf(spec({ [name]: { preset: 'http_2xx' } }, [{ name: 'web', module: name, targets: ['https://example.com'] }]))).toEqual([
        `modules[${JSON.stringify(name)}]: ${JSON.stringify(name)} must be 1 to 128 letters, digits, _, - and ., starting with a letter, digit or _, for example http_2xx or api-health; rename the module, and the jobs that name it`,
      ]);
    }
  });

  it('a job name holding braces, quotes, a backslash, $ or a control character, named with the rule', () => {
    for (const name of ['web{{', 'say "hi"', ...samples(hostileText(['{', '}', '"', '\\', '$', '`', "'", '\n', '\t', '\u0000', '\u202e', '|', ';', '<']), 200)]) {
      expect(problemsOf(spec({ m: { preset: 'http_2xx' } }, [{ name, module: 'm', targets: ['https://example.com'] }]))).toEqual([
        expect.stringMatching(/^jobs\[0\]\.name: must be 1 to 128 letters, digits, spaces and _ \. , : \/ \( \) \+ -, starting with/),
      ]);
    }
  });

  it('takes the names people write', () => {
    const modules = Object.fromEntries(['http_2xx', 'tcp-connect', 'dns.udp', '_internal', 'HTTP2'].map((name) => [name, { preset: 'http_2xx' }]));
    const jobs = ['web', 'Web sites (EU) 2', 'api:v2/health', 'Zürich, prod', 'blackbox-exporter'].map((name) => ({ name, module: 'http_2xx', targets: ['https://example.com'] }));
    expect(parseSpec(spec(modules, jobs)).jobs.map((job) => job.name)).toEqual(jobs.map((job) => job.name));
  });
});

describe('targets written as objects, refused where a field is wrong', () => {
  const job = (targets: unknown[], module: unknown = 'http_2xx'): SpecInput => minimal({ jobs: [{ name: 'web', module, targets } as never] });

  it("names a bad module field of a target at jobs[i].targets[j].module, as a module's own problem is named", () => {
    expect(problemsOf(job(['https://a.example', { target: 'https://b.example', module: { http: { valid_status_codes: ['401'] } } }]))).toEqual([
      'jobs[0].targets[1].module.http.valid_status_codes[0]: must be a number, not text',
    ]);
    expect(problemsOf(job([{ target: 'https://b.example', module: { http: { methd: 'POST' } } }]))).toEqual(['jobs[0].targets[0].module.http.methd: unknown field; did you mean "method"?']);
    expect(problemsOf(job([{ target: 'https://b.example', module: { tcp: {} } }]))).toEqual([
      'jobs[0].targets[0].module.tcp: module has prober http but a tcp section; rename the section or the prober',
    ]);
    expect(problemsOf(job([{ target: 'https://b.example', module: { prober: 'tcp' } }]))).toEqual([
      "jobs[0].targets[0].module.prober: is the job's module's; a target of another prober belongs to a job of its own, so remove prober here",
    ]);
    expect(problemsOf(job([{ target: 'https://b.example', module: { http: { headers: { Authorization: { fromEnv: 'TOKEN' } } } } }]))).toEqual([
      'jobs[0].targets[0].module.http.headers.Authorization.prefix: must be the scheme and one space, for example prefix: "Bearer ": the exporter sends Authorization as its type and the credentials read from a file',
    ]);
  });

  it("names a target's misspelt field, labels Prometheus or probekit set, an unknown module and an interval shorter than the timeout", () => {
    expect(problemsOf(job([{ target: 'https://b.example', lables: { team: 'a' } }]))).toEqual(['jobs[0].targets[0].lables: unknown field; did you mean "labels"?']);
    expect(problemsOf(job([{ target: 'https://b.example', labels: { '1x': 'z' } }]))).toEqual([
      'jobs[0].targets[0].labels["1x"]: name must be a Prometheus label name: letters, digits and _, not starting with a digit',
    ]);
    expect(problemsOf(job([{ target: 'https://b.example', labels: { module: 'x', instance: 'y' } }]))).toEqual([
      "jobs[0].targets[0].labels.module: is set by probekit to the target's module, for the dashboard and the alerts' debug links; remove it, or name the label otherwise",
      'jobs[0].targets[0].labels.instance: is the target itself; remove it, or name the label otherwise',
    ]);
    expect(problemsOf(job([{ target: 'https://b.example', module: 'http_3xx' }]))).toEqual([
      'jobs[0].targets[0].module: module "http_3xx" is not defined; use one of: http_2xx, or write the module\'s fields here',
    ]);
    expect(problemsOf(job([{ target: 'https://b.example', scrapeInterval: '10s' }]))).toEqual([
      "jobs[0].targets[0].scrapeInterval: 10s is shorter than the job's scrapeTimeout 30s, which Prometheus refuses; raise scrapeInterval, or give the target a job of its own",
    ]);
    expect(problemsOf(job([{ target: 'example.com' }, 42]))).toEqual([
      'jobs[0].targets[1]: must be an endpoint (https://example.com) or a mapping of target, labels, module, scrapeInterval, not number 42',
      expect.stringMatching(/^jobs\[0\]\.targets\[0\]: "example\.com" /),
    ]);
  });

  it('reports an unset variable of a secret a target adds where the target writes it', () => {
    expect(problemsOf(job([{ target: 'https://b.example', module: { http: { headers: { 'X-Key': { fromEnv: 'TARGET_KEY' } } } } }]))).toEqual([
      'jobs[0].targets[0].module.http.headers.X-Key.fromEnv: environment variable TARGET_KEY is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
    ]);
  });
});
