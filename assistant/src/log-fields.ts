/**
 * Which fields of an index hold a log's time, level, message, pod, namespace, service, container, host and trace
 * id. Each index is read on its own, since one pattern can hold several layouts (ECS indices beside OpenTelemetry
 * data streams under `logs-*`, Fluent Bit beside Filebeat): ECS names first; where an index uses another common
 * layout (OpenTelemetry, Fluent Bit / Fluentd Kubernetes metadata, plain `level` or `severity`), the names are read
 * from its mappings. A field alias counts as the field it points to, so `log.level` aliased to `severity_text` is
 * found as `log.level`. A text field with a `keyword` sub-field is filtered and aggregated on the sub-field, as
 * Elasticsearch's dynamic mapping makes strings.
 */

export interface LogFields {
  readonly timestamp: string;
  readonly level: string;
  readonly message: string;
  readonly pod: string;
  readonly namespace: string;
  readonly service: string;
  readonly container: string;
  readonly host: string;
  readonly traceId: string;
}

export type LogFieldRole = keyof LogFields;

export const ECS_LOG_FIELDS: LogFields = {
  timestamp: '@timestamp',
  level: 'log.level',
  message: 'message',
  pod: 'kubernetes.pod.name',
  namespace: 'kubernetes.namespace',
  service: 'service.name',
  container: 'container.name',
  host: 'host.name',
  traceId: 'trace.id',
};

export const LOG_FIELD_ROLES = Object.keys(ECS_LOG_FIELDS) as LogFieldRole[];

/**
 * Candidates per role, in order of preference: ECS, then OpenTelemetry (as Elasticsearch stores it, and with
 * `resource.attributes.`), then Fluent Bit / Fluentd, then plain names. A container's name stands for the service
 * where nothing names the service.
 */
const CANDIDATES: Record<LogFieldRole, readonly string[]> = {
  timestamp: ['@timestamp', 'timestamp', 'time', 'ts'],
  level: ['log.level', 'severity_text', 'level', 'severity', 'loglevel', 'log_level', 'lvl'],
  message: ['message', 'body.text', 'body', 'msg', 'log'],
  pod: ['kubernetes.pod.name', 'k8s.pod.name', 'resource.attributes.k8s.pod.name', 'kubernetes.pod_name', 'pod_name', 'pod'],
  namespace: ['kubernetes.namespace', 'k8s.namespace.name', 'resource.attributes.k8s.namespace.name', 'kubernetes.namespace_name', 'namespace_name', 'namespace'],
  service: ['service.name', 'resource.attributes.service.name', 'kubernetes.labels.app', 'app', 'service', 'kubernetes.container.name', 'kubernetes.container_name'],
  container: ['container.name', 'kubernetes.container.name', 'k8s.container.name', 'resource.attributes.k8s.container.name', 'kubernetes.container_name', 'container_name'],
  host: ['host.name', 'kubernetes.node.name', 'k8s.node.name', 'resource.attributes.host.name', 'resource.attributes.k8s.node.name', 'kubernetes.host', 'hostname', 'host'],
  traceId: ['trace.id', 'trace_id', 'traceId', 'trace.trace_id', 'otelTraceID'],
};

export const KEYWORD_TYPES = new Set(['keyword', 'constant_keyword', 'wildcard']);
export const TEXT_TYPES = new Set(['text', 'match_only_text']);
const DATE_TYPES = new Set(['date', 'date_nanos']);

export interface MappedField {
  readonly name: string;
  readonly type: string;
  /** For a field alias: the field it points to (its type is the target's). */
  readonly aliasOf?: string;
}

interface MappingNode {
  type?: string;
  path?: string;
  properties?: Record<string, MappingNode>;
  fields?: Record<string, MappingNode>;
}

