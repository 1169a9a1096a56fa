/**
 * `probekit search-engine create-key` and `probekit search-engine check`: the assistant's API key, and a check of
 * the integration settings (the engine's URL and that key) before they are entered in the assistant.
 */
import { stringify } from 'yaml';
import { helpText, parseFlags, readSecret, renderSearchEngineSecret, usageLine, UsageError, type CliIo, type Flags, type Subcommand } from 'probekit/cli';
import { createApiKey, DEFAULT_KEY_EXPIRATION, DEFAULT_ROLE_PRESET, LOG_INDEX_PATTERNS, NO_EXPIRATION, ROLE_PRESET_NAMES, type RolePreset } from '../api-key';
import { checkIntegration } from '../check';
import { checkedUrlArgument, TLS_FLAGS, tlsFrom, URL_HELP } from './connection-flags';

const OUTPUTS = ['encoded', 'json', 'secret'] as const;

const INDICES_FLAG = {
  type: 'string',
  value: 'PATTERNS',
  defaultText: LOG_INDEX_PATTERNS.join(','),
  help: 'the index patterns the assistant reads, separated by commas',
} as const;

const FLAGS = {
  createKey: {
    url: { type: 'string', value: 'URL', required: true, help: URL_HELP },
    username: { type: 'string', value: 'USER', required: true, help: 'a search-engine user allowed to create API keys' },
    'password-env': { type: 'string', value: 'VAR', required: true, or: 'password-file', help: "the environment variable holding the user's password" },
    'password-file': { type: 'string', value: 'FILE', help: "a file holding the user's password" },
    name: { type: 'string', value: 'NAME', required: true, help: 'the name of the key, e.g. probekit-assistant' },
    role: { type: 'string', value: 'PRESET', default: DEFAULT_ROLE_PRESET, help: `the key's privileges: ${ROLE_PRESET_NAMES.join(' or ')}` },
    indices: { ...INDICES_FLAG, help: `with --role ${DEFAULT_ROLE_PRESET}: ${INDICES_FLAG.help}` },
    expiration: { type: 'string', value: 'TIME', default: DEFAULT_KEY_EXPIRATION, help: `how long the key lives, in Elasticsearch's units (30d, 12h), or ${NO_EXPIRATION}` },
    ...TLS_FLAGS,
    output: {
      type: 'string',
      value: 'FORM',
      default: OUTPUTS[0],
      help: 'encoded: the key, as the assistant takes it; json: the whole answer; secret: a Kubernetes Secret of the URL and the key',
    },
    namespace: { type: 'string', value: 'NS', defaultText: 'none; needed with --output secret', help: "the Secret's namespace" },
  },
  check: {
    url: { type: 'string', value: 'URL', required: true, help: URL_HELP },
    'api-token-env': { type: 'string', value: 'VAR', required: true, or: 'api-token-file', help: 'the environment variable holding the API token' },
    'api-token-file': { type: 'string', value: 'FILE', help: 'a file holding the API token' },
    indices: { ...INDICES_FLAG, help: `${INDICES_FLAG.help}, checked for the ${DEFAULT_ROLE_PRESET} preset's privileges` },
    ...TLS_FLAGS,
  },
} as const satisfies Record<string, Flags>;

const USAGE = {
  createKey: usageLine('probekit search-engine create-key', FLAGS.createKey),
  check: usageLine('probekit search-engine check', FLAGS.check),
};

const HELP = {
  createKey: helpText(
    USAGE.createKey,
    FLAGS.createKey,
    `Creates the API key the assistant reads logs with, as --username (who must be allowed to create API keys), and
prints it. The password comes from a variable or a file, never from the command line; it is not printed.`,
    '0 created; 1 the search engine refused or could not be reached; 2 a mistake in the command line',
  ),
  check: helpText(
    USAGE.check,
    FLAGS.check,
    `Checks the settings the assistant will use: that the engine answers at --url, that the API token authenticates,
and that it holds the privileges the skills need on the index patterns. Prints ok or MISSING for each.`,
    '0 the assistant has what it needs; 1 something is missing or the engine could not be reached; 2 a mistake in the command line',
  ),
};

/** `--indices a-*,b-*` as a list; undefined when not given. */
function indicesFrom(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const patterns = value
    .split(',')
    .map((pattern) => pattern.trim())
    .filter(Boolean);
  if (patterns.length === 0) throw new UsageError(`--indices ${value}: give index patterns separated by commas, e.g. ${LOG_INDEX_PATTERNS.join(',')}`);
  return patterns;
}

async function createKey(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, FLAGS.createKey, HELP.createKey);
  const url = checkedUrlArgument(values.url!, '--url');
  const role = values.role as RolePreset;
  if (!ROLE_PRESET_NAMES.includes(role)) throw new UsageError(`--role ${values.role}: not a preset; use ${ROLE_PRESET_NAMES.join(' or ')}`);
  const indices = indicesFrom(values.indices);
  if (indices !== undefined && role === 'all-access') throw new UsageError('--indices applies to --role read-only: the all-access preset is the documented role on every index');
  const output = values.output;
  if (!(OUTPUTS as readonly string[]).includes(output)) throw new UsageError(`--output ${output}: not a form of output; use ${OUTPUTS.join(', ')}`);
  if (output === 'secret' && values.namespace === undefined) throw new UsageError('--output secret needs --namespace NS: the namespace the Secret goes to');
  if (output !== 'secret' && values.namespace !== undefined) throw new UsageError('--namespace only applies to --output secret');
  const password = readSecret(io, 'password', 'password-env', values['password-env'], 'password-file', values['password-file']);
  const tls = tlsFrom(values, io);

  const key = await createApiKey({
    url,
    username: values.username!,
    password,
    name: values.name!,
    role,
    tls,
    expiration: values.expiration,
    ...(indices === undefined ? {} : { indices }),
  });
  if (output === 'encoded') io.stdout(`${key.encoded}\n`);
  else if (output === 'json') io.stdout(`${JSON.stringify(key, null, 2)}\n`);
  else io.stdout(stringify(renderSearchEngineSecret({ namespace: values.namespace!, url, apiToken: key.encoded })));
  return 0;
}

async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, FLAGS.check, HELP.check);
  const url = checkedUrlArgument(values.url!, '--url');
  const apiToken = readSecret(io, 'API token', 'api-token-env', values['api-token-env'], 'api-token-file', values['api-token-file']);
  const report = await checkIntegration({ url, tls: tlsFrom(values, io) }, apiToken, indicesFrom(values.indices));
  for (const item of report.items) {
    io.stdout(`${item.ok ? 'ok     ' : 'MISSING'} ${item.what}${item.detail ? `: ${item.detail}` : ''}\n`);
  }
  io.stdout(report.ok ? 'The assistant has what it needs.\n' : 'The assistant cannot work with these settings: see MISSING above.\n');
  return report.ok ? 0 : 1;
}

/** `probekit search-engine`'s subcommands; the dispatcher makes the group (src/cli/delegated.ts in the library). */
export const SEARCH_ENGINE_SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  'create-key': { usage: USAGE.createKey, run: createKey },
  check: { usage: USAGE.check, run: check },
};
