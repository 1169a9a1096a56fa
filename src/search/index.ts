/**
 * `probekit/search`: the search-engine client, the API key, the assistant's skills and their MCP server. Kept
 * apart from `probekit` so that the construct library loads neither the Elasticsearch client nor the MCP SDK.
 */
export * from './connection';
export * from './api-key';
export * from './check';
export * from './log-fields';
export * from './log-patterns';
export * from './log-search';
export * from './time';
export * from './answers';
export * from './summarize';
export * from './target-logs';
export * from './probe-failures';
export * from './skill';
export * from './skills';
export * from './mcp';
export * from './skills-server';
