/**
 * The Elasticsearch contract server refuses what each real version refuses and computes what it computes; the
 * skills' tests are only as strict as it is. Requests here are raw HTTPS, so that every header is the test's own.
 * The sources its behaviours were checked against are listed in its header (assistant/test/support/elasticsearch.ts).
 */
import { request } from 'node:https';
import { OPENSSL } from '../../../exporter/loopback/tls-fixtures';
import { ContractElasticsearch, CONTRACT_VERSIONS, type ContractIndex } from './elasticsearch';
import { describeWithBinaries } from '../../../test/support/integration';

const USERS = { elastic: { password: 'contract-password', roles: { superuser: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } } } };
const AUTH = `Basic ${Buffer.from('elastic:contract-password').toString('base64')}`;
const VND = (version: number) => `application/vnd.elasticsearch+json; compatible-with=${version}`;

const keywordIndex: ContractIndex = {
  mappings: { properties: { '@timestamp': { type: 'date' }, level: { type: 'keyword' }, msg: { type: 'text' }, sev: { type: 'alias', path: 'level' } } },
  documents: [
    { '@timestamp': '2026-11-18T23:30:00Z', level: 'error', msg: 'disk full on node one' },
    { '@timestamp': '2026-11-19T00:30:00Z', level: 'warn', msg: 'disk almost full' },
    { '@timestamp': '2026-11-19T12:00:00Z', level: 'error', msg: 'node one gone' },
    { '@timestamp': '2026-11-19T23:59:59.999Z', level: 'info', msg: 'full backup done' },
    { '@timestamp': '2026-11-20T00:00:00Z', level: 'error', msg: 'disk full again' },
  ],
};
const textIndex: ContractIndex = {
  mappings: { properties: { '@timestamp': { type: 'date' }, level: { type: 'text', fields: { keyword: { type: 'keyword' } } }, msg: { type: 'text' } } },
  documents: [{ '@timestamp': '2026-11-19T06:00:00Z', level: 'ERROR', msg: 'text layout line' }],
};
const noTimestamp: ContractIndex = { mappings: { properties: { level: { type: 'keyword' } } }, documents: [{ level: 'error' }] };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

