import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { documentedExample, formatPath, httpPost2xx, loadSpecFile, parseSpec, parseSpecText, ProblemsError, readSpecFile, type SpecError } from '../../src/model';
import { tempDirPerTest } from '../support/temp-dir';

const EMPTY =
  'the spec file is empty; write at least jobs: with one job and the module it names, for example modules: { http_2xx: { preset: http_2xx } } and jobs: [{ module: http_2xx, targets: [https://example.com] }]';

const tempDir = tempDirPerTest('probekit-load-');

describe('spec files', () => {
  it('the YAML example file is the documented example', () => {
    expect(parse(readFileSync('examples/probekit.yaml', 'utf8'))).toEqual(documentedExample);
    expect(loadSpecFile('examples/probekit.yaml')).toEqual(parseSpec(documentedExample));
  });

  it('presets in YAML expand to the same modules', () => {
    const spec = parseSpecText(['modules:', '  p:', '    preset: http_post_2xx', '    body: "{}"', 'jobs:', '  - module: p', '    targets: [https://example.com]'].join('\n'));
    expect(spec.modules.p).toEqual(httpPost2xx({ body: '{}' }));
  });

  it('YAML syntax errors name the line', () => {
    expect(() => parseSpecText('jobs:\n  - module: [x\n', { source: 's.yaml' })).toThrow(/^s\.yaml:3: Flow sequence .*; fix the YAML syntax$/);
    expect(() => parseSpecText('jobs:\n  - module: [x\n')).toThrow(/^line 3: Flow sequence .*; fix the YAML syntax$/);
  });

  it('an empty file, or one of comments only, says what to write', () => {
    expect(() => parseSpecText('', { source: 'empty.yaml' })).toThrow(`empty.yaml: ${EMPTY}`);
    expect(() => parseSpecText('# monitoring, to do\n', { source: 'todo.yaml' })).toThrow(`todo.yaml: ${EMPTY}`);
  });

  it("a relative path is read from the directory given as the caller's", () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'monitoring.yaml'), 'namespace: probes\nmodules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\n');
    expect(loadSpecFile('monitoring.yaml', { cwd: dir }).namespace).toBe('probes');
  });

  it('a problem of the file is printed after the path as given', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.yaml'), 'jobs: []\n');
    expect(() => loadSpecFile('bad.yaml', { cwd: dir })).toThrow(/^bad\.yaml:1: jobs: is empty; /);
  });

  it('a file that cannot be read names the flag or variable that named it, and the directory a relative path is read from', () => {
    const dir = tempDir();
    expect(() => loadSpecFile('nope.yaml', { cwd: dir, namedBy: 'PROBEKIT_SPEC=nope.yaml' })).toThrow(
      `PROBEKIT_SPEC=nope.yaml: cannot read ${join(dir, 'nope.yaml')}: no such file; check the path (a relative path is read from ${dir})`,
    );
    expect(() => loadSpecFile(dir, { namedBy: `--spec ${dir}` })).toThrow(`--spec ${dir}: cannot read ${dir}: it is a directory; check the path`);
  });
});

describe('the line of each problem', () => {
  const SPEC = [
    'namespace: probes', // 1
    'modules:', // 2
    '  web:', // 3
    '    preset: http_2xx', // 4
    '  raw:', // 5
    '    prober: http', // 6
    '    http:', // 7
    '      valid_status_codes: [200, "ok"]', // 8
    'jobs:', // 9
    '  - name: site', // 10
    '    modul: web', // 11
    '    targets: [https://example.com]', // 12
    '  - name: api', // 13
    '    module: web', // 14
    '    targets:', // 15
    '      - https://example.com', // 16
    '      - not a target at all', // 17
    '    scrapeTimeout: 5', // 18
  ].join('\n');

  function problems(text: string): Array<{ field: string; line?: number }> {
    try {
      parseSpecText(text, { source: 'monitoring.yaml' });
    } catch (error) {
      return (error as SpecError).problems.map((problem) => ({ field: formatPath(problem.path), line: problem.line }));
    }
    throw new Error('the spec was accepted');
  }

  it('an unknown field, a list item and a field of a mapping are each at their own line; a missing field at its parent', () => {
    expect(problems(SPEC)).toEqual(
      expect.arrayContaining([
        { field: 'jobs[0].modul', line: 11 },
        { field: 'jobs[0].module', line: 10 },
        { field: 'jobs[1].targets[1]', line: 17 },
        { field: 'jobs[1].scrapeTimeout', line: 18 },
        { field: 'modules.raw.http.valid_status_codes[1]', line: 8 },
      ]),
    );
  });

  it('prints as file:line: field: message, in the order of the lines', () => {
    expect(() => parseSpecText(SPEC, { source: 'monitoring.yaml' })).toThrow(/^monitoring\.yaml:11: jobs\[0\]\.modul: unknown field; did you mean "module"\?$/m);
    expect(problems(SPEC).map((problem) => problem.line)).toEqual([8, 10, 11, 17, 18]);
  });

  it('a field the file lacks altogether is at the first line of the document', () => {
    expect(problems('# no jobs yet\nnamespace: probes\n')).toEqual([{ field: 'jobs', line: 2 }]);
  });

  it('through an alias, at the line the alias points to; in JSON, as in YAML', () => {
    const aliased = 'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: &sites\n      - https://example.com\n      - not a target\n  - module: m\n    targets: *sites\n';
    expect(problems(aliased)).toEqual(
      expect.arrayContaining([
        { field: 'jobs[0].targets[1]', line: 7 },
        { field: 'jobs[1].targets[1]', line: 7 },
      ]),
    );
    expect(problems('{\n  "jobs": [\n    {\n      "module": "nope",\n      "targets": ["https://example.com"]\n    }\n  ]\n}\n')).toEqual([{ field: 'jobs[0].module', line: 4 }]);
  });

  it('refuses a JSON spec that repeats a key in one object, at its line, however the key is escaped', () => {
    const repeated = '{\n  "modules": { "m": { "preset": "http_2xx" } },\n  "jobs": [{ "module": "m", "targets": ["https://example.com"] }],\n  "namespace": "a",\n  "namespac\\u0065": "b"\n}\n';
    expect(() => parseSpecText(repeated, { source: 'spec.json' })).toThrow(/^spec\.json:5: .*unique/m);
    // The same key in different objects, and a key's text as a value, are no repetition.
    const fine = '{ "modules": { "m": { "preset": "http_2xx" } }, "jobs": [{ "name": "module", "module": "m", "targets": ["https://example.com"] }] }';
    expect(parseSpecText(fine).jobs[0]!.name).toBe('module');
  });

  it('a refusal found past parsing is named after the file, each problem at its line; one naming a file already is kept', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'spec.yaml'), 'modules:\n  m: { preset: http_2xx }\njobs:\n  - module: m\n    targets: [https://example.com]\n');
    const { spec, namedAfterFile } = readSpecFile('spec.yaml', { cwd: dir });
    expect(spec.jobs[0]!.module).toBe('m');
    expect(namedAfterFile(new ProblemsError([{ path: ['jobs', 0, 'module'], message: 'no' }])).message).toBe('spec.yaml:4: jobs[0].module: no');
    const elsewhere = new ProblemsError([{ path: ['scrape_configs'], message: 'no' }], 'agent.yaml');
    expect(namedAfterFile(elsewhere)).toBe(elsewhere);
  });
});
