/**
 * How the contract server fails. A ContractError is a whole request refused (status and Elasticsearch's error body);
 * a ShardError is one index's shard failing while the others answer, as Elasticsearch reports in
 * `_shards.failures`, or as `search_phase_execution_exception` when every shard failed.
 */

export class ContractError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    reason: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(reason);
  }
}

export class ShardError extends Error {
  constructor(
    readonly type: string,
    reason: string,
    readonly status = 400,
  ) {
    super(reason);
  }
}

/** A request body key Elasticsearch knows but this server does not implement: the test must fail loudly. */
export function notImplemented(what: string): ContractError {
  return new ContractError(500, 'contract_server_not_implemented', `the contract server does not implement ${what}; implement it before relying on it`);
}

/** Elasticsearch's name for a JSON value's token, as its parse errors print it. */
export function tokenName(value: unknown): string {
  if (Array.isArray(value)) return 'START_ARRAY';
  if (value === null) return 'VALUE_NULL';
  switch (typeof value) {
    case 'object':
      return 'START_OBJECT';
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    default:
      return 'VALUE_EMBEDDED_OBJECT';
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
