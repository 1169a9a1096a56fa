/**
 * `probekit search-engine create-key` and `probekit search-engine check`: the assistant's API key, and a check of
 * the integration settings (the engine's URL and that key) before they are entered in the assistant.
 */
import { stringify } from 'yaml';
import { parseFlags, readSecret, renderSearchEngineSecret, required, UsageError, type CliIo, type Subcommand } from 'probekit/cli';
import { createApiKey, DEFAULT_KEY_EXPIRATION, DEFAULT_ROLE_PRESET, LOG_INDEX_PATTERNS, NO_EXPIRATION, ROLE_PRESET_NAMES, type RolePreset } from '../api-key';
import { checkIntegration } from '../check';
import { checkedUrlArgument, TLS_FLAGS, tlsFrom } from './connection-flags';

const CREATE_KEY_USAGE =
  'probekit search-engine create-key --url URL --username USER (--password-env VAR | --password-file FILE) --name NAME ' +
  `[--role read-only|all-access] [--indices ${LOG_INDEX_PATTERNS.join(',')}] [--expiration ${DEFAULT_KEY_EXPIRATION}|${NO_EXPIRATION}] ` +
  '[--insecure] [--ca-file FILE] [--output encoded|json|secret] [--namespace NS]';
const CHECK_USAGE = 'probekit search-engine check --url URL (--api-token-env VAR | --api-token-file FILE) [--indices PATTERNS] [--insecure] [--ca-file FILE]';

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
const OUTPUTS = ['encoded', 'json', 'secret'] as const;

async function createKey(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    args,
    {
      url: { type: 'string' },
      username: { type: 'string' },
      'password-env': { type: 'string' },
      'password-file': { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      expiration: { type: 'string' },
      indices: { type: 'string' },
      output: { type: 'string' },
      namespace: { type: 'string' },
      ...TLS_FLAGS,
    },
    CREATE_KEY_USAGE,
  );
  const url = checkedUrlArgument(required(values.url, 'url', "the search engine's URL, e.g. https://elasticsearch.example:9200"), '--url');
  const username = required(values.username, 'username', 'a search-engine user allowed to create API keys');
  const name = required(values.name, 'name', 'the name of the key, e.g. probekit-assistant');
  const role = (values.role ?? DEFAULT_ROLE_PRESET) as RolePreset;
  if (!ROLE_PRESET_NAMES.includes(role)) throw new UsageError(`--role ${values.role}: not a preset; use ${ROLE_PRESET_NAMES.join(' or ')}`);
  const indices = indicesFrom(values.indices);
  if (indices !== undefined && role === 'all-access') throw new UsageError('--indices applies to --role read-only: the all-access preset is the documented role on every index');
  const output = values.output ?? 'encoded';
  if (!(OUTPUTS as readonly string[]).includes(output)) throw new UsageError(`--output ${output}: not a form of output; use ${OUTPUTS.join(', ')}`);
  if (output === 'secret' && values.namespace === undefined) throw new UsageError('--output secret needs --namespace NS: the namespace the Secret goes to');
  if (output !== 'secret' && values.namespace !== undefined) throw new UsageError('--namespace only applies to --output secret');
  const password = readSecret(io, 'password', 'password-env', values['password-env'], 'password-file', values['password-file']);
  const tls = tlsFrom(values, io);

  const key = await createApiKey({
    url,
    username,
    password,
    name,
    role,
    tls,
    ...(indices === undefined ? {} : { indices }),
    ...(values.expiration === undefined ? {} : { expiration: values.expiration }),
  });
  if (output === 'encoded') io.stdout(`${key.encoded}\n`);
  else if (output === 'json') io.stdout(`${JSON.stringify(key, null, 2)}\n`);
  else io.stdout(stringify(renderSearchEngineSecret({ namespace: values.namespace!, url, apiToken: key.encoded })));
  return 0;
}

async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, { url: { type: 'string' }, 'api-token-env': { type: 'string' }, 'api-token-file': { type: 'string' }, indices: { type: 'string' }, ...TLS_FLAGS }, CHECK_USAGE);
  const url = checkedUrlArgument(required(values.url, 'url', "the search engine's URL, e.g. https://elasticsearch.example:9200"), '--url');
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
  'create-key': { usage: CREATE_KEY_USAGE, run: createKey },
  check: { usage: CHECK_USAGE, run: check },
};
