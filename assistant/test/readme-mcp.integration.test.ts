/**
 * docs/assistant.md's MCP set-up runs as written: its JSON client configurations are read from that page itself, the
 * server is started as they (and the shell lines beside them) say, with only the placeholders filled in (the
 * engine's URL and token, the bearer token, a free port for 8080), and the SDK's own MCP client lists the tools
 * through them and calls one. `probekit` on the PATH is the repository's command run from source, standing in for
 * an installed one (installing the packed package and running its bin is test/package/consumer.integration.test.ts). The
 * engine is the Elasticsearch contract server (assistant/test/support/elasticsearch.ts): no real Elasticsearch can run here.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { skillsRole } from '../src/api-key';
import { BUILT_IN_SKILLS } from '../src/skills';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import { freePort } from '../../exporter/loopback/reference-exporter';
import { OPENSSL } from '../../exporter/loopback/tls-fixtures';
import { ContractElasticsearch } from './support/elasticsearch';
import { describeWithBinaries } from '../../test/support/integration';
import { ECS_INDEX, LOG_CLUSTER, LOG_USERS } from './fixtures/logs';

const ROOT = join(__dirname, '..', '..');
const PAGE = readFileSync(join(ROOT, 'docs', 'assistant.md'), 'utf8');
const SECTION = PAGE.slice(PAGE.indexOf('## MCP set-up'), PAGE.indexOf('## Custom skills'));
const blocks = (language: string) => [...SECTION.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);

interface StdioServer {
  command: string;
  args: string[];
  env: Record<string, string>;
}
interface HttpServer {
  type: string;
  url: string;
  headers: Record<string, string>;
}

describeWithBinaries([OPENSSL])("docs/assistant.md's MCP set-up, as written", () => {
  const [stdioJson, httpJson] = blocks('json').map((text) => (JSON.parse(text) as { mcpServers: { probekit: unknown } }).mcpServers.probekit);
  const dir = mkdtempSync(join(tmpdir(), 'probekit-readme-mcp-'));
  let es: ContractElasticsearch;
  let token: string;
  let path: string;
  let caFile: string;

  beforeAll(async () => {
    es = await ContractElasticsearch.start({ users: LOG_USERS, ...LOG_CLUSTER });
    token = es.addApiKey('elastic', 'assistant', { probekit_assistant_read_only: skillsRole() }).encoded;
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, es.pki.ca);
    // `probekit` on the PATH: this repository's command, from source.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'probekit'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${FROM_SOURCE.join(' ')} ${JSON.stringify(join(ROOT, 'src', 'cli', 'main.ts'))} "$@"\n`);
    chmodSync(join(bin, 'probekit'), 0o755);
    path = `${bin}${delimiter}${process.env.PATH ?? ''}`;
  });
  afterAll(async () => {
    await es.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page's placeholders, filled in for this test's engine. */
  const fill = (text: string) => text.replace('https://elasticsearch.example:9200', es.url).replace('<encoded>', token);

  async function listsAndCalls(client: Client): Promise<void> {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(BUILT_IN_SKILLS.map((skill) => skill.name));
    const answer = (await client.callTool({ name: 'count_logs', arguments: { index: ECS_INDEX, level: 'warn', date: '2026-11-19' } })) as CallToolResult;
    const text = (answer.content[0] as { text: string }).text;
    expect(answer.isError).toBeFalsy();
    expect(JSON.parse(text)).toMatchObject({ total: 2, complete: true });
    expect(text).not.toContain(token);
  }

  it('has the two client configurations, and the shell lines that start the HTTP server', () => {
    expect(stdioJson).toMatchObject({ command: 'probekit', args: ['assistant', 'serve'] });
    expect(httpJson).toMatchObject({ type: 'http', url: 'http://127.0.0.1:8080/mcp' });
    expect(blocks('sh').join('\n')).toContain('probekit assistant serve --http 8080 --http-token-env MCP_TOKEN');
  });

  it('stdio: the client starts the command with the arguments and environment of the configuration', async () => {
    const server = stdioJson as StdioServer;
    const env = Object.fromEntries(Object.entries(server.env).map(([name, value]) => [name, fill(value)]));
    // The page's advice for a private CA, which this engine has.
    const transport = new StdioClientTransport({ command: server.command, args: server.args, env: { ...env, NODE_EXTRA_CA_CERTS: caFile, PATH: path }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'readme-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      await listsAndCalls(client);
    } finally {
      await client.close();
    }
    expect(stderr).not.toContain(token);
  }, 60_000);

  it('Streamable HTTP: the server started as the shell lines say, the client configured as the JSON says', async () => {
    const sh = blocks('sh').find((block) => block.includes('--http 8080'))!;
    const bearer = 'readme-bearer-0f3c9a';
    const exported = [.../^export (.*)$/m.exec(sh)![1]!.matchAll(/(\w+)=(\S+)/g)];
    const env: Record<string, string> = Object.fromEntries(exported.map(([, name, value]) => [name!, fill(value!).replace('<random-token>', bearer)]));
    const port = String(await freePort());
    const command = /^probekit (.*)$/m.exec(sh)![1]!.replace('8080', port).split(' ');
    const child = spawn('probekit', command, { env: { ...env, NODE_EXTRA_CA_CERTS: caFile, PATH: path }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const configured = httpJson as HttpServer;
      const url = configured.url.replace('8080', port);
      for (let tries = 0; tries < 200 && !output.includes('MCP over Streamable HTTP'); tries += 1) await new Promise((done) => setTimeout(done, 50));
      const headers = Object.fromEntries(Object.entries(configured.headers).map(([name, value]) => [name, value.replace('<random-token>', bearer)]));
      const client = new Client({ name: 'readme-client', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      try {
        await listsAndCalls(client);
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    expect(output).toBe(`probekit assistant: MCP over Streamable HTTP on http://127.0.0.1:${port}/mcp\n`);
    expect(output).not.toContain(token);
  }, 60_000);
});
