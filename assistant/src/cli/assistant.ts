/**
 * `probekit assistant`: the assistant's skills (reading the search engine's logs) served over MCP, or run once
 * from the command line.
 */
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { schemaProblems } from '@probekit/exporter';
import { version } from '../../package.json';
import { fromEnvironment, parseFlags, readSecret, SEARCH_ENGINE_ENV, UsageError, type CliIo, type Subcommand } from 'probekit/cli';
import { connectSearchEngine, urlProblem } from '../connection';
import { LOG_FIELD_ROLES, type LogFields } from '../log-fields';
import { createSkillsMcpServer, listeningPort, serveSkillsOverHttp } from '../mcp';
import { checkSkills, connectOnFirstUse, loadCustomSkills, runSkill, SkillInputError, type Skill } from '../skill';
import { BUILT_IN_SKILLS } from '../skills';
import { TARGET_LOG_RULE, type TargetLogRule } from '../target-logs';
import { checkedUrlArgument, TLS_FLAGS, tlsFrom } from './connection-flags';

const CONNECTION_USAGE =
  '[--url URL] [--api-token-env VAR | --api-token-file FILE] [--insecure] [--ca-file FILE] [--skills MODULE] [--fields JSON] ' +
  '[--target-logs JSON|FILE] [--prometheus-url URL] [--exporter-url URL]';
const USAGE = {
  serve: `probekit assistant serve ${CONNECTION_USAGE} [--http PORT [--host ADDR] [--http-token-env VAR]]`,
  run: `probekit assistant run SKILL --input JSON ${CONNECTION_USAGE}`,
  list: 'probekit assistant list [--skills MODULE]',
};

const CONNECTION_FLAGS = {
  url: { type: 'string' },
  'api-token-env': { type: 'string' },
  'api-token-file': { type: 'string' },
  ...TLS_FLAGS,
  skills: { type: 'string' },
  fields: { type: 'string' },
  'target-logs': { type: 'string' },
  'prometheus-url': { type: 'string' },
  'exporter-url': { type: 'string' },
} as const;

type ConnectionValues = { [K in keyof typeof CONNECTION_FLAGS]?: (typeof CONNECTION_FLAGS)[K]['type'] extends 'boolean' ? boolean : string };

async function skillsFrom(modulePath: string | undefined, io: CliIo): Promise<Skill[]> {
  const skills = [...BUILT_IN_SKILLS, ...(modulePath === undefined ? [] : await loadCustomSkills(resolve(io.cwd, modulePath)))];
  checkSkills(skills);
  return skills;
}

function fieldsFrom(json: string | undefined): Partial<LogFields> {
  if (json === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new UsageError('--fields: not JSON; give e.g. \'{"level":"severity","pod":"kubernetes.pod_name"}\'');
  }
  const roles: readonly string[] = LOG_FIELD_ROLES;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('--fields: give a JSON object of role to field name');
  for (const [role, field] of Object.entries(parsed)) {
    if (!roles.includes(role)) throw new UsageError(`--fields: "${role}" is not a role; the roles are ${roles.join(', ')}`);
    if (typeof field !== 'string' || field === '') throw new UsageError(`--fields: ${role} must name a field`);
  }
  return parsed as Partial<LogFields>;
}

/** `--target-logs`: rules inline as JSON (a list), or a YAML or JSON file of them. */
function targetLogsFrom(value: string | undefined, io: CliIo): TargetLogRule[] | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  const inline = value.trimStart().startsWith('[');
  try {
    parsed = inline ? JSON.parse(value) : parseYaml(io.readFile(resolve(io.cwd, value)));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      inline
        ? '--target-logs: not JSON; give a list such as \'[{"target":"https://checkout.example.com/*","logs":{"service":"checkout"}}]\''
        : `--target-logs: cannot read ${value} (${code ?? 'not YAML or JSON'})`,
    );
  }
  const schema = z.array(TARGET_LOG_RULE);
  const checked = schema.safeParse(parsed, { reportInput: true });
  if (!checked.success) throw new SkillInputError(schemaProblems(schema, checked.error.issues), '--target-logs');
  return checked.data as TargetLogRule[];
}

function optionalUrl(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const problem = urlProblem(value);
  if (problem !== undefined) throw new UsageError(`${flag}: ${problem}`);
  return value;
}