/** Every leaf field of a mapping, multi-fields (`level.keyword`) and aliases included, as dotted names with their types. */
export function flattenMapping(properties: Record<string, unknown>): MappedField[] {
  const out: MappedField[] = [];
  const aliases: [string, string][] = [];
  const walk = (props: Record<string, MappingNode>, prefix: string) => {
    for (const [key, node] of Object.entries(props)) {
      const name = prefix === '' ? key : `${prefix}.${key}`;
      if (node.properties) walk(node.properties, name);
      if (node.type === 'alias') aliases.push([name, node.path ?? '']);
      else if (node.type !== undefined && node.type !== 'object') out.push({ name, type: node.type });
      for (const [sub, subNode] of Object.entries(node.fields ?? {})) {
        if (subNode.type !== undefined) out.push({ name: `${name}.${sub}`, type: subNode.type });
      }
    }
  };
  walk(properties as Record<string, MappingNode>, '');
  for (const [name, path] of aliases) {
    const target = out.find((field) => field.name === path);
    if (target !== undefined) out.push({ name, type: target.type, aliasOf: path });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function pick(role: LogFieldRole, types: ReadonlyMap<string, string>): string | undefined {
  for (const name of CANDIDATES[role]) {
    const type = types.get(name);
    if (type === undefined) continue;
    if (role === 'timestamp') {
      if (DATE_TYPES.has(type)) return name;
    } else if (role === 'message') {
      if (TEXT_TYPES.has(type) || KEYWORD_TYPES.has(type)) return name;
    } else if (KEYWORD_TYPES.has(type)) {
      return name;
    } else if (TEXT_TYPES.has(type) && KEYWORD_TYPES.has(types.get(`${name}.keyword`) ?? '')) {
      return `${name}.keyword`;
    }
  }
  return undefined;
}

/** One index's log fields, and which roles it has no field for. */
export interface IndexLogFields {
  readonly fields: LogFields;
  /** Roles found in no field of the index: their ECS name is kept, so a query names a field and matches nothing. */
  readonly missing: readonly LogFieldRole[];
  /** Whether the message is analysed text (matched by words) or a keyword (matched whole). */
  readonly messageIsText: boolean;
}

/** The log fields of one index from its mapping's `properties`; `explicit` names win over detection. */
export function detectIndexLogFields(properties: Record<string, unknown>, explicit: Partial<LogFields> = {}): IndexLogFields {
  return detectFromTypes(new Map(flattenMapping(properties).map((field) => [field.name, field.type])), explicit);
}

function detectFromTypes(types: ReadonlyMap<string, string>, explicit: Partial<LogFields>): IndexLogFields {
  const missing: LogFieldRole[] = [];
  const fields = Object.fromEntries(
    LOG_FIELD_ROLES.map((role) => {
      const found = explicit[role] ?? pick(role, types);
      if (found === undefined) missing.push(role);
      return [role, found ?? ECS_LOG_FIELDS[role]];
    }),
  ) as unknown as LogFields;
  return { fields, missing, messageIsText: TEXT_TYPES.has(types.get(fields.message) ?? 'text') };
}

/** Log fields across several mappings, the first index that has a role winning (for one-layout callers). */
export function detectLogFields(mappings: readonly Record<string, unknown>[], explicit: Partial<LogFields> = {}): LogFields {
  const types = new Map<string, string>();
  for (const properties of mappings) for (const field of flattenMapping(properties)) if (!types.has(field.name)) types.set(field.name, field.type);
  return detectFromTypes(types, explicit).fields;
}

/** Indices that share one layout: the same fields for every role. */
export interface LogLayout extends IndexLogFields {
  /** Concrete index names (backing indices of data streams included), sorted. */
  readonly indices: readonly string[];
}

/**
 * The layouts of the indices whose mappings are given (index name to `properties`), each index in exactly one,
 * ordered by their first index name: the same answer whatever order Elasticsearch lists the indices in.
 */
export function groupLayouts(mappings: Readonly<Record<string, Record<string, unknown>>>, explicit: Partial<LogFields> = {}): LogLayout[] {
  const byKey = new Map<string, { detected: IndexLogFields; indices: string[] }>();
  for (const index of Object.keys(mappings).sort()) {
    const detected = detectIndexLogFields(mappings[index]!, explicit);
    const key = JSON.stringify([detected.fields, detected.messageIsText]);
    const group = byKey.get(key);
    if (group) group.indices.push(index);
    else byKey.set(key, { detected, indices: [index] });
  }
  return [...byKey.values()].map(({ detected, indices }) => ({ ...detected, indices }));
}
