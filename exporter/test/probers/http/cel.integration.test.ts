/**
 * fail_if_body_json_matches_cel and fail_if_body_json_not_matches_cel against a loopback server sending
 * JSON bodies: upstream's semantics (JSON parse failure, evaluation error and a non-boolean result fail the
 * probe; probe_failed_due_to_cel only in modules with a CEL check), and compile errors refused at load.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { moduleProblems } from '../../../src/contract';
import { metricValue } from '../../../loopback/metrics-text';
import { runProbe } from '../../support/probe-run';

const BODIES: Record<string, string> = {
  '/documented': JSON.stringify({ foo: 'bar', baz: 'qux' }),
  '/other': JSON.stringify({ foo: 'nope', baz: 'qux' }),
  '/nested': JSON.stringify({
    status: {
      checks: [
        { name: 'db', ok: true },
        { name: 'cache', ok: false },
      ],
    },
    count: 3,
  }),
  '/not-json': '<html>maintenance</html>',
  '/null': 'null',
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const body = BODIES[request.url ?? ''];
    response.statusCode = request.url === '/fails' ? 500 : 200;
    response.setHeader('Content-Type', 'application/json');
    response.end(body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function celModule(field: 'fail_if_body_json_matches_cel' | 'fail_if_body_json_not_matches_cel', expression: string, extra = ''): string {
  return `prober: http\nhttp:\n  preferred_ip_protocol: ip4\n  ${field}: ${JSON.stringify(expression)}\n${extra}`;
}

describe('CEL checks of the JSON body', () => {
  it('passes the documented example on the body its comment shows, and fails on another', async () => {
    const module = celModule('fail_if_body_json_not_matches_cel', "body.foo == 'bar' && body.baz.startsWith('q')");
    const passing = await runProbe(module, `${base}/documented`);
    expect(passing.success).toBe(true);
    expect(metricValue(passing.samples, 'probe_failed_due_to_cel')).toBe(0);
    const failing = await runProbe(module, `${base}/other`);
    expect(failing.success).toBe(false);
    expect(metricValue(failing.samples, 'probe_failed_due_to_cel')).toBe(1);
    expect(failing.log).toContain('Body did not match CEL expression');
    expect(failing.failure).toEqual({ reason: 'body CEL expression failed' });
  });

  it('fails when fail_if_body_json_matches_cel is true, with macros over nested lists', async () => {
    const module = celModule('fail_if_body_json_matches_cel', 'body.status.checks.exists(c, !c.ok) && body.count > 2');
    const run = await runProbe(module, `${base}/nested`);
    expect(run.success).toBe(false);
    expect(metricValue(run.samples, 'probe_failed_due_to_cel')).toBe(1);
    expect(run.log).toContain('Body matched CEL expression');
    // Not every check is ok, so "all ok" is false and the probe passes.
    const allOk = await runProbe(celModule('fail_if_body_json_matches_cel', 'body.status.checks.all(c, c.ok)'), `${base}/nested`);
    expect(allOk.success).toBe(true);
    const hasDb = await runProbe(celModule('fail_if_body_json_matches_cel', "body.status.checks.exists(c, c.name == 'db')"), `${base}/nested`);
    expect(hasDb.success).toBe(false);
  });

  it('fails a body that is not JSON, an expression that errors and one that is not a boolean', async () => {
    const notJson = await runProbe(celModule('fail_if_body_json_not_matches_cel', 'true'), `${base}/not-json`);
    expect(notJson.success).toBe(false);
    expect(metricValue(notJson.samples, 'probe_failed_due_to_cel')).toBe(1);
    expect(notJson.log).toContain('Error unmarshalling HTTP body to JSON');
    expect(notJson.failure).toEqual({ reason: 'body CEL expression failed' });
    // No such field: an evaluation error, which fails the probe whichever of the two fields holds it.
    for (const field of ['fail_if_body_json_matches_cel', 'fail_if_body_json_not_matches_cel'] as const) {
      const missing = await runProbe(celModule(field, 'body.absent == 1'), `${base}/documented`);
      expect(missing.success).toBe(false);
      expect(metricValue(missing.samples, 'probe_failed_due_to_cel')).toBe(1);
      expect(missing.log).toContain('Error evaluating CEL expression');
    }
    const text = await runProbe(celModule('fail_if_body_json_not_matches_cel', 'body.foo'), `${base}/documented`);
    expect(text.success).toBe(false);
    expect(text.log).toContain('not a boolean');
    const nullBody = await runProbe(celModule('fail_if_body_json_not_matches_cel', 'body == null'), `${base}/null`);
    expect(nullBody.success).toBe(true);
  });

  it('reports probe_failed_due_to_cel 0 when an earlier check failed, and not at all without a CEL check', async () => {
    const run = await runProbe(celModule('fail_if_body_json_not_matches_cel', 'false'), `${base}/fails`);
    expect(run.success).toBe(false);
    expect(metricValue(run.samples, 'probe_failed_due_to_cel')).toBe(0);
    const plain = await runProbe('prober: http\nhttp:\n  preferred_ip_protocol: ip4\n', `${base}/documented`);
    expect(plain.samples.some((sample) => sample.name === 'probe_failed_due_to_cel')).toBe(false);
  });

  it('runs both body regexps and CEL on the same body', async () => {
    const run = await runProbe(celModule('fail_if_body_json_not_matches_cel', "body.baz == 'qux'", '  fail_if_body_not_matches_regexp: ["qux"]\n'), `${base}/documented`);
    expect(run.success).toBe(true);
    expect(metricValue(run.samples, 'probe_failed_due_to_regex')).toBe(0);
    expect(metricValue(run.samples, 'probe_failed_due_to_cel')).toBe(0);
  });
});

describe('CEL expressions at load', () => {
  it('refuses one that does not compile, naming the field', () => {
    const problems = moduleProblems('m', { prober: 'http', http: { fail_if_body_json_matches_cel: 'body.x ==' } });
    expect(problems).toEqual([
      { path: ['modules', 'm', 'http', 'fail_if_body_json_matches_cel'], message: expect.stringMatching(/^could not compile CEL expression "body\.x ==": .+; write it in CEL/) },
    ]);
    expect(moduleProblems('m', { prober: 'http', http: { fail_if_body_json_not_matches_cel: '' } })).toHaveLength(1);
  });

  it('refuses one that names a variable other than body, or a function CEL has not, as upstream does', () => {
    expect(moduleProblems('m', { prober: 'http', http: { fail_if_body_json_not_matches_cel: "bdy.status == 'ok'" } })).toEqual([
      {
        path: ['modules', 'm', 'http', 'fail_if_body_json_not_matches_cel'],
        message: expect.stringMatching(/^could not compile CEL expression "bdy\.status == 'ok'": undeclared reference to 'bdy' \(the expression's one variable is body/),
      },
    ]);
    expect(moduleProblems('m', { prober: 'http', http: { fail_if_body_json_matches_cel: 'body.items.exists(i, isBad(i))' } })).toEqual([
      { path: ['modules', 'm', 'http', 'fail_if_body_json_matches_cel'], message: expect.stringContaining("undeclared reference to 'isBad'") },
    ]);
  });

  it('accepts the documented expression', () => {
    expect(moduleProblems('m', { prober: 'http', http: { fail_if_body_json_not_matches_cel: "body.foo == 'bar' && body.baz.startsWith('q')" } })).toEqual([]);
  });
});
