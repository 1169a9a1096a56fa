/**
 * The skills as Model Context Protocol tools, so that any MCP-capable assistant can use them: over stdio for an
 * assistant that starts probekit itself, and over Streamable HTTP for the skills server that runs in a cluster
 * (a Deployment has no stdin to talk to).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runSkill, type Skill, type SkillContextSource } from './skill';
import { MCP_HTTP_PATH, SKILLS_SERVER_HEALTH_PATH } from 'probekit/cli';

export const MCP_SERVER_NAME = 'probekit-assistant';

export function createSkillsMcpServer(skills: readonly Skill[], context: SkillContextSource, version: string): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version });
  for (const skill of skills) {
    // Read-only skills say so, so that clients may run them without asking; all of them reach outside (the engine).
    const annotations = { readOnlyHint: skill.readOnly === true, ...(skill.readOnly === true ? { destructiveHint: false, idempotentHint: true } : {}), openWorldHint: true };
    server.registerTool(skill.name, { description: skill.description, inputSchema: skill.input, annotations }, async (input: unknown): Promise<CallToolResult> => {
      try {
        const result = await runSkill(skills, skill.name, input, context);
        return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
      } catch (error) {
        // A failed call is the tool's answer, not a protocol error: the assistant reads it and can correct itself.
        return { isError: true, content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }] };
      }
    });
  }
  return server;
}

/** Where the skills server listens over HTTP unless told otherwise: this machine only. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

export interface HttpServeOptions {
  readonly port: number;
  /** @default DEFAULT_HTTP_HOST */
  readonly host?: string;
  /** When set, every MCP request must carry `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Streamable HTTP in stateless mode: each POST is served by a fresh server and transport, so replicas behind a
 * Service need no sticky sessions.
 */
export async function serveSkillsOverHttp(createServerForRequest: () => McpServer, options: HttpServeOptions): Promise<Server> {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === SKILLS_SERVER_HEALTH_PATH && req.method === 'GET') return answer(res, 200, { status: 'ok' });
    if (path !== MCP_HTTP_PATH) return answer(res, 404, { error: `not found; the MCP endpoint is ${MCP_HTTP_PATH}` });
    if (options.bearerToken !== undefined) {
      const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!sameSecret(given, options.bearerToken)) {
        return answer(res, 401, { jsonrpc: '2.0', error: { code: -32001, message: 'unauthorized: send Authorization: Bearer <token>' }, id: null }, { 'www-authenticate': 'Bearer' });
      }
    }
    if (req.method !== 'POST') {
      return answer(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: 'method not allowed: this stateless server takes POST only' }, id: null }, { allow: 'POST' });
    }
    const server = createServerForRequest();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: unknown) => {
        if (!res.headersSent) answer(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: (error as Error).message }, id: null });
      });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host ?? DEFAULT_HTTP_HOST, () => resolve());
  });
  return http;
}

export function listeningPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}
