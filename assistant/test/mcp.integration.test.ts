/**
 * The skills over the Model Context Protocol, as an assistant uses them: the SDK's own Client lists and calls every
 * skill, a custom one included, in memory, over Streamable HTTP (`assistant serve --http`) and over stdio
 * (`assistant serve`, the CLI started as a child process). The search engine is the Elasticsearch contract server
 * (assistant/test/support/elasticsearch.ts): no real Elasticsearch can run here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROLE_PRESETS } from '../src/api-key';
import { connectSearchEngine } from '../src/connection';
import { createSkillsMcpServer } from '../src/mcp';
import { SEARCH_ENGINE_ENV, SKILLS_SERVER_HEALTH_PATH } from 'probekit/cli';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import { checkSkills, createSkillContext, loadCustomSkills, type Skill } from '../src/skill';
import { BUILT_IN_SKILLS } from '../src/skills';
import { runCli } from '../../test/support/cli';
import { ContractElasticsearch } from './support/elasticsearch';
import { describeWithBinaries } from '../../test/support/integration';
import { OPENSSL } from '../../exporter/loopback/tls-fixtures';
import { CHECKOUT, ECS_INDEX, FLUENT_INDEX, LOG_CLUSTER, LOG_USERS, OTEL_STREAM } from './fixtures/logs';

// The tests' TLS certificates are made with openssl (Node has no API to issue one).
describeWithBinaries([OPENSSL])('the skills over MCP', () => {
  const CUSTOM = join(__dirname, 'fixtures', 'custom-skills.js');
  const dir = mkdtempSync(join(tmpdir(), 'probekit-mcp-'));
  let es: ContractElasticsearch;
  let token: string;
  let caFile: string;
  let skills: Skill[];
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    es = await ContractElasticsearch.start({ users: LOG_USERS, ...LOG_CLUSTER });
    token = es.addApiKey('elastic', 'assistant', ROLE_PRESETS['read-only']).encoded;
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, es.pki.ca);
    skills = [...BUILT_IN_SKILLS, ...(await loadCustomSkills(CUSTOM))];
    checkSkills(skills);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await es.close();
  });

  /** One call per skill, and a fact its answer must hold. */
  const CALLS: readonly [string, Record<string, unknown>, (answer: Record<string, unknown>) => void][] = [
    ['list_indices', { pattern: 'logs-*' }, (a) => expect((a.dataStreams as { name: string }[]).map((d) => d.name)).toEqual([OTEL_STREAM])],
    ['get_mappings', { index: ECS_INDEX }, (a) => expect((a.layouts as { logFields: unknown }[])[0]!.logFields).toMatchObject({ level: 'log.level' })],
    ['fetch_logs', { index: ECS_INDEX, level: 'error', from: '2026-11-19T00:00:00Z', to: '2026-11-20T00:00:00Z' }, (a) => expect(a).toMatchObject({ total: 3, returned: 3 })],
    ['count_logs', { index: FLUENT_INDEX, level: 'warn', date: '2026-11-19' }, (a) => expect(a).toMatchObject({ total: 2, byLevel: { warn: 2 } })],
    ['summarize_logs', { index: FLUENT_INDEX, pod: CHECKOUT, namespace: 'shop', level: 'error' }, (a) => expect((a.patterns as { count: number }[]).map((p) => p.count)).toEqual([4, 1])],
    ['log_histogram', { index: ECS_INDEX, interval: '1d' }, (a) => expect((a.buckets as { count: number }[]).map((b) => b.count)).toEqual([5, 7, 6])],
    [
      'count_by_field',
      { index: ECS_INDEX, by: 'namespace' },
      (a) =>
        expect(a.buckets).toEqual([
          { value: 'shop', count: 12 },
          { value: 'payments', count: 6 },
        ]),
    ],
    // Its own test (probe-failures.integration.test.ts) runs it against Prometheus; here it says what it needs.
    [
      'probe_failure_logs',
      { target: 'https://checkout.shop.svc:8443/health' },
      (a) => expect(a).toEqual({ error: 'probe_failure_logs: input.prometheusUrl: give the Prometheus that scrapes the exporter (or exporterUrl), or start the server with --prometheus-url' }),
    ],
    ['error_ratio', { index: ECS_INDEX, namespace: 'shop', date: '2026-11-19' }, (a) => expect(a).toEqual({ namespace: 'shop', date: '2026-11-19', lines: 5, errors: 2, ratio: 0.4 })],
  ];

  function answerOf(result: unknown): Record<string, unknown> {
    const call = result as CallToolResult;
    const [content] = call.content;
    const text = (content as { text: string }).text;
    expect(text).not.toContain(token);
    return call.isError ? { error: text } : (JSON.parse(text) as Record<string, unknown>);
  }

  async function listsAndCallsEverySkill(client: Client): Promise<void> {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...BUILT_IN_SKILLS.map((s) => s.name), 'error_ratio']);
    expect(CALLS.map(([name]) => name).sort()).toEqual(tools.map((tool) => tool.name).sort());
    // The built-in skills only read, and say so; a custom skill is not assumed to.
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: tool.name !== 'error_ratio', openWorldHint: true });
    for (const [name, args, check] of CALLS) check(answerOf(await client.callTool({ name, arguments: args })));
  }

  describe('MCP', () => {
    it('in memory: publishes every skill with its description and JSON schema, and answers every call', async () => {
      const engine = await connectSearchEngine({ url: es.url, tls: { ca: es.pki.ca } }, { apiToken: token });
      closers.push(() => engine.client.close());
      const server = createSkillsMcpServer(skills, createSkillContext({ client: engine.client, url: es.url }), '0.0.0-test');
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'test-assistant', version: '1.0.0' });
      await client.connect(clientSide);
      closers.push(() => client.close());

      const { tools } = await client.listTools();
      const fetchLogs = tools.find((tool) => tool.name === 'fetch_logs')!;
      expect(fetchLogs.description).toMatch(/^Fetch log lines, newest first, filtered by level, time window, service, pod/);
      expect(fetchLogs.inputSchema).toMatchObject({
        type: 'object',
        additionalProperties: false,
        properties: {
          level: { type: 'string', enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] },
          limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
          from: { type: 'string' },
        },
      });
      await listsAndCallsEverySkill(client);

      const refused = (await client.callTool({ name: 'fetch_logs', arguments: { limit: 9999 } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect((refused.content[0] as { text: string }).text).toMatch(/limit/);
      const failed = (await client.callTool({ name: 'count_by_field', arguments: { index: 'logs-*', by: 'level', from: '2026-11-20T00:00:00Z', to: '2026-11-19T00:00:00Z' } })) as CallToolResult;
      expect(failed).toEqual({ isError: true, content: [{ type: 'text', text: 'count_by_field: input.to: the window ends before it starts; give a "to" after "from"' }] });
    });

    it('over Streamable HTTP (assistant serve --http), with a bearer token', async () => {
      const port = await freePort();
      let stop!: () => void;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      const serving = runCli(
        ['assistant', 'serve', '--url', es.url, '--ca-file', caFile, '--skills', CUSTOM, '--http', String(port), '--http-token-env', 'MCP_TOKEN'],
        { [SEARCH_ENGINE_ENV.apiToken]: token, MCP_TOKEN: 'mcp-bearer' },
        stopped,
      );
      try {
        const base = `http://127.0.0.1:${port}`;
        await waitFor(async () => (await fetch(`${base}${SKILLS_SERVER_HEALTH_PATH}`)).ok);
        const anonymous = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(anonymous.status).toBe(401);

        const client = new Client({ name: 'test-assistant', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: 'Bearer mcp-bearer' } } }));
        await listsAndCallsEverySkill(client);
        await client.close();
      } finally {
        stop();
      }
      const result = await serving;
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(`probekit assistant: MCP over Streamable HTTP on http://127.0.0.1:${port}/mcp\n`);
    });

    it('over stdio: the CLI as a child process, settings from the environment the cluster form sets', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [...FROM_SOURCE, join(__dirname, '..', '..', 'src', 'cli', 'main.ts'), 'assistant', 'serve', '--ca-file', caFile, '--skills', CUSTOM],
        env: { PATH: process.env.PATH ?? '', [SEARCH_ENGINE_ENV.url]: es.url, [SEARCH_ENGINE_ENV.apiToken]: token },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'test-assistant', version: '1.0.0' });
      await client.connect(transport);
      try {
        await listsAndCallsEverySkill(client);
      } finally {
        await client.close();
      }
    }, 60_000);
  });

  async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  async function waitFor(ready: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (await ready().catch(() => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the server did not come up within 5 s');
  }
});
