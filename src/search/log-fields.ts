/**
 * Which fields of an index hold a log's time, level, message, pod, namespace and service. ECS names first; where an
 * index uses another common layout (Fluent Bit / Fluentd Kubernetes metadata, plain `level` or `severity`), the names
 * are read from its mappings. A text field with a `keyword` sub-field is filtered and aggregated on the sub-field,
 * as Elasticsearch's dynamic mapping makes strings.
 */

export interface LogFields {
  readonly timestamp: string;
  readonly level: string;
  readonly message: string;
  readonly pod: string;
  readonly namespace: string;
  readonly service: string;
}

export type LogFieldRole = keyof LogFields;

export const ECS_LOG_FIELDS: LogFields = {
  timestamp: '@timestamp',
  level: 'log.level',
  message: 'message',
  pod: 'kubernetes.pod.name',
  namespace: 'kubernetes.namespace',
  service: 'service.name',
};

/** Candidates per role, in order of preference: ECS, then OpenTelemetry, then Fluent Bit / Fluentd, then plain names. */
const CANDIDATES: Record<LogFieldRole, readonly string[]> = {
  timestamp: ['@timestamp', 'timestamp', 'time', 'ts'],
  level: ['log.level', 'severity_text', 'level', 'severity', 'loglevel', 'log_level', 'lvl'],
  message: ['message', 'body', 'msg', 'log'],
  pod: ['kubernetes.pod.name', 'k8s.pod.name', 'resource.attributes.k8s.pod.name', 'kubernetes.pod_name', 'pod_name', 'pod'],
  namespace: ['kubernetes.namespace', 'k8s.namespace.name', 'resource.attributes.k8s.namespace.name', 'kubernetes.namespace_name', 'namespace_name', 'namespace'],
  service: ['service.name', 'resource.attributes.service.name', 'kubernetes.container.name', 'kubernetes.container_name', 'kubernetes.labels.app', 'app', 'service'],
};

const KEYWORD_TYPES = new Set(['keyword', 'constant_keyword', 'wildcard']);
const TEXT_TYPES = new Set(['text', 'match_only_text']);
const DATE_TYPES = new Set(['date', 'date_nanos']);

export interface MappedField {
  readonly name: string;
  readonly type: string;
}

interface MappingNode {
  type?: string;
  properties?: Record<string, MappingNode>;
  fields?: Record<string, MappingNode>;
}

/** Every leaf field of a mapping, multi-fields included (`level.keyword`), as dotted names with their types. */
export function flattenMapping(properties: Record<string, unknown>): MappedField[] {
  const out: MappedField[] = [];
  const walk = (props: Record<string, MappingNode>, prefix: string) => {
    for (const [key, node] of Object.entries(props)) {
      const name = prefix === '' ? key : `${prefix}.${key}`;
      if (node.properties) walk(node.properties, name);
      if (node.type !== undefined) out.push({ name, type: node.type });
      for (const [sub, subNode] of Object.entries(node.fields ?? {})) {
        if (subNode.type !== undefined) out.push({ name: `${name}.${sub}`, type: subNode.type });
      }
    }
  };
  walk(properties as Record<string, MappingNode>, '');
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

/**
 * The log fields of the indices whose mappings are given (the `properties` of each); where a role is found in no
 * index, the ECS name is kept, so a query still names a field and simply matches nothing. `explicit` wins over both.
 */
export function detectLogFields(mappings: readonly Record<string, unknown>[], explicit: Partial<LogFields> = {}): LogFields {
  const types = new Map<string, string>();
  for (const properties of mappings) for (const field of flattenMapping(properties)) if (!types.has(field.name)) types.set(field.name, field.type);
  return Object.fromEntries((Object.keys(ECS_LOG_FIELDS) as LogFieldRole[]).map((role) => [role, explicit[role] ?? pick(role, types) ?? ECS_LOG_FIELDS[role]])) as unknown as LogFields;
}
