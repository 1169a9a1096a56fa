import { runCheckMessage } from '../../../src/probers/shared/check-worker';
import { CHECK_CANCELLED, CHECK_MATCHING } from '../../../src/probers/shared/check-messages';

const body = (text: string): Uint8Array => new Uint8Array(Buffer.from(text));

describe('checks, as a check thread runs them', () => {
  it('regexps: the first that fails says so in the log line upstream writes', () => {
    expect(runCheckMessage({ id: 1, kind: 'body-regexps', body: body('status: ok'), failIfMatches: ['error'], failIfNotMatches: ['ok$'] })).toEqual({ id: 1, passed: true, lines: [] });
    expect(runCheckMessage({ id: 2, kind: 'body-regexps', body: body('status: error'), failIfMatches: ['error'], failIfNotMatches: [] })).toEqual({
      id: 2,
      passed: false,
      lines: [{ level: 'error', message: 'Body matched regular expression', fields: { regexp: 'error' } }],
    });
    expect(runCheckMessage({ id: 3, kind: 'body-regexps', body: body('status: down'), failIfMatches: [], failIfNotMatches: ['(?i)OK'] }).lines).toEqual([
      { level: 'error', message: 'Body did not match regular expression', fields: { regexp: '(?i)OK' } },
    ]);
  });

  it('CEL: JSON first, then each expression for a boolean', () => {
    const json = body('{"status":"ok","items":[1,2]}');
    expect(runCheckMessage({ id: 1, kind: 'cel', body: json, failIfNotMatches: "body.status == 'ok'" }).passed).toBe(true);
    expect(runCheckMessage({ id: 2, kind: 'cel', body: json, failIfMatches: 'body.items.size() == 2' }).lines).toEqual([
      { level: 'error', message: 'Body matched CEL expression', fields: { expression: 'body.items.size() == 2' } },
    ]);
    expect(runCheckMessage({ id: 3, kind: 'cel', body: json, failIfNotMatches: 'body.items' }).lines).toEqual([
      { level: 'error', message: 'Error evaluating CEL expression', fields: { expression: 'body.items', err: 'the expression gave a object, not a boolean' } },
    ]);
    const notJson = runCheckMessage({ id: 4, kind: 'cel', body: body('<html>'), failIfNotMatches: 'true' });
    expect([notJson.passed, notJson.lines[0]?.message]).toEqual([false, 'Error unmarshalling HTTP body to JSON']);
  });

  it('headers: a missing header fails unless allowed, then the first regexp that decides says so', () => {
    const headers = [
      ['server', 'nginx/1.22'],
      ['x-id', 'a1'],
      ['x-id', 'b2'],
    ] as const;
    const check = (header: string, regexp: string, failWhenMatched: boolean, allowMissing = false) => ({ header, regexp, failWhenMatched, allowMissing });
    expect(runCheckMessage({ id: 1, kind: 'headers', headers, checks: [check('Server', '^nginx', false), check('X-Id', '^b', false), check('X-None', 'x', true, true)] })).toEqual({
      id: 1,
      passed: true,
      lines: [],
    });
    expect(runCheckMessage({ id: 2, kind: 'headers', headers, checks: [check('X-Id', '2$', true)] }).lines).toEqual([
      { level: 'error', message: 'Header matched regular expression', fields: { header: 'X-Id', regexp: '2$' } },
    ]);
    expect(runCheckMessage({ id: 3, kind: 'headers', headers, checks: [check('X-None', 'x', false)] }).lines).toEqual([
      { level: 'error', message: 'Missing required header', fields: { header: 'X-None' } },
    ]);
  });

  it("records: each section's validator as upstream, fail_if_all_match_regexp failing when some record does not match", () => {
    const validator = (rules: Partial<Record<'failIfMatches' | 'failIfAllMatch' | 'failIfNotMatches' | 'failIfNoneMatches', string[]>>) => ({
      failIfMatches: [],
      failIfAllMatch: [],
      failIfNotMatches: [],
      failIfNoneMatches: [],
      ...rules,
    });
    const records = ['a.test.\t300\tIN\tA\t192.0.2.1', 'a.test.\t300\tIN\tA\t192.0.2.2'];
    const run = (rules: Parameters<typeof validator>[0]) => runCheckMessage({ id: 1, kind: 'records', sections: [{ section: 'Answer', records, validator: validator(rules) }] });
    expect(run({ failIfNotMatches: ['IN\tA'], failIfNoneMatches: ['2$'] }).passed).toBe(true);
    expect(
      run({ failIfAllMatch: ['1$'] })
        .lines.filter((line) => line.level === 'error')
        .map((line) => line.message),
    ).toEqual(['Not all RRs matched a fail_if_all_match_regexp regexp', 'Answer RRs validation failed']);
    expect(run({ failIfMatches: ['2$'] }).passed).toBe(false);
    expect(runCheckMessage({ id: 2, kind: 'records', sections: [{ section: 'Authority', records: [], validator: validator({ failIfNoneMatches: ['x'] }) }] }).passed).toBe(false);
  });

  it("expect: the line's match and its groups, named ones by name, for the send template", () => {
    const answer = runCheckMessage({ id: 1, kind: 'expect', regexp: '^220 (?P<host>\\S+) (ESMTP)?', line: '220 mail.test ready' });
    expect(answer).toEqual({ id: 1, passed: true, match: { groups: ['220 mail.test ', 'mail.test', undefined], names: [['host', 1]] }, lines: [] });
    expect(runCheckMessage({ id: 2, kind: 'expect', regexp: '^250', line: '220 mail.test' })).toEqual({ id: 2, passed: false, lines: [] });
  });

  it('a job the pool gave up while its checks compiled is answered without running them', () => {
    const state = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(state, 0, CHECK_CANCELLED);
    expect(runCheckMessage({ id: 1, kind: 'body-regexps', body: body('error'), failIfMatches: ['error'], failIfNotMatches: [] }, state)).toEqual({ id: 1, passed: false, lines: [] });
    Atomics.store(state, 0, 0);
    expect(runCheckMessage({ id: 2, kind: 'body-regexps', body: body('error'), failIfMatches: ['error'], failIfNotMatches: [] }, state).lines).toHaveLength(1);
    expect(Atomics.load(state, 0)).toBe(CHECK_MATCHING);
  });
});
