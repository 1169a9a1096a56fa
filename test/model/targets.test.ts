import { parseSpec, type SpecInput } from '../../src/model';
import { jobParts, mergeModuleFields, probeObjectNames, targetSets } from '../../src/model/targets';

const withTargets = (targets: SpecInput['jobs'][number]['targets'], modules: SpecInput['modules'] = { http_2xx: { preset: 'http_2xx' } }): SpecInput => ({
  modules,
  // downFor covers two intervals of the slowest target (5m).
  jobs: [{ name: 'web', module: 'http_2xx', labels: { team: 'web' }, targets, alerts: { downFor: '10m' } }],
});

describe("a target's module fields, merged onto its job's module", () => {
  it('merges mappings field by field, and a list, a value or a secret reference replaces', () => {
    const base = { prober: 'http' as const, timeout: '5s', http: { headers: { Accept: 'text/html', Authorization: { fromEnv: 'A' } }, valid_status_codes: [200, 204] } };
    expect(mergeModuleFields(base, { timeout: '3s', http: { headers: { 'X-Team': 'a', Authorization: { existingSecret: { name: 's', key: 'k' } } }, valid_status_codes: [401] } })).toEqual({
      prober: 'http',
      timeout: '3s',
      http: { headers: { Accept: 'text/html', 'X-Team': 'a', Authorization: { existingSecret: { name: 's', key: 'k' } } }, valid_status_codes: [401] },
    });
    expect(base.http.headers).toEqual({ Accept: 'text/html', Authorization: { fromEnv: 'A' } });
  });
});

describe('compiled into the fewest modules, with stable readable names', () => {
  const targets = Array.from({ length: 40 }, (_, index) => ({ target: `https://t${index}.example.com`, module: { http: { headers: { 'X-Probe': `h${index % 4}` } } } }));
  const spec = parseSpec(withTargets(targets));

  it('makes one module per distinct merged module, named from the job module, the fields set and a digest', () => {
    const generated = Object.keys(spec.modules).filter((name) => name !== 'http_2xx');
    expect(generated).toHaveLength(4);
    for (const name of generated) expect(name).toMatch(/^http_2xx\.headers\.[0-9a-f]{6}$/);
    expect(new Set(spec.jobs[0].targets.map((target) => target.module))).toEqual(new Set(generated));
    expect(spec.modules[spec.jobs[0].targets[1].module]).toEqual({ ...spec.modules.http_2xx, http: { ...spec.modules.http_2xx.http, headers: { 'X-Probe': 'h1' } } });
  });

  it("gives the same names run after run, and keeps a target's name when other targets come and go", () => {
    expect(parseSpec(withTargets(targets)).jobs[0].targets.map((target) => target.module)).toEqual(spec.jobs[0].targets.map((target) => target.module));
    const fewer = parseSpec(withTargets(targets.slice(3))).jobs[0].targets.map((target) => target.module);
    expect(fewer).toEqual(spec.jobs[0].targets.slice(3).map((target) => target.module));
  });

  it("uses the module a target names, and the job's module or a module of the spec when the merged module is that module", () => {
    const modules = { http_2xx: { preset: 'http_2xx' as const }, api_401: { prober: 'http' as const, http: { valid_status_codes: [401] } } };
    const same = parseSpec(
      withTargets(
        [
          { target: 'https://a.example.com', module: 'api_401' },
          { target: 'https://b.example.com', module: {} },
          { target: 'https://c.example.com', module: { http: { valid_status_codes: [401] } } },
        ],
        { http_2xx: { prober: 'http' }, api_401: modules.api_401 },
      ),
    );
    expect(same.jobs[0].targets.map((target) => target.module)).toEqual(['api_401', 'http_2xx', 'api_401']);
    expect(Object.keys(same.modules)).toEqual(['http_2xx', 'api_401']);
  });

  it('shares a module across jobs, and tells apart modules that differ only in a plain secret without naming it', () => {
    const secretFree = parseSpec({
      modules: { http_2xx: { prober: 'http' } },
      jobs: [
        { name: 'a', module: 'http_2xx', targets: [{ target: 'https://a.example.com', module: { http: { bearer_token: 'one' } } }] },
        {
          name: 'b',
          module: 'http_2xx',
          targets: [
            { target: 'https://b.example.com', module: { http: { bearer_token: 'one' } } },
            { target: 'https://c.example.com', module: { http: { bearer_token: 'two' } } },
          ],
        },
      ],
    });
    const [first, second, third] = secretFree.jobs.flatMap((job) => job.targets.map((target) => target.module));
    expect(first).toBe(second);
    expect(third).toBe(`${first}.2`);
  });
});

describe('target sets, parts and Probe names', () => {
  const spec = parseSpec(
    withTargets([
      'https://a.example.com',
      { target: 'https://b.example.com', labels: { team: 'payments' } },
      { target: 'https://c.example.com', labels: { team: 'web' } },
      { target: 'https://d.example.com', scrapeInterval: '5m' },
    ]),
  );
  const [job] = spec.jobs;

  it("groups targets by module and labels, a target's own label over the job's", () => {
    expect(targetSets(jobParts(job)[0])).toEqual([
      { module: 'http_2xx', labels: { team: 'web' }, targets: ['https://a.example.com', 'https://c.example.com'] },
      { module: 'http_2xx', labels: { team: 'payments' }, targets: ['https://b.example.com'] },
    ]);
  });

  it("puts another interval's targets in a part of their own, named <job>@<interval> and labelled with the job's name", () => {
    const parts = jobParts(job);
    expect(parts.map((part) => [part.name, part.scrapeInterval, part.labels, part.targets.map((target) => target.target)])).toEqual([
      ['web', '30s', { team: 'web' }, ['https://a.example.com', 'https://b.example.com', 'https://c.example.com']],
      ['web@5m', '5m', { team: 'web', job: 'web' }, ['https://d.example.com']],
    ]);
    expect(probeObjectNames(job)).toEqual(['web', 'web-2', 'web-3']);
  });
});

describe('a spec of 1,000 targets with 20 distinct settings', () => {
  const settings = Array.from({ length: 20 }, (_, index) =>
    // The preset's own timeout is 5s: a target setting it would use the job's module.
    index < 10 ? { http: { headers: { 'X-Tenant': `tenant-${index}` } } } : index < 15 ? { http: { valid_status_codes: [200, 400 + index] } } : { timeout: `${index - 9}s` },
  );
  const input: SpecInput = {
    modules: { http_2xx: { preset: 'http_2xx' } },
    jobs: Array.from({ length: 5 }, (_, job) => ({
      name: `job-${job}`,
      module: 'http_2xx',
      targets: Array.from({ length: 200 }, (_, index) => ({ target: `https://t${job * 200 + index}.example.com`, module: settings[(job * 200 + index) % 20] })),
    })),
  };

  it("compiles to 20 modules beside the job's, each named once, shared across jobs", () => {
    const spec = parseSpec(input);
    expect(Object.keys(spec.modules)).toHaveLength(21);
    expect(new Set(spec.jobs.flatMap((job) => job.targets.map((target) => target.module)))).toEqual(new Set(Object.keys(spec.modules).filter((name) => name !== 'http_2xx')));
  });
});
