/**
 * `@probekit/assistant`: the search-engine client, the API key, the assistant's skills and their MCP server. A
 * package apart from `probekit`, so that a construct user installs neither the Elasticsearch client nor the MCP SDK.
 * Its commands (`probekit assistant`, `probekit search-engine`) are `@probekit/assistant/cli`, which `probekit`
 * loads.
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
