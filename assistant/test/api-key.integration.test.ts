/**
 * API key creation and invalidation against the Elasticsearch contract server (assistant/test/support/elasticsearch.ts), as
 * 7.17, 8.x and 9.x, each refusing the media types it refuses. No real Elasticsearch can run here; the server
 * follows Elasticsearch's documented REST contract over real TLS with a CA made by the test.
 */
import { createServer } from 'node:net';
import { apiKeyRequest, createApiKey, DEFAULT_KEY_EXPIRATION, invalidateApiKey, LOG_INDEX_PATTERNS, ROLE_PRESETS } from '../src/api-key';
import { createSearchClient, SearchEngineError } from '../src/connection';
import { ContractElasticsearch, CONTRACT_VERSIONS } from './support/elasticsearch';
import { describeWithBinaries } from '../../test/support/integration';
import { makeTlsPem, OPENSSL, type TlsPem } from '../../exporter/loopback/tls-fixtures';

// The tests' TLS certificates are made with openssl (Node has no API to issue one).
describeWithBinaries([OPENSSL]).each(CONTRACT_VERSIONS)('API keys on Elasticsearch %s', (version) => {
  const PASSWORD = 'pa55-w0rd-NEVER-printed';
  let pki: TlsPem;
  const users = {
    elastic: { password: PASSWORD, roles: { superuser: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } } },
    viewer: { password: PASSWORD, roles: { viewer: { cluster: ['monitor'], index: [{ names: ['*'], privileges: ['read'] }] } } },
  };

  let es: ContractElasticsearch;
  beforeAll(async () => {
    pki = makeTlsPem();
    es = await ContractElasticsearch.start({ users, pki, version });
  });
  afterAll(() => es.close());
  beforeEach(() => es.requests.splice(0));

  const base = () => ({ url: es.url, username: 'elastic', password: PASSWORD, name: 'assistant', tls: { ca: pki.ca } });

  async function failure(promise: Promise<unknown>): Promise<SearchEngineError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SearchEngineError);
    const e = error as SearchEngineError;
    expect(e.message).not.toContain(PASSWORD);
    expect(e.message).not.toContain('\n');
    return e;
  }

  describe('createApiKey', () => {
    it('sends exactly the documented request with the all-access preset and returns a working key', async () => {
      const key = await createApiKey({ ...base(), role: 'all-access' });
      expect(es.requests).toHaveLength(1);
      const [request] = es.requests;
      expect(request!.method).toBe('POST');
      expect(request!.path).toBe('/_security/api_key');
      // The documented Content-Type, and an Accept every version takes with it (no compatible-with on either).
      expect(request!.headers['content-type']).toBe('application/json');
      expect(request!.headers.accept).toBe('application/json');
      expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`elastic:${PASSWORD}`).toString('base64')}`);
      expect(request!.body).toEqual({
        name: 'assistant',
        role_descriptors: { all_access: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } },
        expiration: DEFAULT_KEY_EXPIRATION,
        metadata: { application: 'probekit', purpose: "the assistant's search-engine skills", role_preset: 'all-access' },
      });
      expect(Object.keys(key).sort()).toEqual(['api_key', 'encoded', 'expiration', 'id', 'name']);
      expect(key.name).toBe('assistant');
      expect(Buffer.from(key.encoded, 'base64').toString()).toBe(`${key.id}:${key.api_key}`);

      // The encoded value authenticates as `Authorization: ApiKey <encoded>`.
      const client = createSearchClient({ url: es.url, tls: { ca: pki.ca } }, { apiToken: key.encoded });
      const me = await client.security.authenticate();
      await client.close();
      expect(me.api_key?.id).toBe(key.id);
      expect(es.requests.at(-1)!.headers.authorization).toBe(`ApiKey ${key.encoded}`);
    });

    it('sends the read-only preset, which is the default, on the log patterns, expiring, with metadata the engine keeps', async () => {
      const key = await createApiKey({ ...base(), expiration: '30d' });
      expect(es.requests[0]!.body).toEqual({
        name: 'assistant',
        role_descriptors: {
          probekit_assistant_read_only: { cluster: ['monitor'], index: [{ names: ['logs-*', 'filebeat-*', 'logstash-*'], privileges: ['read', 'view_index_metadata', 'monitor'] }] },
        },
        expiration: '30d',
        metadata: { application: 'probekit', purpose: "the assistant's search-engine skills", role_preset: 'read-only' },
      });
      expect(es.apiKeys.get(key.id)!.metadata).toMatchObject({ application: 'probekit' });
      expect(key.expiration).toBeGreaterThan(Date.now() + 29 * 86_400_000);
      const hour = await createApiKey({ ...base(), role: 'read-only', expiration: '1h', indices: ['app-logs-*'] });
      expect(hour.expiration).toBeGreaterThan(Date.now() + 3_500_000);
      expect(es.apiKeys.get(hour.id)!.roleDescriptors).toEqual({
        probekit_assistant_read_only: { cluster: ['monitor'], index: [{ names: ['app-logs-*'], privileges: ['read', 'view_index_metadata', 'monitor'] }] },
      });
      const forever = await createApiKey({ ...base(), expiration: 'never' });
      expect(forever.expiration).toBeUndefined();
      expect(es.requests.at(-1)!.body).not.toHaveProperty('expiration');
    });

    it('has the documented all_access role exactly', () => {
      expect(ROLE_PRESETS['all-access']).toEqual({ all_access: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } });
      expect(apiKeyRequest('k', { role: 'all-access' }).role_descriptors).toEqual(ROLE_PRESETS['all-access']);
      expect(LOG_INDEX_PATTERNS).toEqual(['logs-*', 'filebeat-*', 'logstash-*']);
    });

    it('refuses bad input before sending anything', async () => {
      expect((await failure(createApiKey({ ...base(), name: ' ' }))).message).toBe('name: the API key needs a name; pass --name');
      expect((await failure(createApiKey({ ...base(), role: 'admin' as never }))).message).toBe('role: "admin" is not a preset; use one of all-access, read-only');
      expect((await failure(createApiKey({ ...base(), indices: [] }))).message).toBe('indices: give at least one index pattern, e.g. logs-*');
      expect((await failure(createApiKey({ ...base(), url: 'ftp://x' }))).failure).toBe('bad-input');
      expect((await failure(createApiKey({ ...base(), url: `https://elastic:${PASSWORD}@127.0.0.1:1` }))).failure).toBe('bad-input');
      expect((await failure(createApiKey({ ...base(), tls: { caFile: '/nonexistent/ca.pem' } }))).message).toBe(
        "ca-file: cannot read /nonexistent/ca.pem (ENOENT); give the PEM file of the engine's CA",
      );
      expect(es.requests).toHaveLength(0);
    });

    it('401: a wrong password', async () => {
      const e = await failure(createApiKey({ ...base(), password: 'wrong' }));
      expect(e.failure).toBe('unauthorized');
      expect(e.message).toBe(
        `creating the API key failed: ${es.url} did not accept the user name and password (401): security_exception: unable to authenticate user [elastic] for REST request [/_security/api_key]`,
      );
    });

    it('403: a user without an API-key privilege', async () => {
      const e = await failure(createApiKey({ ...base(), username: 'viewer' }));
      expect(e.failure).toBe('forbidden');
      expect(e.message).toBe(
        `creating the API key failed: ${es.url} refused it to these credentials (403): security_exception: action [cluster:admin/xpack/security/api_key/create] is unauthorized for user [viewer] with effective roles [viewer], this action is granted by the cluster privileges [manage_own_api_key,manage_api_key,manage_security,all]`,
      );
    });

    it("400: the engine's error body, e.g. an expiration it cannot parse", async () => {
      const e = await failure(createApiKey({ ...base(), expiration: '30x' }));
      expect(e.failure).toBe('bad-request');
      expect(e.message).toBe(
        `creating the API key failed: ${es.url} rejected the request (400): x_content_parse_exception: [1:1] [api_key_request] failed to parse field [expiration] (caused by: failed to parse setting [expiration] with value [30x] as a time value: unit is missing or unrecognized)`,
      );
    });

    it('connection refused', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as { port: number }).port;
      await new Promise((resolve) => closed.close(resolve));
      const e = await failure(createApiKey({ ...base(), url: `https://127.0.0.1:${port}` }));
      expect(e.failure).toBe('connection-refused');
      expect(e.message).toBe(`creating the API key failed: connection to https://127.0.0.1:${port} refused; check the URL and port and that the engine is running`);
    });

    it('TLS: a certificate from an unknown CA fails verification, --insecure skips it', async () => {
      const e = await failure(createApiKey({ ...base(), tls: {} }));
      expect(e.failure).toBe('tls');
      expect(e.message).toMatch(
        new RegExp(`^creating the API key failed: TLS verification of ${es.url} failed \\(.*certificate.*\\); give the engine's CA with --ca-file, or --insecure to skip verification$`),
      );
      const other = makeTlsPem({ caName: 'another CA' });
      expect((await failure(createApiKey({ ...base(), tls: { ca: other.ca } }))).failure).toBe('tls');
      const key = await createApiKey({ ...base(), tls: { insecure: true } });
      expect(key.name).toBe('assistant');
    });

    it('timeout', async () => {
      const slow = await ContractElasticsearch.start({ users, pki, version, delayMs: 1500 });
      try {
        const e = await failure(createApiKey({ ...base(), url: slow.url, timeoutMs: 300 }));
        expect(e.failure).toBe('timeout');
        expect(e.message).toBe(`creating the API key failed: no answer from ${slow.url} in time (timeout); check that the engine is up and reachable from here`);
      } finally {
        await slow.close();
      }
    });

    it('a server that is not Elasticsearch (no x-elastic-product header)', async () => {
      const impostor = await ContractElasticsearch.start({ users, pki, version, notElasticsearch: true });
      try {
        const e = await failure(createApiKey({ ...base(), url: impostor.url }));
        expect(e.failure).toBe('not-elasticsearch');
      } finally {
        await impostor.close();
      }
    });

    it('5xx: any other status, with the reason', async () => {
      const broken = await ContractElasticsearch.start({
        users,
        pki,
        version,
        override: () => ({ status: 500, body: { error: { root_cause: [{ type: 'exception', reason: 'shard failure' }], type: 'exception', reason: 'shard failure' }, status: 500 } }),
      });
      try {
        const e = await failure(createApiKey({ ...base(), url: broken.url }));
        expect(e.message).toBe(`creating the API key failed: ${broken.url} answered 500: exception: shard failure`);
      } finally {
        await broken.close();
      }
    });
  });

  describe('invalidateApiKey', () => {
    it('sends DELETE /_security/api_key with the id; the key stops authenticating', async () => {
      const key = await createApiKey({ ...base(), role: 'all-access' });
      es.requests.splice(0);
      const result = await invalidateApiKey({ url: es.url, username: 'elastic', password: PASSWORD, id: key.id, tls: { ca: pki.ca } });
      expect(result).toEqual({ invalidated: [key.id], previouslyInvalidated: [] });
      expect(es.requests[0]).toMatchObject({ method: 'DELETE', path: '/_security/api_key', body: { ids: [key.id] } });
      expect(es.requests[0]!.headers['content-type']).toBe('application/json');

      const client = createSearchClient({ url: es.url, tls: { ca: pki.ca } }, { apiToken: key.encoded });
      await expect(client.security.authenticate()).rejects.toMatchObject({ statusCode: 401 });
      await client.close();

      const again = await invalidateApiKey({ url: es.url, username: 'elastic', password: PASSWORD, id: key.id, tls: { ca: pki.ca } });
      expect(again).toEqual({ invalidated: [], previouslyInvalidated: [key.id] });
    });

    it('an unknown id is an error', async () => {
      const e = await failure(invalidateApiKey({ url: es.url, username: 'elastic', password: PASSWORD, id: 'nope', tls: { ca: pki.ca } }));
      expect(e.message).toBe('invalidating API key nope failed: the engine knows no key with this id');
    });

    it('401 with a wrong password', async () => {
      const e = await failure(invalidateApiKey({ url: es.url, username: 'elastic', password: 'bad', id: 'x', tls: { ca: pki.ca } }));
      expect(e.failure).toBe('unauthorized');
    });
  });

  describe('the contract server', () => {
    it('lists keys with GET /_security/api_key as Elasticsearch does', async () => {
      const key = await createApiKey({ ...base(), name: 'listed', role: 'read-only' });
      const client = createSearchClient({ url: es.url, tls: { ca: pki.ca } }, { username: 'elastic', password: PASSWORD });
      const listed = await client.security.getApiKey({ id: key.id });
      await expect(client.security.getApiKey({ id: 'missing' })).rejects.toMatchObject({ statusCode: 404 });
      await client.close();
      expect(listed.api_keys).toEqual([
        expect.objectContaining({
          id: key.id,
          name: 'listed',
          invalidated: false,
          username: 'elastic',
          role_descriptors: ROLE_PRESETS['read-only'],
          metadata: expect.objectContaining({ role_preset: 'read-only' }),
        }),
      ]);
      expect(es.requests.at(-2)).toMatchObject({ method: 'GET', path: '/_security/api_key', query: { id: key.id } });
    });
  });
});
