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
import { fromEnvironment, helpText, MCP_HTTP_PATH, parseFlags, readSecret, SEARCH_ENGINE_ENV, usageLine, UsageError, type CliIo, type Flag, type Flags, type Subcommand } from 'probekit/cli';
import { connectSearchEngine, urlProblem } from '../connection';
import { LOG_FIELD_ROLES, type LogFields } from '../log-fields';
import { createSkillsMcpServer, DEFAULT_HTTP_HOST, listeningPort, serveSkillsOverHttp } from '../mcp';
import { checkSkills, connectOnFirstUse, loadCustomSkills, runSkill, SkillInputError, type Skill } from '../skill';
import { BUILT_IN_SKILLS } from '../skills';
import { TARGET_LOG_RULE, type TargetLogRule } from '../target-logs';
import { checkedUrlArgument, TLS_FLAGS, tlsFrom, URL_HELP } from './connection-flags';

const SKILLS_FLAG = {
  type: 'string',
  value: 'MODULE',
  defaultText: 'the built-in skills only',
  help: 'a module exporting more skills (exports.skills), beside the built-in ones',
} as const satisfies Flag;

/** Where the skills read from: the search engine, and what probe_failure_logs reads besides. */
const CONNECTION_FLAGS = {
  url: { type: 'string', value: 'URL', defaultText: `the ${SEARCH_ENGINE_ENV.url} environment variable`, help: URL_HELP },
  'api-token-env': {
    type: 'string',
    value: 'VAR',
    or: 'api-token-file',
    defaultText: SEARCH_ENGINE_ENV.apiToken,
    help: 'the environment variable holding the API token, as probekit search-engine create-key prints it',
  },
  'api-token-file': { type: 'string', value: 'FILE', help: 'a file holding the API token' },
  ...TLS_FLAGS,
  skills: SKILLS_FLAG,
  fields: {
    type: 'string',
    value: 'JSON',
    defaultText: "each index's own, recognized from its mapping: ECS, OpenTelemetry, Fluent Bit",
    help: `the log field of each role, a JSON object such as {"level":"severity"}; the roles are ${LOG_FIELD_ROLES.join(', ')}`,
  },
  'target-logs': {
    type: 'string',
    value: 'JSON|FILE',
    defaultText: "none: only a Kubernetes Service's name says whose logs a target's are",
    help: 'for probe_failure_logs, the rules saying whose logs belong to a target: a JSON list, or a YAML or JSON file of them',
  },
  'prometheus-url': {
    type: 'string',
    value: 'URL',
    defaultText: 'none: each call names its own',
    help: 'for probe_failure_logs, the Prometheus that scrapes the exporter; given, calls may name no other',
  },
  'exporter-url': {
    type: 'string',
    value: 'URL',
    defaultText: 'none: each call names its own',
    help: 'for probe_failure_logs where there is no Prometheus, the exporter whose status page is read; given, calls may name no other',
  },
} as const satisfies Flags;

const FLAGS = {
  serve: {
    ...CONNECTION_FLAGS,
    http: { type: 'string', value: 'PORT', defaultText: 'none: MCP over stdin and stdout', help: 'serve MCP over Streamable HTTP on this port; 0 picks a free one' },
    host: { type: 'string', value: 'ADDR', defaultText: DEFAULT_HTTP_HOST, help: 'with --http: the address to listen on' },
    'http-token-env': {
      type: 'string',
      value: 'VAR',
      defaultText: 'none: whoever reaches the address may call',
      help: 'with --http: the environment variable holding the bearer token every request must carry',
    },
  },
  run: {
    input: { type: 'string', value: 'JSON', default: '{}', help: "the skill's input, a JSON object" },
    ...CONNECTION_FLAGS,
  },
  list: { skills: SKILLS_FLAG },
} as const satisfies Record<string, Flags>;

const USAGE = {
  serve: usageLine('probekit assistant serve', FLAGS.serve),
  run: usageLine('probekit assistant run SKILL', FLAGS.run),
  list: usageLine('probekit assistant list', FLAGS.list),
};

const CONNECTION_ABOUT = `The search engine's URL and API token come from the flags, else from
${SEARCH_ENGINE_ENV.url} and ${SEARCH_ENGINE_ENV.apiToken}; the engine is reached when the first
skill runs.`;

const HELP = {
  serve: helpText(
    USAGE.serve,
    FLAGS.serve,
    `Serves the skills over MCP: on stdin and stdout for an assistant that starts this command, or over Streamable
HTTP at ${MCP_HTTP_PATH} with --http.\n${CONNECTION_ABOUT}`,
    '0 stopped (stdin closed, or SIGTERM or SIGINT with --http); 1 the port could not be opened; 2 a mistake in the command line',
  ),
  run: helpText(
    USAGE.run,
    FLAGS.run,
    `Runs the skill SKILL once with --input and prints its answer as JSON (probekit assistant list names the skills).
${CONNECTION_ABOUT}`,
    "0 answered; 1 the search engine refused or could not be reached; 2 a mistake in the command line or the skill's input",
  ),
  list: helpText(USAGE.list, FLAGS.list, 'Lists the skills, custom ones included, each with its description; it connects to nothing.', '0 listed; 2 a skills module refused'),
};

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
  if (given === undefined || given === '') throw new UsageError(`--url is required (or the ${SEARCH_ENGINE_ENV.url} environment variable): ${URL_HELP}`);
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
  const { values, positionals } = parseFlags(args, FLAGS.run, HELP.run, true);
  if (positionals.length !== 1) throw new UsageError(`name one skill; usage: ${USAGE.run}`);
  let input: unknown;
  try {
    input = JSON.parse(values.input);
  } catch {
    throw new UsageError('--input: not JSON; give the skill\'s input as a JSON object, e.g. \'{"level":"error"}\'');
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
  const { values } = parseFlags(args, FLAGS.serve, HELP.serve);
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
    const host = values.host ?? DEFAULT_HTTP_HOST;
    const http: Server = await serveSkillsOverHttp(newServer, { port, host, ...(bearerToken ? { bearerToken } : {}) });
    io.stderr(`probekit assistant: MCP over Streamable HTTP on http://${host}:${listeningPort(http)}/mcp\n`);
    await (io.stopped ?? new Promise<void>((resolve) => ['SIGTERM', 'SIGINT'].forEach((signal) => process.once(signal, () => resolve()))));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    return 0;
  } finally {
    await close();
  }
}

async function list(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, FLAGS.list, HELP.list);
  for (const skill of await skillsFrom(values.skills, io)) io.stdout(`${skill.name}\t${skill.description}\n`);
  return 0;
}

/** `probekit assistant`'s subcommands; the dispatcher makes the group (src/cli/delegated.ts in the library). */
export const ASSISTANT_SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  serve: { usage: USAGE.serve, run: serve },
  run: { usage: USAGE.run, run },
  list: { usage: USAGE.list, run: list },
};
