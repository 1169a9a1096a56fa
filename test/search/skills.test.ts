/**
 * The assistant's skills over a realistic log data set in two layouts (test/search/fixtures/logs.ts), served by the
 * Elasticsearch contract server (test/support/elasticsearch.ts). No real Elasticsearch can run here; the server
 * follows its documented REST contract, including the query DSL and aggregations our queries use, and refuses to
 * aggregate on text fields as Elasticsearch does, so wrong field detection fails these tests.
 * The skills run with a key of the read-only preset: it is enough for all of them.
 */
import { ROLE_PRESETS } from '../../src/search/api-key';
import { createSearchClient, SearchEngineError } from '../../src/search/connection';
import { detectLogFields, ECS_LOG_FIELDS } from '../../src/search/log-fields';
import { messagePattern } from '../../src/search/log-patterns';
import { createSkillContext, runSkill, SkillInputError, type SkillContext } from '../../src/search/skill';
import { BUILT_IN_SKILLS } from '../../src/search/skills';
import { ContractElasticsearch } from '../support/elasticsearch';
import { describeWithBinaries } from '../support/integration';
import { OPENSSL } from '../../exporter/loopback/tls-fixtures';
import { CART, CHECKOUT, ECS_INDEX, EXPLICIT_INDEX, FLUENT_INDEX, LAYOUTS, LOG_INDICES, LOG_USERS, PAYMENTS, rows, type Row } from './fixtures/logs';