/** The skills with their context; URL and token come from flags, or from the environment the cluster form sets. */
async function prepare(values: ConnectionValues, io: CliIo) {
  // What can be checked without the engine is checked first, so that a typo is not reported as a connection problem.
  const skills = await skillsFrom(values.skills, io);
  const fields = fieldsFrom(values.fields);
  const targetLogs = targetLogsFrom(values['target-logs'], io);
  const prometheusUrl = optionalUrl(values['prometheus-url'], '--prometheus-url');
  const exporterUrl = optionalUrl(values['exporter-url'], '--exporter-url');
  const fromEnv = values.url === undefined;
  const given = values.url ?? io.env[SEARCH_ENGINE_ENV.url];
  if (given === undefined || given === '') throw new UsageError(`--url is required (or set ${SEARCH_ENGINE_ENV.url}): the search engine's URL`);
  const url = checkedUrlArgument(given, fromEnv ? SEARCH_ENGINE_ENV.url : '--url');
  const tokenEnv = values['api-token-env'] ?? (values['api-token-file'] === undefined ? SEARCH_ENGINE_ENV.apiToken : undefined);
  const apiToken = readSecret(io, 'API token', 'api-token-env', tokenEnv, 'api-token-file', values['api-token-file']);
  const tls = tlsFrom(values, io);
  const engines: { close(): Promise<void> }[] = [];
  // The engine is reached when the first skill runs, not now: a server started while the engine is down still
  // starts, and its calls say what is wrong.
  const context = connectOnFirstUse(
    () =>
      connectSearchEngine({ url, tls }, { apiToken }).then((engine) => {
        engines.push(engine.client);
        return engine;
      }),
    { fields, ...(targetLogs ? { targetLogs } : {}), ...(prometheusUrl ? { prometheusUrl } : {}), ...(exporterUrl ? { exporterUrl } : {}) },
  );
  return { skills, context, close: () => Promise.all(engines.map((engine) => engine.close())) };
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(args, { ...CONNECTION_FLAGS, input: { type: 'string' } }, USAGE.run, true);
  if (positionals.length !== 1) throw new UsageError(`name one skill; usage: ${USAGE.run}`);
  let input: unknown = {};
  if (values.input !== undefined) {
    try {
      input = JSON.parse(values.input);
    } catch {
      throw new UsageError('--input: not JSON; give the skill\'s input as a JSON object, e.g. \'{"level":"error"}\'');
    }
  }
  const { skills, context, close } = await prepare(values, io);
  try {
    const result = await runSkill(skills, positionals[0]!, input, context);
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await close();
  }
}

async function serve(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, { ...CONNECTION_FLAGS, http: { type: 'string' }, host: { type: 'string' }, 'http-token-env': { type: 'string' } }, USAGE.serve);
  if (values.http === undefined && (values.host !== undefined || values['http-token-env'] !== undefined)) {
    throw new UsageError('--host and --http-token-env apply to --http PORT only');
  }
  const { skills, context, close } = await prepare(values, io);
  const newServer = () => createSkillsMcpServer(skills, context, version);
  try {
    if (values.http === undefined) {
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
        process.stdin.once('end', resolve);
      });
      await newServer().connect(transport);
      await Promise.race([closed, ...(io.stopped ? [io.stopped] : [])]);
      return 0;
    }
    const port = Number(values.http);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--http ${values.http}: not a port number; give 0 to 65535 (0 picks a free one)`);
    const bearerToken = values['http-token-env'] === undefined ? undefined : fromEnvironment(io, 'http-token-env', values['http-token-env'], 'bearer token MCP clients must send');
    const http: Server = await serveSkillsOverHttp(newServer, { port, host: values.host ?? '127.0.0.1', ...(bearerToken ? { bearerToken } : {}) });
    io.stderr(`probekit assistant: MCP over Streamable HTTP on http://${values.host ?? '127.0.0.1'}:${listeningPort(http)}/mcp\n`);
    await (io.stopped ?? new Promise<void>((resolve) => ['SIGTERM', 'SIGINT'].forEach((signal) => process.once(signal, () => resolve()))));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    return 0;
  } finally {
    await close();
  }
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, { skills: { type: 'string' } }, USAGE.list);
  for (const skill of await skillsFrom(values.skills, io)) io.stdout(`${skill.name}\t${skill.description}\n`);
  return 0;
}

/** `probekit assistant`'s subcommands; the dispatcher makes the group (src/cli/delegated.ts in the library). */
export const ASSISTANT_SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  serve: { usage: USAGE.serve, run: serve },
  run: { usage: USAGE.run, run },
  list: { usage: USAGE.list, run: list },
};
