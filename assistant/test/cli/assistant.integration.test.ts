/**
 * `probekit assistant run` and `list`: one skill run from the command line against the Elasticsearch contract
 * server (assistant/test/support/elasticsearch.ts; no real Elasticsearch can run here), and the mistakes refused before any
 * request; each command's --help. Serving over MCP is assistant/test/mcp.integration.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_INDEX_PATTERNS, skillsRole } from '../../src/api-key';
import { SEARCH_ENGINE_ENV } from 'probekit/cli';
import { BUILT_IN_SKILLS } from '../../src/skills';
import { helpNotes, runCli } from '../../../test/support/cli';
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

describe('--help', () => {
  const CONNECTION = {
    '--url': `default: the ${SEARCH_ENGINE_ENV.url} environment variable`,
    '--api-token-env': `not with --api-token-file; default: ${SEARCH_ENGINE_ENV.apiToken}`,
    '--api-token-file': 'not with --api-token-env',
    '--insecure': 'not with --ca-file',
    '--ca-file': 'not with --insecure; default: the CAs Node trusts, with NODE_EXTRA_CA_CERTS',
    '--skills': 'default: the built-in skills only',
    '--fields': "default: each index's own, recognized from its mapping: ECS, OpenTelemetry, Fluent Bit",
    '--target-logs': "default: none: only a Kubernetes Service's name says whose logs a target's are",
    '--prometheus-url': 'default: none: each call names its own',
    '--exporter-url': 'default: none: each call names its own',
    '--help': null,
  };

  it.each([
    [
      'run',
      { '--input': 'default: {}', ...CONNECTION },
      /^usage: probekit assistant run SKILL \[--input JSON\] \[--url URL\] \[--api-token-env VAR \| --api-token-file FILE\] \[--insecure \| --ca-file FILE\] /,
    ],
    [
      'serve',
      { ...CONNECTION, '--http': 'default: none: MCP over stdin and stdout', '--host': 'default: 127.0.0.1', '--http-token-env': 'default: none: whoever reaches the address may call' },
      /^usage: probekit assistant serve \[--url URL\] .* \[--http PORT\] \[--host ADDR\] \[--http-token-env VAR\]\n/,
    ],
    ['list', { '--skills': 'default: the built-in skills only', '--help': null }, /^usage: probekit assistant list \[--skills MODULE\]\n/],
  ])('probekit assistant %s --help: exit 0, each flag on a line with its default, and the exit codes', async (sub, notes, usage) => {
    const result = await runCli(['assistant', sub, '--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(usage);
    expect(helpNotes(result.stdout)).toEqual(notes);
    expect(result.stdout).toMatch(/\n\nexit codes: 0 [^\n]+; 2 [^\n]+\n$/);
  });
});

describe('flag pairs: one value given one way', () => {
  it.each([
    [['--api-token-env', 'T', '--api-token-file', 'token'], 'error: --api-token-env and --api-token-file exclude each other: give one of them\n'],
    [['--insecure', '--ca-file', 'ca.pem'], 'error: --insecure and --ca-file exclude each other: give one of them\n'],
  ])('%j: refused, exit 2, before anything is read', async (flags, message) => {
    for (const sub of [['run', 'count_logs'], ['serve']]) {
      expect(await runCli(['assistant', ...sub, '--url', 'https://127.0.0.1:1', ...flags], { T: 'x' })).toEqual({ code: 2, stdout: '', stderr: message });
    }
  });
});
