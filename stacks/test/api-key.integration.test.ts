/**
 * The API-key resource's CRUD against the Elasticsearch contract server (assistant/test/support/elasticsearch.ts): no real
 * Elasticsearch and no Pulumi engine can run here. The provider under test is the one `pulumi up` would run: the
 * text Pulumi serializes into the resource's `__provider` input, loaded the way Pulumi's dynamic-provider host
 * loads it, so the test also proves the closure survives serialization.
 */
import * as pulumi from '@pulumi/pulumi';
import { apiKeyProvider, SearchEngineApiKey, type ApiKeyInputs, type ApiKeyOutputs } from '../api-key';
import { ROLE_PRESETS } from '@probekit/assistant';
import { ContractElasticsearch, CONTRACT_VERSIONS } from '../../assistant/test/support/elasticsearch';
import { describeWithBinaries } from '../../test/support/integration';
import { makeTlsPem, OPENSSL, type TlsPem } from '../../exporter/loopback/tls-fixtures';
import { isSecretValue } from './support/pulumi-mocks';

// The dynamic-provider host (@pulumi/pulumi/cmd/dynamic-provider) loads providers with this module.
const requireFromString = require('require-from-string') as (code: string) => { handler(): typeof apiKeyProvider };

// The contract server's TLS certificates are made with openssl (Node has no API to issue one).
describeWithBinaries([OPENSSL]).each(CONTRACT_VERSIONS)('the API-key resource on Elasticsearch %s', (version) => {
  const PASSWORD = 'admin-pa55-NEVER-in-a-message';
  let pki: TlsPem;
  const superuser = { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] };

  let es: ContractElasticsearch;
  let provider: typeof apiKeyProvider;
  let registeredInputs: Record<string, unknown>;

  beforeAll(async () => {
    pki = makeTlsPem();
    es = await ContractElasticsearch.start({ users: { elastic: { password: PASSWORD, roles: { superuser } } }, pki, version });

    const registered: Record<string, unknown>[] = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => (registered.push(args.inputs), { id: 'key-id', state: args.inputs }),
        call: () => ({}),
      },
      'probekit',
      'test',
    );
    new SearchEngineApiKey('search-engine', { ...inputs(), password: PASSWORD });
    await pulumi.runtime.disconnect();
    registeredInputs = registered[0]!;
    provider = requireFromString(registeredInputs.__provider as string).handler();
  });
  afterAll(() => es.close());
  beforeEach(() => es.requests.splice(0));

  function inputs(overrides: Partial<ApiKeyInputs> = {}): ApiKeyInputs {
    return { url: es.url, username: 'elastic', password: PASSWORD, name: 'probekit-test', role: 'read-only', ca: pki.ca, ...overrides };
  }

  async function created(overrides: Partial<ApiKeyInputs> = {}): Promise<{ id: string; outs: ApiKeyOutputs }> {
    const result = await provider.create(inputs(overrides));
    return { id: result.id, outs: result.outs! };
  }

  describe('the serialized resource', () => {
    it('registers the password as a secret and captures no credential in the provider code', () => {
      expect(isSecretValue(registeredInputs.password)).toBe(true);
      expect(registeredInputs.__provider).not.toContain(PASSWORD);
      expect(registeredInputs.__provider).toContain('_security');
    });
  });

  describe('create', () => {
    it('POSTs _security/api_key with basic credentials and the preset role, and keeps encoded', async () => {
      const { id, outs } = await created({ role: 'all-access' });
      expect(es.requests).toHaveLength(1);
      const [request] = es.requests;
      expect(request!.method).toBe('POST');
      expect(request!.path).toBe('/_security/api_key');
      expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`elastic:${PASSWORD}`).toString('base64')}`);
      // Plain JSON, which every version takes; no expiry, since the stack replaces and invalidates its key itself.
      expect(request!.headers['content-type']).toBe('application/json');
      expect(request!.headers.accept).toBe('application/json');
      expect(request!.body).toEqual({
        name: 'probekit-test',
        role_descriptors: ROLE_PRESETS['all-access'],
        metadata: { application: 'probekit', purpose: "the assistant's search-engine skills", role_preset: 'all-access' },
      });

      const key = es.apiKeys.get(id)!;
      expect(key.invalidated).toBe(false);
      expect(outs.encoded).toBe(Buffer.from(`${id}:${key.apiKey}`).toString('base64'));
      expect(outs).toMatchObject({ url: es.url, name: 'probekit-test', role: 'all-access' });
    });

    it('fails in one line without the password when the credentials are wrong', async () => {
      const error = await provider.create(inputs({ password: 'wrong-password' })).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/401/);
      expect(error?.message).not.toContain('wrong-password');
      expect(error?.message).not.toContain('\n');
    });
  });

  describe('update', () => {
    it('finds no change when nothing changed', async () => {
      const { id, outs } = await created();
      await expect(provider.diff!(id, outs, inputs())).resolves.toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    });

    it('keeps the key when only the admin credentials change', async () => {
      const { id, outs } = await created();
      es.requests.splice(0);
      const news = inputs({ password: 'rotated-admin-password', insecure: true });
      await expect(provider.diff!(id, outs, news)).resolves.toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
      const updated = await provider.update!(id, outs, news);
      expect(updated.outs).toEqual({ ...news, encoded: outs.encoded });
      expect(es.requests).toHaveLength(0);
      expect(es.apiKeys.get(id)!.invalidated).toBe(false);
    });

    it.each<[keyof ApiKeyInputs, Partial<ApiKeyInputs>]>([
      ['name', { name: 'probekit-renamed' }],
      ['role', { role: 'all-access' }],
      ['url', { url: 'https://127.0.0.1:1' }],
      ['indices', { indices: ['app-logs-*'] }],
      ['expiration', { expiration: '30d' }],
    ])('replaces the key when its %s changes', async (field, change) => {
      const { id, outs } = await created();
      await expect(provider.diff!(id, outs, inputs(change))).resolves.toEqual({ changes: true, replaces: [field], deleteBeforeReplace: false });
    });
  });

  describe('delete', () => {
    it('invalidates the key by id', async () => {
      const { id, outs } = await created();
      es.requests.splice(0);
      await provider.delete!(id, outs);
      expect(es.requests).toHaveLength(1);
      expect(es.requests[0]).toMatchObject({ method: 'DELETE', path: '/_security/api_key', body: { ids: [id] } });
      expect(es.apiKeys.get(id)!.invalidated).toBe(true);
    });

    it('succeeds for a key that is invalidated already or unknown to the engine', async () => {
      const { id, outs } = await created();
      await provider.delete!(id, outs);
      await expect(provider.delete!(id, outs)).resolves.toBeUndefined();
      await expect(provider.delete!('no-such-key-id', outs)).resolves.toBeUndefined();
    });

    it('fails when the engine refuses the credentials, so that Pulumi keeps the key in its state', async () => {
      const { id, outs } = await created();
      await expect(provider.delete!(id, { ...outs, password: 'wrong-password' })).rejects.toThrow(/401/);
      expect(es.apiKeys.get(id)!.invalidated).toBe(false);
    });
  });
});
