import { runBodyCheck } from '../../../src/probers/http/body-check-worker';

const body = (text: string): Uint8Array => new Uint8Array(Buffer.from(text));

describe('a body check, as its thread runs it', () => {
  it('regexps: the first that fails says so in the log line upstream writes', () => {
    expect(runBodyCheck({ id: 1, kind: 'regexps', body: body('status: ok'), failIfMatches: ['error'], failIfNotMatches: ['ok$'] })).toEqual({ id: 1, passed: true, lines: [] });
    expect(runBodyCheck({ id: 2, kind: 'regexps', body: body('status: error'), failIfMatches: ['error'], failIfNotMatches: [] })).toEqual({
      id: 2,
      passed: false,
      lines: [{ level: 'error', message: 'Body matched regular expression', fields: { regexp: 'error' } }],
    });
    expect(runBodyCheck({ id: 3, kind: 'regexps', body: body('status: down'), failIfMatches: [], failIfNotMatches: ['(?i)OK'] }).lines).toEqual([
      { level: 'error', message: 'Body did not match regular expression', fields: { regexp: '(?i)OK' } },
    ]);
  });

  it('CEL: JSON first, then each expression for a boolean', () => {
    const json = body('{"status":"ok","items":[1,2]}');
    expect(runBodyCheck({ id: 1, kind: 'cel', body: json, failIfNotMatches: "body.status == 'ok'" }).passed).toBe(true);
    expect(runBodyCheck({ id: 2, kind: 'cel', body: json, failIfMatches: 'body.items.size() == 2' }).lines).toEqual([
      { level: 'error', message: 'Body matched CEL expression', fields: { expression: 'body.items.size() == 2' } },
    ]);
    expect(runBodyCheck({ id: 3, kind: 'cel', body: json, failIfNotMatches: 'body.items' }).lines).toEqual([
      { level: 'error', message: 'Error evaluating CEL expression', fields: { expression: 'body.items', err: 'the expression gave a object, not a boolean' } },
    ]);
    const notJson = runBodyCheck({ id: 4, kind: 'cel', body: body('<html>'), failIfNotMatches: 'true' });
    expect([notJson.passed, notJson.lines[0]?.message]).toEqual([false, 'Error unmarshalling HTTP body to JSON']);
  });
});
