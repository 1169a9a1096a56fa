/**
 * Talking to each supported Elasticsearch in a way it accepts: the version read from `GET /`, then every request
 * sent with `compatible-with` set to that server's REST API, against the contract server as 7.17, 8.x and 9.x
 * (assistant/test/support/elasticsearch.ts; no real Elasticsearch can run here). The client's own default, version 9 on
 * every request, is shown refused by 8.x, as the real 8.x refuses it.
 */
import { Client } from '@elastic/elasticsearch';
import { connectSearchEngine, createSearchClient, mediaTypes, SearchEngineError } from '../src/connection';
import { ContractElasticsearch, CONTRACT_VERSIONS } from './support/elasticsearch';
import { describeWithBinaries } from '../../test/support/integration';
import { makeTlsPem, OPENSSL, type TlsPem } from '../../exporter/loopback/tls-fixtures';

describeWithBinaries([OPENSSL])('connecting to Elasticsearch', () => {
  const users = {
    elastic: { password: 'pw', roles: { superuser: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } } },
    reader: { password: 'pw', roles: { reader: { cluster: [], index: [{ names: ['logs-*'], privileges: ['read'] }] } } },
  };
  const indices = { 'logs-a': { mappings: { properties: { level: { type: 'keyword' } } }, documents: [{ level: 'warn' }] } };
  let pki: TlsPem;
  beforeAll(() => {
    pki = makeTlsPem();
  });

  it.each(CONTRACT_VERSIONS)('%s: reads the version, then speaks its REST API on every request', async (version) => {
    const es = await ContractElasticsearch.start({ version, users, indices, pki });
    try {
      const engine = await connectSearchEngine({ url: es.url, tls: { ca: pki.ca } }, { username: 'elastic', password: 'pw' });
      const major = Number(version.split('.')[0]);
      expect(engine.version).toEqual({ number: version, major, minor: Number(version.split('.')[1]) });
      const answer = await engine.client.search({ index: 'logs-*', query: { term: { level: 'warn' } } });
      await engine.client.close();
      expect(answer.hits.hits).toHaveLength(1);
      const [info, searched] = es.requests;
      expect(info).toMatchObject({ method: 'GET', path: '/' });
      expect(info!.headers.accept).toBe('application/json, text/plain');
      expect(searched!.headers.accept).toBe(`application/vnd.elasticsearch+json; compatible-with=${major}`);
      expect(searched!.headers['content-type']).toBe(`application/vnd.elasticsearch+json; compatible-with=${major}`);
    } finally {
      await es.close();
    }
  });

  it("8.x refuses the client's own default (version 9), which is why the version is read first", async () => {
    const es = await ContractElasticsearch.start({ version: CONTRACT_VERSIONS[1], users, indices, pki });
    const client = new Client({ node: es.url, auth: { username: 'elastic', password: 'pw' }, tls: { ca: pki.ca }, maxRetries: 0 });
    try {
      await expect(client.search({ index: 'logs-*', query: { match_all: {} } })).rejects.toMatchObject({
        statusCode: 400,
        body: { error: { type: 'media_type_header_exception', caused_by: { reason: expect.stringMatching(/^Accept version must be either version 8 or 7, but found 9\./) } } },
      });
    } finally {
      await client.close();
      await es.close();
    }
  });

  it('credentials that may not read the version get plain JSON, which every version takes as its own', async () => {
    const es = await ContractElasticsearch.start({ version: CONTRACT_VERSIONS[0], users, indices, pki });
    try {
      const engine = await connectSearchEngine({ url: es.url, tls: { ca: pki.ca } }, { username: 'reader', password: 'pw' });
      expect(engine.version).toBeUndefined();
      expect((await engine.client.count({ index: 'logs-a' })).count).toBe(1);
      await engine.client.close();
      expect(es.requests.at(-1)!.headers.accept).toBe('application/json, text/plain');
    } finally {
      await es.close();
    }
  });

  it('a version before 7.17 is refused with the supported ones named; a later major is asked for 9', async () => {
    const old = await ContractElasticsearch.start({ version: '7.16.3', users, indices, pki });
    try {
      const error = await connectSearchEngine({ url: old.url, tls: { ca: pki.ca } }, { username: 'elastic', password: 'pw' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SearchEngineError);
      expect((error as SearchEngineError).message).toBe(`connecting failed: ${old.url} runs Elasticsearch 7.16.3, which probekit does not support (it supports 7.17, 8.x and 9.x); upgrade the engine`);
    } finally {
      await old.close();
    }
    expect(mediaTypes(10).accept).toBe('application/vnd.elasticsearch+json; compatible-with=9,text/plain');
    expect(mediaTypes(undefined)).toEqual({ jsonContentType: 'application/json', ndjsonContentType: 'application/x-ndjson', accept: 'application/json, text/plain' });
  });

  it('the password never appears in what a failure says', async () => {
    const es = await ContractElasticsearch.start({ users, indices, pki });
    try {
      const client = createSearchClient({ url: es.url, tls: { ca: pki.ca } }, { username: 'elastic', password: 'not-the-password-123' });
      const error = await connectSearchEngine({ url: es.url, tls: { ca: pki.ca } }, { username: 'elastic', password: 'not-the-password-123' }).catch((e: unknown) => e);
      await client.close();
      expect((error as Error).message).toMatch(/did not accept the user name and password \(401\)/);
      expect(JSON.stringify(error) + (error as Error).message + String((error as Error).stack)).not.toContain('not-the-password-123');
    } finally {
      await es.close();
    }
  });
});
