/**
 * The documented arguments, blocks and exports of the Alloy components probekit writes (Alloy 1.18's reference:
 * discovery.relabel, prometheus.scrape, prometheus.remote_write, and the shared rule, basic_auth, tls_config and
 * authorization blocks), and a check of a parsed configuration against them: every component is one of these, its
 * label an identifier used once, every attribute documented for its block and of the documented type, every
 * required attribute and block present, the documented mutual exclusions kept, and every reference naming an
 * export of a component that exists (or one the caller says the user's configuration defines).
 */
import { parseGoDuration } from '@probekit/exporter';
import { AlloyReference, isAlloyIdentifier, type AlloyAttribute, type AlloyBlock, type AlloyStatement, type AlloyValue } from './alloy-syntax';

type ArgumentType =
  'string' | 'secret' | 'bool' | 'int' | 'uint' | 'number' | 'duration' | 'list(string)' | 'map(string)' | 'map(list(string))' | 'map(list(secret))' | 'list(map(string))' | 'list(MetricsReceiver)';

interface BlockContract {
  readonly arguments: Readonly<Record<string, { readonly type: ArgumentType; readonly required?: boolean }>>;
  readonly blocks?: Readonly<Record<string, BlockContract & { readonly required?: boolean; readonly repeatable?: boolean }>>;
  /** Sets of names (attributes or blocks) of which at most one may be given. */
  readonly exclusive?: ReadonlyArray<readonly string[]>;
}

interface ComponentContract extends BlockContract {
  readonly exports: Readonly<Record<string, 'list(map(string))' | 'MetricsReceiver' | 'RelabelRules'>>;
}

const optional = (type: ArgumentType) => ({ type });
const required = (type: ArgumentType) => ({ type, required: true });

const TLS_CONFIG: BlockContract = {
  arguments: {
    ca_pem: optional('string'),
    ca_file: optional('string'),
    cert_pem: optional('string'),
    cert_file: optional('string'),
    insecure_skip_verify: optional('bool'),
    key_file: optional('string'),
    key_pem: optional('secret'),
    min_version: optional('string'),
    server_name: optional('string'),
  },
  exclusive: [
    ['ca_pem', 'ca_file'],
    ['cert_pem', 'cert_file'],
    ['key_pem', 'key_file'],
  ],
};

const BASIC_AUTH: BlockContract = { arguments: { password_file: optional('string'), password: optional('secret'), username: optional('string') }, exclusive: [['password', 'password_file']] };
const AUTHORIZATION: BlockContract = {
  arguments: { credentials_file: optional('string'), credentials: optional('secret'), type: optional('string') },
  exclusive: [['credentials', 'credentials_file']],
};

const RULE: BlockContract = {
  arguments: {
    action: optional('string'),
    modulus: optional('uint'),
    regex: optional('string'),
    replacement: optional('string'),
    separator: optional('string'),
    source_labels: optional('list(string)'),
    target_label: optional('string'),
  },
};

/** prometheus.scrape's arguments, all of them as its reference lists them. */
const SCRAPE_ARGUMENTS: BlockContract['arguments'] = {
  forward_to: required('list(MetricsReceiver)'),
  targets: required('list(map(string))'),
  bearer_token_file: optional('string'),
  bearer_token: optional('secret'),
  body_size_limit: optional('int'),
  convert_classic_histograms_to_nhcb: optional('bool'),
  start_timestamp_zero_ingestion: optional('bool'),
  enable_compression: optional('bool'),
  enable_http2: optional('bool'),
  enable_protobuf_negotiation: optional('bool'),
  enable_type_and_unit_labels: optional('bool'),
  extra_metrics: optional('bool'),
  follow_redirects: optional('bool'),
  http_headers: optional('map(list(secret))'),
  honor_labels: optional('bool'),
  honor_timestamps: optional('bool'),
  honor_metadata: optional('bool'),
  job_name: optional('string'),
  label_limit: optional('uint'),
  label_name_length_limit: optional('uint'),
  label_value_length_limit: optional('uint'),
  metric_name_escaping_scheme: optional('string'),
  metric_name_validation_scheme: optional('string'),
  metrics_path: optional('string'),
  native_histogram_bucket_limit: optional('uint'),
  native_histogram_min_bucket_factor: optional('number'),
  no_proxy: optional('string'),
  params: optional('map(list(string))'),
  proxy_connect_header: optional('map(list(secret))'),
  proxy_from_environment: optional('bool'),
  proxy_url: optional('string'),
  sample_limit: optional('uint'),
  scheme: optional('string'),
  scrape_classic_histograms: optional('bool'),
  scrape_failure_log_file: optional('string'),
  scrape_fallback_protocol: optional('string'),
  scrape_interval: optional('duration'),
  scrape_native_histograms: optional('bool'),
  scrape_protocols: optional('list(string)'),
  scrape_timeout: optional('duration'),
  target_limit: optional('uint'),
  track_timestamps_staleness: optional('bool'),
};

