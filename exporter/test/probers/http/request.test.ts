/**
 * What an http module sends: the request plan settled at load (headers in the order they go out, Host
 * apart, credentials), and the request of one probe, with the files the plan names read at that probe.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROBER_DEFINITIONS } from '../../../src/probers/registry';
import { compileRequestPlan } from '../../../src/probers/http/request-plan';
import { requestContent } from '../../../src/probers/http/request';
import { EXPORTER_USER_AGENT } from '../../../src/version';

const plan = (http: unknown) => compileRequestPlan(PROBER_DEFINITIONS.http.schema.parse(http));

describe('the request of an http module', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'probekit-request-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("sends headers in upstream's order: headers, http_headers (a name twice gets both), then the defaults left unset", async () => {
    writeFileSync(join(dir, 'token'), 'from-file\n');
    const request = await requestContent(
      plan({
        method: 'POST',
        compression: 'gzip',
        headers: { 'accept-language': 'en', host: 'a.example', Host: 'b.example' },
        http_headers: { 'X-Token': { values: ['v1'], files: [join(dir, 'token')] }, 'x-token': { secrets: ['s1'] } },
      }),
      undefined,
    );
    expect(request).toMatchObject({ method: 'POST', host: 'a.example', authorization: undefined, body: undefined });
    expect(request.headers).toEqual([
      ['Accept-Language', ['en']],
      ['X-Token', ['v1', 'from-file', 's1']],
      ['User-Agent', [EXPORTER_USER_AGENT]],
      ['Accept-Encoding', ['gzip']],
    ]);
    expect((await requestContent(plan({ headers: { Host: 'a.example' } }), 'b.example')).host).toBe('b.example');
  });

  it('reads credential and body files at each request, so a rotated file is used without a reload', async () => {
    const password = join(dir, 'password');
    const body = join(dir, 'body.json');
    writeFileSync(password, 'first\n');
    writeFileSync(body, '{"n":1}');
    const rotating = plan({ basic_auth: { username: 'probe', password_file: password }, body_file: body });
    const first = await requestContent(rotating, undefined);
    expect(first.authorization).toBe(`Basic ${Buffer.from('probe:first').toString('base64')}`);
    expect(first.body?.toString()).toBe('{"n":1}');
    writeFileSync(password, 'second-and-longer\n');
    expect((await requestContent(rotating, undefined)).authorization).toBe(`Basic ${Buffer.from('probe:second-and-longer').toString('base64')}`);
    await expect(requestContent(plan({ bearer_token_file: join(dir, 'missing') }), undefined)).rejects.toThrow(/bearer_token_file: cannot read .*missing: ENOENT/);
  });

  it('makes the request of a plan that reads no file once, and shares it (frozen) between probes', async () => {
    const fixed = plan({ headers: { 'X-Probe': 'yes' }, bearer_token: 't0k', body: 'hello' });
    const first = await requestContent(fixed, undefined);
    expect(await requestContent(fixed, undefined)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.headers) && first.headers.every(([, values]) => Object.isFrozen(values))).toBe(true);
    // The probe's hostname parameter gives a request of its own, the rest shared.
    const named = await requestContent(fixed, 'other.example');
    expect(named).toMatchObject({ host: 'other.example', authorization: 'Bearer t0k', headers: first.headers });
    expect(first.host).toBeUndefined();
    // A plan that names a file is read again at each probe (the rotation test above), never kept.
    writeFileSync(join(dir, 'header-value'), 'one');
    const fromFile = plan({ http_headers: { 'X-Value': { files: [join(dir, 'header-value')] } } });
    const before = await requestContent(fromFile, undefined);
    writeFileSync(join(dir, 'header-value'), 'two');
    const after = await requestContent(fromFile, undefined);
    expect([before.headers[0], after.headers[0]]).toEqual([
      ['X-Value', ['one']],
      ['X-Value', ['two']],
    ]);
  });

  it("takes credentials in upstream's order of schemes, and sends none for an authorization without credentials", async () => {
    expect((await requestContent(plan({ bearer_token: 't0k' }), undefined)).authorization).toBe('Bearer t0k');
    expect((await requestContent(plan({ authorization: { type: 'Token', credentials: 'abc' } }), undefined)).authorization).toBe('Token abc');
    expect((await requestContent(plan({ authorization: { type: 'Token' } }), undefined)).authorization).toBeUndefined();
    expect((await requestContent(plan({ body: '' }), undefined)).body).toBeUndefined();
  });
});
