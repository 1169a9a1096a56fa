/**
 * Secret references moved to the field the exporter reads each from, and those it cannot read refused with
 * the fix, at validation (so at synth).
 */
import { moduleWithSecretFiles, parseSpec, type SpecModule } from '../../src/model';
import { problemsOf } from '../support/problems';

const env = { API_TOKEN: 'token-value', PASSWORD: 'password-value' };
const place = ({ field }: { field: readonly (string | number)[] }): string => `/secrets/${field.join('.')}`;

function specWith(module: SpecModule): unknown {
  return { modules: { api: module }, jobs: [{ module: 'api', targets: ['https://api.example.com/'] }] };
}

describe('secret references, where the exporter reads them', () => {
  it('sends a secret Authorization header from authorization.credentials_file, its prefix as the type', () => {
    const module: SpecModule = { prober: 'http', http: { headers: { Authorization: { fromEnv: 'API_TOKEN', prefix: 'Bearer ' }, 'X-Client': 'probekit' } } };
    parseSpec(specWith(module), { env });
    const { module: read, placed } = moduleWithSecretFiles(module, place);
    expect(read.http).toEqual({ headers: { 'X-Client': 'probekit' }, authorization: { type: 'Bearer', credentials_file: '/secrets/http.headers.Authorization' } });
    // The file holds the token alone: the scheme is the type.
    expect(placed.map((secret) => secret.fileRef)).toEqual([{ fromEnv: 'API_TOKEN' }]);
  });

  it('takes secret references in bearer_token, authorization.credentials and basic_auth.password', () => {
    const modules: SpecModule[] = [
      { prober: 'http', http: { bearer_token: { fromEnv: 'API_TOKEN' } } },
      { prober: 'http', http: { authorization: { type: 'Token', credentials: { existingSecret: { name: 'api', key: 'token' } } } } },
      { prober: 'http', http: { basic_auth: { username: 'probe', password: { fromEnv: 'PASSWORD' } } } },
    ];
    for (const module of modules) parseSpec(specWith(module), { env });
    expect(modules.map((module) => moduleWithSecretFiles(module, place).module.http)).toEqual([
      { bearer_token_file: '/secrets/http.bearer_token' },
      { authorization: { type: 'Token', credentials_file: '/secrets/http.authorization.credentials' } },
      { basic_auth: { username: 'probe', password_file: '/secrets/http.basic_auth.password' } },
    ]);
  });

  it.each([
    ['Host', { Host: { fromEnv: 'API_TOKEN' } }, 'modules.api.http.headers.Host: cannot come from a secret: the exporter sends Host as written'],
    ['Content-Length', { 'Content-Length': { fromEnv: 'API_TOKEN' } }, 'modules.api.http.headers.Content-Length: cannot come from a secret: the exporter sets Content-Length itself'],
    ['Connection', { connection: { existingSecret: { name: 'a', key: 'b' } } }, 'modules.api.http.headers.connection: cannot come from a secret: the exporter sets connection itself'],
    ['Authorization without a scheme', { Authorization: { fromEnv: 'API_TOKEN' } }, 'modules.api.http.headers.Authorization.prefix: must be the scheme and one space, for example prefix: "Bearer "'],
    ['Authorization with Basic', { Authorization: { fromEnv: 'API_TOKEN', prefix: 'Basic ' } }, 'modules.api.http.headers.Authorization.prefix: is Basic, which the exporter sends from basic_auth'],
    [
      'Authorization from an existing Secret',
      { Authorization: { existingSecret: { name: 'api', key: 'header' } } },
      'write authorization: { type: Bearer, credentials: { existingSecret: { name, key } } }',
    ],
  ])('refuses a secret %s header with the fix', (_name, headers, expected) => {
    expect(problemsOf(() => parseSpec(specWith({ prober: 'http', http: { headers } }), { env }))).toEqual([expect.stringContaining(expected)]);
  });

  it('refuses a secret Authorization header beside another way of setting it', () => {
    const module: SpecModule = { prober: 'http', http: { headers: { Authorization: { fromEnv: 'API_TOKEN', prefix: 'Bearer ' } }, basic_auth: { username: 'a', password: 'b' } } };
    expect(problemsOf(() => parseSpec(specWith(module), { env }))).toEqual([expect.stringContaining('basic_auth sets it too; keep one of them')]);
  });

  it('says what a secret field must hold without repeating the value', () => {
    const problems = problemsOf(() => parseSpec(specWith({ prober: 'http', http: { bearer_token: 42 as unknown as string } }), { env }));
    expect(problems).toEqual([expect.stringContaining('modules.api.http.bearer_token: must be text, or a secret reference')]);
  });
});