const ENDPOINT: BlockContract = {
  arguments: {
    url: required('string'),
    bearer_token_file: optional('string'),
    bearer_token: optional('secret'),
    enable_http2: optional('bool'),
    follow_redirects: optional('bool'),
    http_headers: optional('map(list(secret))'),
    headers: optional('map(string)'),
    name: optional('string'),
    no_proxy: optional('string'),
    protobuf_message: optional('string'),
    proxy_connect_header: optional('map(list(secret))'),
    proxy_from_environment: optional('bool'),
    proxy_url: optional('string'),
    remote_timeout: optional('duration'),
    round_robin_dns: optional('bool'),
    send_exemplars: optional('bool'),
    send_native_histograms: optional('bool'),
  },
  blocks: { authorization: AUTHORIZATION, basic_auth: BASIC_AUTH, tls_config: TLS_CONFIG },
  exclusive: [['authorization', 'basic_auth', 'bearer_token_file', 'bearer_token']],
};

export const ALLOY_COMPONENTS: Readonly<Record<string, ComponentContract>> = {
  'discovery.relabel': {
    arguments: { targets: required('list(map(string))') },
    blocks: { rule: { ...RULE, repeatable: true } },
    exports: { output: 'list(map(string))', rules: 'RelabelRules' },
  },
  'prometheus.scrape': {
    arguments: SCRAPE_ARGUMENTS,
    blocks: { authorization: AUTHORIZATION, basic_auth: BASIC_AUTH, clustering: { arguments: { enabled: required('bool') } }, tls_config: TLS_CONFIG },
    exclusive: [['authorization', 'basic_auth', 'bearer_token_file', 'bearer_token']],
    exports: {},
  },
  'prometheus.remote_write': {
    arguments: { external_labels: optional('map(string)') },
    blocks: { endpoint: { ...ENDPOINT, repeatable: true } },
    exports: { receiver: 'MetricsReceiver' },
  },
};

/** Where a reference points: a component's export, and that export's type. */
type Exports = ReadonlyMap<string, ComponentContract['exports'][string]>;

function isStringMap(value: AlloyValue): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof AlloyReference) && Object.values(value).every((entry) => typeof entry === 'string');
}

function typeProblem(value: AlloyValue, type: ArgumentType, exported: Exports): string | undefined {
  const ok = (condition: boolean) => (condition ? undefined : `is not a ${type}`);
  const list = Array.isArray(value) ? value : undefined;
  const reference = value instanceof AlloyReference ? value.toString() : undefined;
  switch (type) {
    case 'string':
    case 'secret':
      return ok(typeof value === 'string');
    case 'bool':
      return ok(typeof value === 'boolean');
    case 'int':
    case 'uint':
      return ok(typeof value === 'number' && Number.isInteger(value) && (type === 'int' || value >= 0));
    case 'number':
      return ok(typeof value === 'number');
    case 'duration':
      return typeof value === 'string' && parseGoDuration(value) !== undefined ? undefined : `is not a duration Alloy reads (Go's: 30s, 1m30s, 24h): ${JSON.stringify(value)}`;
    case 'list(string)':
      return ok(list !== undefined && list.every((item) => typeof item === 'string'));
    case 'map(string)':
      return ok(isStringMap(value));
    case 'map(list(string))':
    case 'map(list(secret))':
      return ok(typeof value === 'object' && value !== null && !list && !reference && Object.values(value).every((entry) => Array.isArray(entry) && entry.every((item) => typeof item === 'string')));
    case 'list(map(string))':
      if (reference !== undefined) return exported.get(reference) === 'list(map(string))' ? undefined : `refers to ${reference}, which no component exports as a list of targets`;
      return ok(list !== undefined && list.every(isStringMap));
    case 'list(MetricsReceiver)':
      if (list === undefined) return 'is not a list of receivers';
      for (const item of list) {
        if (!(item instanceof AlloyReference)) return 'holds something other than a reference to a receiver';
        if (exported.get(item.toString()) !== 'MetricsReceiver') return `refers to ${item.toString()}, which no component exports as a metrics receiver`;
      }
      return undefined;
  }
}

