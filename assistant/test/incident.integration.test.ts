/**
 * Summaries at incident size (assistant/test/fixtures/incident.ts): 12,000 errors of one pod in five statements with
 * known counts and first and last times. The contract server (assistant/test/support/elasticsearch.ts; no real Elasticsearch
 * runs here) computes the aggregations over every line, so the skills' counts are checked against the truth, on
 * each supported version, and their cost on the engine is bounded: a handful of requests, no hits beyond the
 * samples.
 */
import { skillsRole } from '../src/api-key';
import { connectSearchEngine } from '../src/connection';
import { createSkillContext, runSkill, type SkillContext } from '../src/skill';
import { BUILT_IN_SKILLS } from '../src/skills';
import { ContractElasticsearch, CONTRACT_VERSIONS } from './support/elasticsearch';
import { describeWithBinaries } from '../../test/support/integration';
import { OPENSSL } from '../../exporter/loopback/tls-fixtures';
import { incident, INCIDENT_INDEX, INCIDENT_POD, OTHER_POD } from './fixtures/incident';
import { LOG_USERS } from './fixtures/logs';

const { index, truth, errorTimes, longMessageChars } = incident();

describeWithBinaries([OPENSSL]).each(CONTRACT_VERSIONS)('an incident of 12,000 errors on Elasticsearch %s', (version) => {
  let es: ContractElasticsearch;
  let context: SkillContext;
  let close: () => Promise<void>;

  beforeAll(async () => {
    es = await ContractElasticsearch.start({ users: LOG_USERS, indices: { [INCIDENT_INDEX]: index }, version });
    const token = es.addApiKey('elastic', 'assistant', { read_only: skillsRole() }).encoded;
    const engine = await connectSearchEngine({ url: es.url, tls: { ca: es.pki.ca } }, { apiToken: token });
    close = () => engine.client.close();
    context = createSkillContext({ client: engine.client, url: es.url, ...(engine.version ? { version: engine.version } : {}) });
  });
  afterAll(async () => {
    await close();
    await es.close();
  });

  const call = (name: string, input: unknown) => runSkill(BUILT_IN_SKILLS, name, input, context) as Promise<Record<string, any>>;

  it('the data set is what the test says: the newest thousand errors hold none of the early statement', () => {
    expect(truth.reduce((sum, t) => sum + t.count, 0)).toBe(12_000);
    expect(errorTimes.slice(0, 1000).some((line) => line.pattern === truth[1]!.pattern)).toBe(false);
  });

  it('summarizes every statement with its exact count and first and last time, over the whole window', async () => {
    es.requests.splice(0);
    const result = await call('summarize_logs', { index: INCIDENT_INDEX, pod: INCIDENT_POD, namespace: 'shop', level: 'error' });
    expect(result).toMatchObject({ total: 12_000, distinctPatterns: 5, unclassified: 0, complete: true });
    expect(result.patterns.map((p: Record<string, unknown>) => ({ pattern: p.pattern, count: p.count, firstSeen: p.firstSeen, lastSeen: p.lastSeen }))).toEqual(truth);
    for (const pattern of result.patterns) expect(pattern.levels).toEqual({ error: pattern.count });
    // Bounded cost: the mapping, the window's extent, a few sampling rounds and one count; samples of at most a
    // thousand lines, never the lines themselves.
    const searches = es.requests.filter((r) => r.path.endsWith('/_search'));
    expect(es.requests.length).toBeLessThanOrEqual(8);
    for (const search of searches) expect((search.body as { size?: number }).size).toBe(0);
  });

  it('counts by pod, and by hour, equal the truth', async () => {
    expect(await call('count_by_field', { index: INCIDENT_INDEX, by: 'pod', level: 'error' })).toMatchObject({
      total: 12_500,
      buckets: [
        { value: INCIDENT_POD, count: 12_000 },
        { value: OTHER_POD, count: 500 },
      ],
    });
    const hourly = await call('log_histogram', { index: INCIDENT_INDEX, pod: INCIDENT_POD, level: 'error', interval: '1h' });
    const expected = new Map<string, number>();
    for (const line of errorTimes) {
      const hour = `${line.at.slice(0, 13)}:00:00.000Z`;
      expected.set(hour, (expected.get(hour) ?? 0) + 1);
    }
    expect(hourly.buckets).toEqual([...expected.entries()].sort().map(([start, count]) => ({ start, count })));
    // Minute by minute over six hours is 360 buckets: within a small budget, the first ones, and how many are left out.
    const minutes = await call('log_histogram', { index: INCIDENT_INDEX, pod: INCIDENT_POD, level: 'error', interval: '1m', maxAnswerChars: 2_000 });
    expect(JSON.stringify(minutes).length).toBeLessThanOrEqual(2_000);
    expect(minutes.buckets.length + minutes.omitted).toBe(360);
    expect(minutes.buckets[0].start).toBe('2026-11-20T02:00:00.000Z');
  });

  it('pages through the errors within the answer budget, long messages cut with their size stated', async () => {
    const long = await call('fetch_logs', { index: INCIDENT_INDEX, pod: INCIDENT_POD, level: 'warn' });
    expect(long.logs).toHaveLength(2);
    expect(long.logs[0].message).toHaveLength(501);
    expect(long.logs[0].messageChars).toBe(longMessageChars);

    const budget = 5_000;
    const first = await call('fetch_logs', { index: INCIDENT_INDEX, pod: INCIDENT_POD, level: 'error', limit: 500, maxAnswerChars: budget });
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(budget);
    expect(first.total).toBe(12_000);
    expect(first.returned).toBeLessThan(500);
    expect(first.omitted).toBe(500 - first.returned);
    expect(first.notes).toEqual([`${first.omitted} of 500 logs left out to keep the answer within ${budget - 200} characters; fetch the rest with nextCursor, or raise maxAnswerChars`]);
    const second = await call('fetch_logs', { index: INCIDENT_INDEX, pod: INCIDENT_POD, level: 'error', limit: 500, maxAnswerChars: budget, cursor: first.nextCursor });
    const times = [...first.logs, ...second.logs].map((line: { timestamp: string }) => line.timestamp);
    expect(times).toEqual(errorTimes.slice(0, times.length).map((line) => line.at));
  });
});
