/**
 * `probekit assistant run` and `list`: one skill run from the command line against the Elasticsearch contract
 * server (assistant/test/support/elasticsearch.ts; no real Elasticsearch can run here), and the mistakes refused before any
 * request. Serving over MCP is assistant/test/mcp.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_INDEX_PATTERNS, skillsRole } from '../../src/api-key';
import { SEARCH_ENGINE_ENV } from 'probekit/cli';
import { BUILT_IN_SKILLS } from '../../src/skills';
import { runCli } from '../../../test/support/cli';
import { ContractElasticsearch } from '../support/elasticsearch';
import { describeWithBinaries } from '../../../test/support/integration';
import { OPENSSL } from '../../../exporter/loopback/tls-fixtures';
import { ECS_INDEX, LOG_INDICES, LOG_USERS } from '../fixtures/logs';

// The tests' TLS certificates are made with openssl (Node has no API to issue one).
describeWithBinaries([OPENSSL])('probekit assistant', () => {
  const CUSTOM = join(__dirname, '..', 'fixtures', 'custom-skills.js');
  const dir = mkdtempSync(join(tmpdir(), 'probekit-assistant-'));
  let es: ContractElasticsearch;
  let token: string;
  let caFile: string;

  beforeAll(async () => {
    es = await ContractElasticsearch.start({ users: LOG_USERS, indices: LOG_INDICES });
    token = es.addApiKey('elastic', 'assistant', { read_only: skillsRole(LOG_INDEX_PATTERNS) }).encoded;
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, es.pki.ca);
  });
  afterAll(() => es.close());

  describe('run and list', () => {
    // A URL nothing listens on: these calls must fail before any request.
    const env = { [SEARCH_ENGINE_ENV.url]: 'https://127.0.0.1:1', T: '' };

    it('runs one skill and prints its answer as JSON', async () => {
      const result = await runCli(
        ['assistant', 'run', 'count_logs', '--input', '{"index":"logs-k8s-ecs","level":"warn","date":"2026-11-19"}', '--url', es.url, '--api-token-env', 'T', '--ca-file', caFile],
        { ...env, T: token },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        index: ECS_INDEX,
        window: { from: '2026-11-19', to: '2026-11-19||+1d', resolvedFrom: '2026-11-19T00:00:00.000Z', resolvedTo: '2026-11-20T00:00:00.000Z' },
        level: 'warn',
        total: 2,
        byLevel: { warn: 2 },
        complete: true,
        shards: { total: 1, successful: 1, failed: 0 },
      });
      expect(result.stdout).not.toContain(token);
    });

    it('runs a custom skill, with explicit field names', async () => {
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, `${token}\n`);
      const result = await runCli([
        'assistant',
        'run',
        'error_ratio',
        '--input',
        '{"index":"logs-k8s-ecs","namespace":"payments","date":"2026-11-19"}',
        '--url',
        es.url,
        '--api-token-file',
        tokenFile,
        '--ca-file',
        caFile,
        '--skills',
        CUSTOM,
        '--fields',
        '{"level":"log.level"}',
      ]);
      expect(JSON.parse(result.stdout)).toEqual({ namespace: 'payments', date: '2026-11-19', lines: 2, errors: 1, ratio: 0.5 });
    });

    it.each([
      [['run', 'count_logs', '--input', '{'], 2, 'error: --input: not JSON; give the skill\'s input as a JSON object, e.g. \'{"level":"error"}\'\n'],
      [['run', 'count_logs', '--input', '{"date":"19.11.2026"}', '--api-token-env', 'T'], 2, 'error: count_logs: input.date: must be a date written YYYY-MM-DD, e.g. 2026-11-19\n'],
      [
        ['run', 'nope', '--api-token-env', 'T'],
        2,
        'error: unknown skill "nope"; the skills are list_indices, get_mappings, fetch_logs, count_logs, summarize_logs, log_histogram, count_by_field, probe_failure_logs\n',
      ],
      [
        ['run', 'count_logs', '--fields', '{"lvl":"x"}', '--api-token-env', 'T'],
        2,
        'error: --fields: "lvl" is not a role; the roles are timestamp, level, message, pod, namespace, service, container, host, traceId\n',
      ],
      [['run', 'count_logs', '--target-logs', '[{"target":"x"}]', '--api-token-env', 'T'], 2, 'error: --target-logs: [0].logs: is required\n'],
      [
        ['run', 'count_logs', '--target-logs', '[{"target":"x","logs":{"svc":"a"}}]', '--api-token-env', 'T'],
        2,
        'error: --target-logs: [0].logs.svc: unknown field; remove it; the fields here are service, namespace, pod, container, host\n' +
          'error: --target-logs: [0].logs: name at least one of service, namespace, pod, container, host\n',
      ],
      [['serve', '--target-logs', 'missing.yaml', '--api-token-env', 'T'], 2, 'error: --target-logs: cannot read missing.yaml (ENOENT)\n'],
      [['serve', '--prometheus-url', 'http://admin:pw@127.0.0.1:9090', '--api-token-env', 'T'], 2, expect.stringMatching(/^error: --prometheus-url: holds credentials/)],
      [['serve', '--skills', '/nonexistent/skills.js', '--api-token-env', 'T'], 2, expect.stringMatching(/^error: --skills: cannot load \/nonexistent\/skills\.js \(Cannot find module/)],
      [['serve', '--host', '0.0.0.0', '--api-token-env', 'T'], 2, 'error: --host and --http-token-env apply to --http PORT only\n'],
      [['run', 'count_logs'], 2, `error: --api-token-env: environment variable ${SEARCH_ENGINE_ENV.apiToken} is not set or empty; export it with the API token\n`],
    ])('%j: one line a problem, exit %i', async (args, code, message) => {
      const result = await runCli(['assistant', ...(args as string[])], { ...env, T: 'x' });
      expect(result).toEqual({ code, stdout: '', stderr: message });
    });

    it('lists the skills, custom ones included', async () => {
      const result = await runCli(['assistant', 'list', '--skills', CUSTOM]);
      expect(
        result.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split('\t')[0]),
      ).toEqual([...BUILT_IN_SKILLS.map((s) => s.name), 'error_ratio']);
    });

    it('refuses a custom skill that shadows a built-in', async () => {
      const shadow = join(dir, 'shadow.js');
      writeFileSync(shadow, `exports.skills = [{ name: 'fetch_logs', description: 'mine', input: require(${JSON.stringify(require.resolve('zod'))}).z.object({}), handler: async () => 1 }];`);
      const result = await runCli(['assistant', 'list', '--skills', shadow]);
      expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: skill "fetch_logs": another skill has this name; give the custom skill a name of its own\n' });
    });
  });
});