function blockProblems(statements: readonly AlloyStatement[], contract: BlockContract, where: string, exported: Exports): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const statement of statements) {
    seen.set(statement.name, (seen.get(statement.name) ?? 0) + 1);
    const at = `${where} > ${statement.name} (line ${statement.line})`;
    if (statement.kind === 'attribute') {
      const argument = contract.arguments[statement.name];
      if (argument === undefined) problems.push(`${at}: not an argument of this block`);
      else {
        const problem = typeProblem(statement.value, argument.type, exported);
        if (problem) problems.push(`${at}: ${problem}`);
      }
      if (seen.get(statement.name)! > 1) problems.push(`${at}: given twice`);
    } else {
      const nested = contract.blocks?.[statement.name];
      if (nested === undefined) problems.push(`${at}: not a block of this block`);
      else {
        if (statement.label !== undefined) problems.push(`${at}: a nested block has no label`);
        if (!nested.repeatable && seen.get(statement.name)! > 1) problems.push(`${at}: given twice`);
        problems.push(...blockProblems(statement.body, nested, `${where} > ${statement.name}`, exported));
      }
    }
  }
  for (const [name, argument] of Object.entries(contract.arguments)) if (argument.required && !seen.has(name)) problems.push(`${where}: the required argument ${name} is missing`);
  for (const [name, nested] of Object.entries(contract.blocks ?? {})) if (nested.required && !seen.has(name)) problems.push(`${where}: the required block ${name} is missing`);
  for (const names of contract.exclusive ?? []) {
    const given = names.filter((name) => seen.has(name));
    if (given.length > 1) problems.push(`${where}: ${given.join(' and ')} exclude each other`);
  }
  return problems;
}

/**
 * Everything in the configuration that Alloy's documentation says it would refuse, in words; empty when it
 * would load. `provided` names components the user's own configuration defines (`prometheus.remote_write.default`).
 */
export function alloyConfigProblems(statements: readonly AlloyStatement[], provided: readonly string[] = []): string[] {
  const problems: string[] = [];
  const exported = new Map<string, ComponentContract['exports'][string]>();
  const components: AlloyBlock[] = [];
  for (const name of provided) {
    const kind = name.split('.').slice(0, -1).join('.');
    for (const [field, type] of Object.entries(ALLOY_COMPONENTS[kind]?.exports ?? {})) exported.set(`${name}.${field}`, type);
  }
  for (const statement of statements) {
    if (statement.kind === 'attribute') {
      problems.push(`line ${statement.line}: ${statement.name} = ... at the top level is no component`);
      continue;
    }
    const contract = ALLOY_COMPONENTS[statement.name];
    const id = `${statement.name}.${statement.label ?? ''}`;
    if (contract === undefined) problems.push(`line ${statement.line}: ${statement.name} is not a component probekit's contract knows`);
    else if (statement.label === undefined || !isAlloyIdentifier(statement.label)) problems.push(`line ${statement.line}: ${statement.name} needs a label that is an identifier`);
    else if ([...exported.keys()].some((key) => key.startsWith(`${id}.`)) || components.some((other) => other.name === statement.name && other.label === statement.label))
      problems.push(`line ${statement.line}: ${id} is defined twice`);
    else {
      components.push(statement);
      for (const [field, type] of Object.entries(contract.exports)) exported.set(`${id}.${field}`, type);
    }
  }
  for (const component of components) problems.push(...blockProblems(component.body, ALLOY_COMPONENTS[component.name], `${component.name}.${component.label}`, exported));
  return problems;
}

/** The components of a parsed configuration by `name.label`. */
export function alloyComponents(statements: readonly AlloyStatement[]): Map<string, AlloyBlock> {
  return new Map(statements.filter((statement): statement is AlloyBlock => statement.kind === 'block').map((block) => [`${block.name}.${block.label}`, block]));
}

/** An attribute's value in a block's body, or undefined. */
export function attributeOf(block: AlloyBlock, name: string): AlloyValue | undefined {
  return block.body.find((statement): statement is AlloyAttribute => statement.kind === 'attribute' && statement.name === name)?.value;
}

/** The nested blocks of a block with that name. */
export function blocksOf(block: AlloyBlock, name: string): AlloyBlock[] {
  return block.body.filter((statement): statement is AlloyBlock => statement.kind === 'block' && statement.name === name);
}
