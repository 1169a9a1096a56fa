import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { documentedExample, httpPost2xx, loadSpecFile, parseSpec, parseSpecText } from '../../src/model';
import { tempDirPerTest } from '../support/temp-dir';

const EMPTY =
  'the spec file is empty; write at least jobs: with one job and the module it names, for example modules: { http_2xx: { preset: http_2xx } } and jobs: [{ module: http_2xx, targets: [https://example.com] }]';

describe('spec files', () => {
  const tempDir = tempDirPerTest('probekit-load-');

  it('the YAML example file is the documented example', () => {
    expect(parse(readFileSync('examples/probekit.yaml', 'utf8'))).toEqual(documentedExample);
    expect(loadSpecFile('examples/probekit.yaml')).toEqual(parseSpec(documentedExample));
  });

  it('presets in YAML expand to the same modules', () => {
    const spec = parseSpecText(['modules:', '  p:', '    preset: http_post_2xx', '    body: "{}"', 'jobs:', '  - module: p', '    targets: [https://example.com]'].join('\n'));
    expect(spec.modules.p).toEqual(httpPost2xx({ body: '{}' }));
  });

  it('YAML syntax errors name the line', () => {
    expect(() => parseSpecText('jobs:\n  - module: [x\n', { source: 's.yaml' })).toThrow(/^s\.yaml: line \d+: .*; fix the YAML syntax$/);
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
    expect(() => loadSpecFile('bad.yaml', { cwd: dir })).toThrow(/^bad\.yaml: jobs: is empty; /);
  });

  it('a file that cannot be read names the flag or variable that named it, and the directory a relative path is read from', () => {
    const dir = tempDir();
    expect(() => loadSpecFile('nope.yaml', { cwd: dir, namedBy: 'PROBEKIT_SPEC=nope.yaml' })).toThrow(
      `PROBEKIT_SPEC=nope.yaml: cannot read ${join(dir, 'nope.yaml')}: no such file; check the path (a relative path is read from ${dir})`,
    );
    expect(() => loadSpecFile(dir, { namedBy: `--spec ${dir}` })).toThrow(`--spec ${dir}: cannot read ${dir}: it is a directory; check the path`);
  });
});