describeWithBinaries([OPENSSL])('the Elasticsearch contract server', () => {
  const servers = new Map<string, ContractElasticsearch>();
  const NOW = Date.parse('2026-11-19T12:10:00Z');

  beforeAll(async () => {
    for (const version of CONTRACT_VERSIONS) {
      servers.set(
        version,
        await ContractElasticsearch.start({
          version,
          users: USERS,
          now: () => NOW,
          indices: { 'logs-keyword': keywordIndex, 'logs-text': textIndex, 'logs-old': noTimestamp },
          dataStreams: {
            'logs-app-default': {
              generations: [
                { created: '2026.11.18', ...keywordIndex },
                { created: '2026.11.20', ...keywordIndex, documents: keywordIndex.documents.slice(4) },
              ],
            },
          },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const es of servers.values()) await es.close();
  });

  function send(version: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const es = servers.get(version)!;
    const text = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${es.url}${path}`,
        {
          method,
          ca: es.pki.ca,
          headers: { authorization: AUTH, ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }), ...headers },
        },
        (res) => {
          let data = '';
          res.on('data', (chunk) => (data += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data === '' ? undefined : JSON.parse(data) }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }
  const search = (version: string, index: string, body: unknown) => send(version, 'POST', `/${index}/_search`, body);
  const [V7, V8, V9] = CONTRACT_VERSIONS;

  describe('media types, as each major checks them', () => {
    it.each([
      [V9, 9, 200, undefined],
      [V9, 8, 200, undefined],
      [V9, 7, 400, 'Accept version must be either version 9 or 8, but found 7. Accept=application/vnd.elasticsearch+json; compatible-with=7'],
      [V8, 8, 200, undefined],
      [V8, 7, 200, undefined],
      [V8, 9, 400, 'Accept version must be either version 8 or 7, but found 9. Accept=application/vnd.elasticsearch+json; compatible-with=9'],
      [V7, 7, 200, undefined],
      [V7, 8, 400, 'Accept version must be either version 7 or 7, but found 8. Accept=application/vnd.elasticsearch+json; compatible-with=8'],
    ])('%s with compatible-with=%i on both headers: %i', async (version, compatible, status, reason) => {
      const answer = await search(version, 'logs-keyword', { size: 0 }).then(() =>
        send(version, 'POST', '/logs-keyword/_search', { size: 0 }, { accept: VND(compatible), 'content-type': VND(compatible) }),
      );
      expect(answer.status).toBe(status);
      if (reason === undefined) {
        expect(answer.headers['content-type']).toBe(`application/vnd.elasticsearch+json;compatible-with=${compatible}`);
      } else {
        expect(answer.body.error).toMatchObject({
          type: 'media_type_header_exception',
          reason: 'Invalid media-type value on headers [Accept, Content-Type]',
          caused_by: { type: 'status_exception', reason },
        });
      }
    });

    it.each(CONTRACT_VERSIONS)('%s: a body whose Content-Type has no version while Accept has one is refused; plain JSON on both is taken', async (version) => {
      const major = Number(version.split('.')[0]);
      const mixed = await send(version, 'POST', '/_security/api_key', { name: 'k' }, { accept: VND(major), 'content-type': 'application/json' });
      expect(mixed.status).toBe(400);
      expect(mixed.body.error.caused_by.reason).toMatch(/^A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version\. /);
      const plain = await send(version, 'POST', '/_security/api_key', { name: 'k' }, { accept: 'application/json', 'content-type': 'application/json' });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-type']).toBe('application/json');
    });

    it('a header listing several media types is a range and counts as none; a body of another type is refused with 406', async () => {
      expect((await send(V8, 'GET', '/', undefined, { accept: `${VND(9)},text/plain` })).status).toBe(200);
      const wrongType = await new Promise<number>((resolve) => {
        const es = servers.get(V9)!;
        const req = request(`${es.url}/logs-keyword/_search`, { method: 'POST', ca: es.pki.ca, headers: { authorization: AUTH, 'content-type': 'text/plain' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.end('{}');
      });
      expect(wrongType).toBe(406);
    });

    it.each(CONTRACT_VERSIONS)('%s reports its version at GET /', async (version) => {
      expect((await send(version, 'GET', '/')).body.version.number).toBe(version);
    });
  });

  describe('the query DSL, strictly', () => {
    it.each([
      [{ query: { term: { level: { value: 'error', boost: 1, caseInsensitive: true } } } }, '[term] query does not support [caseInsensitive]'],
      [{ query: { terrm: { level: 'error' } } }, 'unknown query [terrm]'],
      [{ sizee: 1 }, 'Unknown key for a VALUE_NUMBER in [sizee].'],
      [{ query: { bool: { filter: [], should_not: [] } } }, '[bool] query does not support [should_not]'],
      [{ query: { range: { '@timestamp': { gte: 'now-1h', lt_: 'now' } } } }, '[range] query does not support [lt_]'],
    ])('%j is refused: %s', async (body, reason) => {
      const answer = await search(V9, 'logs-keyword', body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'parsing_exception', reason });
    });

    it('an alias is queried, aggregated and fetched as its target', async () => {
      const answer = await search(V9, 'logs-keyword', { size: 1, query: { term: { sev: 'warn' } }, fields: ['sev'], aggs: { by: { terms: { field: 'sev' } } } });
      expect(answer.body.hits.total).toEqual({ value: 1, relation: 'eq' });
      expect(answer.body.hits.hits[0].fields).toEqual({ sev: ['warn'] });
      expect(answer.body.aggregations.by.buckets).toEqual([{ key: 'warn', doc_count: 1 }]);
    });
  });

  describe('shards: text fields, unmapped sorts and partial answers', () => {
    it.each([
      [V7, /^Text fields are not optimised for operations/],
      [V8, /^Fielddata is disabled on \[level\] in \[logs-text\]\. Text fields are not optimised/],
      [V9, /^Fielddata is disabled on \[level\] in \[logs-text\]\./],
    ])('%s: aggregating a text field fails every shard: 400 all shards failed', async (version, reason) => {
      const answer = await search(version, 'logs-text', { size: 0, aggs: { by: { terms: { field: 'level' } } } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'search_phase_execution_exception', reason: 'all shards failed', root_cause: [{ type: 'illegal_argument_exception' }] });
      expect(answer.body.error.root_cause[0].reason).toMatch(reason);
    });

    it('where some shards fail, the answer is 200 with what the others found and the failures', async () => {
      const answer = await search(V9, 'logs-keyword,logs-text', { size: 0, aggs: { by: { terms: { field: 'level' } } } });
      expect(answer.status).toBe(200);
      expect(answer.body._shards).toMatchObject({ total: 2, successful: 1, failed: 1, failures: [{ index: 'logs-text', reason: { type: 'illegal_argument_exception' } }] });
      expect(answer.body.aggregations.by.buckets.map((b: { doc_count: number }) => b.doc_count)).toEqual([3, 1, 1]);
    });

    it('sorting by a field an index does not map fails its shard, unless unmapped_type says what it is', async () => {
      const failing = await search(V9, 'logs-keyword,logs-old', { sort: [{ '@timestamp': 'desc' }] });
      expect(failing.body._shards.failures).toEqual([
        { shard: 0, index: 'logs-old', node: 'contract-node-1', reason: { type: 'query_shard_exception', reason: 'No mapping found for [@timestamp] in order to sort on' } },
      ]);
      const tolerant = await search(V9, 'logs-keyword,logs-old', { size: 10, sort: [{ '@timestamp': { order: 'desc', unmapped_type: 'date' } }] });
      expect(tolerant.body._shards.failed).toBe(0);
      expect(tolerant.body.hits.hits.map((h: { _index: string }) => h._index)).toEqual(['logs-keyword', 'logs-keyword', 'logs-keyword', 'logs-keyword', 'logs-keyword', 'logs-old']);
    });

    it('categorize_text is refused on the basic licence the contract server stands for', async () => {
      const answer = await search(V9, 'logs-keyword', { size: 0, aggs: { kinds: { categorize_text: { field: 'msg' } } } });
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({ type: 'security_exception', reason: 'current license is non-compliant for [categorize-text-agg]' });
    });

    it('a search over no index answers no aggregations at all', async () => {
      const answer = await search(V9, 'nothing-*', { size: 0, aggs: { by: { terms: { field: 'level' } } } });
      expect(answer.body).toMatchObject({ _shards: { total: 0 }, hits: { total: { value: 0 } } });
      expect(answer.body.aggregations).toBeUndefined();
    });
  });

  describe('time: date math, rounding and time zones', () => {
    const count = async (range: Record<string, unknown>) => (await search(V9, 'logs-keyword', { size: 0, query: { range: { '@timestamp': range } } })).body.hits.total.value;

    it('now-relative windows and rounding follow the range query rules', async () => {
      // now is 2026-11-19T12:10Z.
      expect(await count({ gte: 'now-15m', lte: 'now' })).toBe(1);
      expect(await count({ gte: 'now/d', lt: 'now+1d/d' })).toBe(3);
      expect(await count({ lt: 'now/d' })).toBe(1);
      expect(await count({ gt: 'now-1d/d' })).toBe(4); // gt rounds up: after the whole of the 18th
      expect(await count({ lte: '2026-11-19' })).toBe(4); // a date as upper bound rounds up to its last millisecond
      expect(await count({ gte: '2026-11-19', lt: '2026-11-19||+1d' })).toBe(3);
    });

    it('a time zone moves days and rounding', async () => {
      // Midnight in +05:00 is 19:00Z the day before.
      expect(await count({ gte: '2026-11-19', lt: '2026-11-19||+1d', time_zone: '+05:00' })).toBe(3);
      // 12:10Z is 07:10 in New York, whose day began at 05:00Z.
      expect(await count({ gte: 'now/d', time_zone: 'America/New_York' })).toBe(3);
      expect(await count({ gte: 'now-8h/d', time_zone: 'America/New_York' })).toBe(5); // 04:10Z is still the 18th there
      const histogram = await search(V9, 'logs-keyword', { size: 0, aggs: { days: { date_histogram: { field: '@timestamp', calendar_interval: '1d', time_zone: 'Europe/Zurich' } } } });
      expect(histogram.body.aggregations.days.buckets).toEqual([
        { key_as_string: '2026-11-19T00:00:00.000+01:00', key: Date.parse('2026-11-18T23:00:00Z'), doc_count: 3 },
        { key_as_string: '2026-11-20T00:00:00.000+01:00', key: Date.parse('2026-11-19T23:00:00Z'), doc_count: 2 },
      ]);
    });

    it('extended bounds in date math show empty buckets; a calendar interval must be one unit', async () => {
      const answer = await search(V9, 'logs-keyword', {
        size: 0,
        query: { range: { '@timestamp': { gte: 'now-1d/d' } } },
        aggs: { hours: { date_histogram: { field: '@timestamp', fixed_interval: '12h', min_doc_count: 0, extended_bounds: { min: 'now-1d/d', max: 'now+1d/d' } } } },
      });
      expect(answer.body.aggregations.hours.buckets.map((b: { doc_count: number }) => b.doc_count)).toEqual([0, 1, 1, 2, 1]);
      const wrong = await search(V9, 'logs-keyword', { size: 0, aggs: { d: { date_histogram: { field: '@timestamp', calendar_interval: '2d' } } } });
      expect(wrong.body.error.reason).toBe('The supplied interval [2d] could not be parsed as a calendar interval.');
    });
  });

  describe('data streams, aggregations and paging', () => {
    it('a data stream is searched through its backing indices, listed by _data_stream, and mapped per backing index', async () => {
      const found = await search(V9, 'logs-app-*', { size: 0, aggs: { where: { terms: { field: '_index' } } } });
      expect(found.body.aggregations.where.buckets).toEqual([
        { key: '.ds-logs-app-default-2026.11.18-000001', doc_count: 5 },
        { key: '.ds-logs-app-default-2026.11.20-000002', doc_count: 1 },
      ]);
      const streams = await send(V9, 'GET', '/_data_stream/logs-*');
      expect(streams.body.data_streams).toEqual([expect.objectContaining({ name: 'logs-app-default', generation: 2, timestamp_field: { name: '@timestamp' } })]);
      const cat = await send(V9, 'GET', '/_cat/indices/logs-*?format=json&h=index');
      expect(cat.body.map((row: { index: string }) => row.index)).toEqual([
        '.ds-logs-app-default-2026.11.18-000001',
        '.ds-logs-app-default-2026.11.20-000002',
        'logs-keyword',
        'logs-old',
        'logs-text',
      ]);
      expect(Object.keys((await send(V9, 'GET', '/logs-app-default/_mapping')).body)).toEqual(['.ds-logs-app-default-2026.11.18-000001', '.ds-logs-app-default-2026.11.20-000002']);
    });

    it('filters with the other bucket, top_hits, min, max and cardinality are computed over every match', async () => {
      const answer = await search(V9, 'logs-keyword', {
        size: 0,
        aggs: {
          words: {
            filters: { filters: { disk: { match_phrase: { msg: 'disk full' } }, node: { match: { msg: 'node' } } }, other_bucket_key: 'rest' },
            aggs: { newest: { top_hits: { size: 1, _source: false, fields: ['msg'], sort: [{ '@timestamp': 'desc' }] } }, first: { min: { field: '@timestamp' } } },
          },
          levels: { cardinality: { field: 'level' } },
          last: { max: { field: '@timestamp' } },
        },
      });
      const { words, levels, last } = answer.body.aggregations;
      expect(Object.fromEntries(Object.entries(words.buckets).map(([key, bucket]) => [key, (bucket as { doc_count: number }).doc_count]))).toEqual({ disk: 2, node: 2, rest: 2 });
      expect(words.buckets.disk.newest.hits.hits[0].fields).toEqual({ msg: ['disk full again'] });
      expect(words.buckets.disk.first).toEqual({ value: Date.parse('2026-11-18T23:30:00Z'), value_as_string: '2026-11-18T23:30:00.000Z' });
      expect(levels).toEqual({ value: 3 });
      expect(last.value_as_string).toBe('2026-11-20T00:00:00.000Z');
    });

    it('search_after pages through a sort without repeating or skipping', async () => {
      const sort = [{ '@timestamp': { order: 'desc' } }, { _index: { order: 'asc' } }, { _doc: { order: 'asc' } }];
      const seen: string[] = [];
      let after: unknown[] | undefined;
      for (let page = 0; page < 5; page += 1) {
        const answer = await search(V9, 'logs-keyword,logs-app-default', { size: 4, sort, ...(after ? { search_after: after } : {}), _source: false, fields: ['msg'] });
        const hits = answer.body.hits.hits as { _id: string; sort: unknown[] }[];
        if (hits.length === 0) break;
        seen.push(...hits.map((hit) => hit._id));
        after = hits.at(-1)!.sort;
      }
      expect(seen).toHaveLength(11);
      expect(new Set(seen).size).toBe(11);
      expect((await search(V9, 'logs-keyword', { size: 1, search_after: [1] })).body.error.type).toBe('action_request_validation_exception');
    });
  });

  it('7.x takes the fields of _field_caps in the query string only; 8.x and later in the body too', async () => {
    const body = { fields: ['level'] };
    expect((await send(V7, 'POST', '/logs-keyword/_field_caps', body)).body.error.reason).toBe('[1:2] [field_caps_request] unknown field [fields]');
    expect((await send(V8, 'POST', '/logs-keyword/_field_caps', body)).status).toBe(200);
    const caps = await send(V7, 'GET', '/logs-*/_field_caps?fields=level,%40timestamp&include_unmapped=true');
    expect(caps.body.fields.level).toEqual({
      keyword: {
        type: 'keyword',
        metadata_field: false,
        searchable: true,
        aggregatable: true,
        indices: ['.ds-logs-app-default-2026.11.18-000001', '.ds-logs-app-default-2026.11.20-000002', 'logs-keyword', 'logs-old'],
      },
      text: { type: 'text', metadata_field: false, searchable: true, aggregatable: false, indices: ['logs-text'] },
    });
    expect(caps.body.fields['@timestamp'].unmapped).toEqual({ type: 'unmapped', metadata_field: false, searchable: false, aggregatable: false, indices: ['logs-old'] });
  });
});