// The tests' TLS certificates are made with openssl (Node has no API to issue one).
describeWithBinaries([OPENSSL])('skills', () => {
  let es: ContractElasticsearch;
  let token: string;
  const clients: ReturnType<typeof createSearchClient>[] = [];

  beforeAll(async () => {
    es = await ContractElasticsearch.start({ users: LOG_USERS, indices: LOG_INDICES });
    token = es.addApiKey('elastic', 'assistant', ROLE_PRESETS['read-only']).encoded;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await es.close();
  });

  function context(fields = {}): SkillContext {
    const client = createSearchClient({ url: es.url, tls: { ca: es.pki.ca } }, { apiToken: token });
    clients.push(client);
    return createSkillContext({ client, url: es.url, fields });
  }

  const call = (name: string, input: unknown, ctx = context()) => runSkill(BUILT_IN_SKILLS, name, input, ctx);

  describe('field detection', () => {
    it('reads ECS names from ECS mappings', async () => {
      expect(await context().logFields(ECS_INDEX)).toEqual(ECS_LOG_FIELDS);
    });

    it('finds Fluent Bit names, on their keyword sub-fields, from dynamic mappings', async () => {
      expect(await context().logFields(FLUENT_INDEX)).toEqual({
        timestamp: '@timestamp',
        level: 'level.keyword',
        message: 'log',
        pod: 'kubernetes.pod_name.keyword',
        namespace: 'kubernetes.namespace_name.keyword',
        service: 'kubernetes.container_name.keyword',
      });
    });

    it("prefers explicit names, and reads each pattern's mappings once", async () => {
      const ctx = context({ level: 'sev', timestamp: 'when', message: 'text' });
      es.requests.splice(0);
      expect(await ctx.logFields(EXPLICIT_INDEX)).toMatchObject({ level: 'sev', timestamp: 'when', message: 'text' });
      await ctx.logFields(EXPLICIT_INDEX);
      expect(es.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /${EXPLICIT_INDEX}/_mapping`]);
    });

    it('recognises OpenTelemetry and plain names', () => {
      const fields = detectLogFields([
        { timestamp: { type: 'date' }, severity_text: { type: 'keyword' }, body: { type: 'text' }, k8s: { properties: { pod: { properties: { name: { type: 'keyword' } } } } } },
      ]);
      expect(fields).toMatchObject({ timestamp: 'timestamp', level: 'severity_text', message: 'body', pod: 'k8s.pod.name' });
    });
  });

  describe('message patterns', () => {
    it.each([
      ['payment failed for order 1004: upstream 192.0.2.7:8443 timed out', 'payment failed for order <num>: upstream <ip> timed out'],
      ['unexpected token at 2026-11-20T07:31:00Z in response body', 'unexpected token at <time> in response body'],
      ['charge 9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b accepted', 'charge <uuid> accepted'],
      ['database connection lost: 0x7f3a9c2e reset by peer', 'database connection lost: <hex> reset by peer'],
      ['commit deadbeef01 pushed', 'commit <hex> pushed'],
      ['retrying request req-7f3a after 250ms', 'retrying request <id> after <num>ms'],
      [`pod ${CHECKOUT} restarted`, 'pod <id> restarted'],
      ['peer 2001:db8::1 gone', 'peer <ip> gone'],
      ['cache hit ratio 0.93', 'cache hit ratio <num>'],
      ['std::vector at 08:15:00 is fine', 'std::vector at <num>:<num>:<num> is fine'],
    ])('%s', (message, pattern) => {
      expect(messagePattern(message)).toBe(pattern);
    });
  });

  describe.each(LAYOUTS)('skills over the $layout layout', ({ index, spell }) => {
    const line = (r: Row) => ({ timestamp: r.at, level: spell(r), message: r.message, pod: r.pod, namespace: r.namespace, index });

    it('documented request 1: fetch error-level logs in a time window, newest first', async () => {
      const result = await call('fetch_logs', { index, level: 'error', from: '2026-11-19T00:00:00Z', to: '2026-11-20T00:00:00Z' });
      expect(result).toEqual({ index, from: '2026-11-19T00:00:00Z', to: '2026-11-20T00:00:00Z', total: 3, returned: 3, logs: rows(10, 7, 6).map(line) });
    });

    it('fetch logs by pod, namespace and free text, with a limit', async () => {
      const result = await call('fetch_logs', { index, namespace: 'shop', pod: CHECKOUT, text: 'Timed Out', limit: 2 });
      expect(result).toEqual({ index, total: 4, returned: 2, logs: rows(14, 7).map(line) });
      expect(await call('fetch_logs', { index, pod: CART, level: 'warn' })).toMatchObject({ total: 2, logs: rows(18, 8).map(line) });
    });

    it('documented request 2: count warn-level logs on a date (the day is UTC, end excluded)', async () => {
      expect(await call('count_logs', { index, level: 'warn', date: '2026-11-19' })).toEqual({
        index,
        from: '2026-11-19T00:00:00.000Z',
        to: '2026-11-20T00:00:00.000Z',
        level: 'warn',
        total: 2,
        byLevel: { warn: 2 },
      });
    });

    it('count logs by level in a window, spellings merged', async () => {
      expect(await call('count_logs', { index, date: '2026-11-19' })).toMatchObject({ total: 7, byLevel: { info: 2, warn: 2, error: 3 } });
      expect(Object.keys(((await call('count_logs', { index })) as { byLevel: object }).byLevel)).toEqual(['debug', 'info', 'warn', 'error', 'fatal']);
    });

    it('documented request 3: summarize errors from the logs of a named pod in a named namespace', async () => {
      expect(await call('summarize_logs', { index, pod: CHECKOUT, namespace: 'shop', level: 'error' })).toEqual({
        index,
        total: 5,
        analysed: 5,
        distinctPatterns: 2,
        patterns: [
          {
            pattern: 'payment failed for order <num>: upstream <ip> timed out',
            count: 4,
            firstSeen: '2026-11-18T09:10:00.000Z',
            lastSeen: '2026-11-20T07:30:00.000Z',
            sample: 'payment failed for order 1004: upstream 192.0.2.7:8443 timed out',
            levels: ['error'],
          },
          {
            pattern: 'unexpected token at <time> in response body',
            count: 1,
            firstSeen: '2026-11-20T07:31:00.000Z',
            lastSeen: '2026-11-20T07:31:00.000Z',
            sample: 'unexpected token at 2026-11-20T07:31:00Z in response body',
            levels: ['error'],
          },
        ],
      });
    });

    it('summarize reads at most maxLogs of the newest lines and says so', async () => {
      const result = (await call('summarize_logs', { index, namespace: 'shop', maxLogs: 3, top: 1 })) as Record<string, unknown>;
      expect(result).toEqual({
        index,
        total: 12,
        analysed: 3,
        distinctPatterns: 3,
        // Equal counts: the pattern seen first comes first.
        patterns: [
          {
            pattern: 'payment failed for order <num>: upstream <ip> timed out',
            count: 1,
            firstSeen: '2026-11-20T07:30:00.000Z',
            lastSeen: '2026-11-20T07:30:00.000Z',
            sample: 'payment failed for order 1004: upstream 192.0.2.7:8443 timed out',
            levels: ['error'],
          },
        ],
      });
    });

    it('log analytics: a date histogram over a window, empty buckets included', async () => {
      expect(await call('log_histogram', { index, from: '2026-11-20T00:00:00Z', to: '2026-11-20T12:00:00Z', interval: '3h' })).toEqual({
        index,
        from: '2026-11-20T00:00:00Z',
        to: '2026-11-20T12:00:00Z',
        interval: '3h',
        total: 6,
        buckets: [
          { start: '2026-11-20T00:00:00.000Z', count: 1 },
          { start: '2026-11-20T03:00:00.000Z', count: 0 },
          { start: '2026-11-20T06:00:00.000Z', count: 4 },
          { start: '2026-11-20T09:00:00.000Z', count: 1 },
        ],
      });
      expect(await call('log_histogram', { index, interval: '1d', level: 'error' })).toMatchObject({
        total: 6,
        buckets: [
          { start: '2026-11-18T00:00:00.000Z', count: 1 },
          { start: '2026-11-19T00:00:00.000Z', count: 3 },
          { start: '2026-11-20T00:00:00.000Z', count: 2 },
        ],
      });
    });

    it('log analytics: counts by pod, namespace, service and level', async () => {
      expect(await call('count_by_field', { index, by: 'pod' })).toMatchObject({
        total: 18,
        buckets: [
          { value: CHECKOUT, count: 9 },
          { value: PAYMENTS, count: 6 },
          { value: CART, count: 3 },
        ],
        otherCount: 0,
      });
      expect(await call('count_by_field', { index, by: 'namespace', level: 'error' })).toMatchObject({
        total: 6,
        buckets: [
          { value: 'shop', count: 5 },
          { value: 'payments', count: 1 },
        ],
      });
      expect(await call('count_by_field', { index, by: 'service', size: 1 })).toMatchObject({ buckets: [{ value: 'checkout', count: 9 }], otherCount: 9 });
      expect(await call('count_by_field', { index, by: 'level' })).toMatchObject({
        buckets: [
          { value: 'error', count: 6 },
          { value: 'info', count: 5 },
          { value: 'warn', count: 5 },
          { value: 'debug', count: 1 },
          { value: 'fatal', count: 1 },
        ],
      });
    });
  });

  describe('indices and mappings', () => {
    it('lists indices with health, document count and size', async () => {
      const result = await call('list_indices', {});
      const size = (name: keyof typeof LOG_INDICES) => Buffer.byteLength(JSON.stringify(LOG_INDICES[name].documents));
      expect(result).toEqual({
        indices: [
          { index: EXPLICIT_INDEX, health: 'green', status: 'open', docsCount: 3, sizeBytes: size(EXPLICIT_INDEX) },
          { index: ECS_INDEX, health: 'green', status: 'open', docsCount: 18, sizeBytes: size(ECS_INDEX) },
          { index: FLUENT_INDEX, health: 'yellow', status: 'open', docsCount: 18, sizeBytes: size(FLUENT_INDEX) },
        ],
      });
      expect(es.requests.at(-1)).toMatchObject({ method: 'GET', path: '/_cat/indices/*', query: { format: 'json', bytes: 'b', h: 'index,health,status,docs.count,store.size', s: 'index' } });
      expect(await call('list_indices', { pattern: 'logs-*' })).toMatchObject({ indices: [{ index: ECS_INDEX }, { index: FLUENT_INDEX }] });
    });

    it("gets an index's fields and its detected log fields", async () => {
      const result = (await call('get_mappings', { index: FLUENT_INDEX })) as { indices: { index: string; fields: unknown[]; logFields: unknown }[] };
      expect(result.indices).toHaveLength(1);
      expect(result.indices[0]!.fields).toEqual([
        { name: '@timestamp', type: 'date' },
        { name: 'kubernetes.container_name', type: 'text' },
        { name: 'kubernetes.container_name.keyword', type: 'keyword' },
        { name: 'kubernetes.host', type: 'text' },
        { name: 'kubernetes.host.keyword', type: 'keyword' },
        { name: 'kubernetes.namespace_name', type: 'text' },
        { name: 'kubernetes.namespace_name.keyword', type: 'keyword' },
        { name: 'kubernetes.pod_name', type: 'text' },
        { name: 'kubernetes.pod_name.keyword', type: 'keyword' },
        { name: 'level', type: 'text' },
        { name: 'level.keyword', type: 'keyword' },
        { name: 'log', type: 'text' },
        { name: 'log.keyword', type: 'keyword' },
        { name: 'stream', type: 'text' },
        { name: 'stream.keyword', type: 'keyword' },
      ]);
      expect(result.indices[0]!.logFields).toMatchObject({ level: 'level.keyword', pod: 'kubernetes.pod_name.keyword' });
    });
  });

  describe('explicit fields, and failures', () => {
    it('an unknown layout works once its fields are named', async () => {
      const ctx = context({ timestamp: 'when', level: 'sev', message: 'text' });
      expect(await call('count_logs', { index: EXPLICIT_INDEX, level: 'warn' }, ctx)).toMatchObject({ total: 2 });
      expect(await call('fetch_logs', { index: EXPLICIT_INDEX, text: 'full', limit: 1 }, ctx)).toMatchObject({
        total: 3,
        logs: [{ timestamp: '2026-11-20T12:00:00.000Z', level: 'warn', message: 'disk 95% full' }],
      });
    });

    it('the engine refuses to aggregate a text field, and the skill says so in one line', async () => {
      const error = await call('count_by_field', { index: EXPLICIT_INDEX, by: 'level' }, context({ level: 'text' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SearchEngineError);
      expect((error as Error).message).toMatch(/^skill count_by_field failed: https:\/\/127\.0\.0\.1:\d+ rejected the request \(400\): illegal_argument_exception: Text fields are not optimised/);
    });

    it.each([
      ['fetch_logs', { limit: 0 }, 'fetch_logs: input.limit: must be at least 1'],
      ['fetch_logs', { level: 'loud' }, 'fetch_logs: input.level: the text "loud" is not allowed; use one of trace, debug, info, warn, error, fatal'],
      ['fetch_logs', { from: 'yesterday' }, 'fetch_logs: input.from: must be an ISO 8601 date and time, e.g. 2026-11-20T08:00:00Z'],
      [
        'fetch_logs',
        { limit: 'ten', level: 'loud' },
        'fetch_logs: input.level: the text "loud" is not allowed; use one of trace, debug, info, warn, error, fatal\nfetch_logs: input.limit: must be a number, not the text "ten"',
      ],
      ['count_logs', { date: '19.11.2026' }, 'count_logs: input.date: must be a date written YYYY-MM-DD, e.g. 2026-11-19'],
      ['count_logs', [], 'count_logs: input: must be a mapping, not a list'],
      ['fetch_logs', { from: '2026-11-20T00:00:00Z', to: '2026-11-19T00:00:00Z' }, 'input.to: the window ends before it starts; give a "to" after "from"'],
      ['count_logs', { date: '2026-11-19', from: '2026-11-19T00:00:00Z' }, 'input.date: give either a date or a from/to window, not both'],
      ['log_histogram', { interval: 'hourly' }, 'log_histogram: input.interval: an interval is a number and a unit: ms, s, m, h or d (e.g. 1h)'],
      ['drop_index', {}, 'unknown skill "drop_index"; the skills are list_indices, get_mappings, fetch_logs, count_logs, summarize_logs, log_histogram, count_by_field'],
      ['fetch_log', {}, 'unknown skill "fetch_log"; did you mean "fetch_logs"? the skills are list_indices, get_mappings, fetch_logs, count_logs, summarize_logs, log_histogram, count_by_field'],
    ])('%s %j is refused, one line a problem', async (name, input, message) => {
      const error = await call(name, input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SkillInputError);
      expect((error as Error).message).toBe(message);
    });

    it('a token without access to an index named outright gets 403 in one line', async () => {
      const narrow = es.addApiKey('elastic', 'narrow', { narrow: { cluster: [], index: [{ names: ['audit-*'], privileges: ['read', 'view_index_metadata'] }] } });
      const client = createSearchClient({ url: es.url, tls: { ca: es.pki.ca } }, { apiToken: narrow.encoded });
      clients.push(client);
      const error = await runSkill(BUILT_IN_SKILLS, 'fetch_logs', { index: ECS_INDEX }, createSkillContext({ client, url: es.url })).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(
        /^reading the mappings of logs-k8s-ecs failed: .* refused it to these credentials \(403\): security_exception: action \[indices:admin\/mappings\/get\] is unauthorized for API key id/,
      );
    });
  });
});
