/**
 * What a deployment needs to know about the skills server, without loading the search client or the MCP SDK:
 * the construct library imports these, and `import 'probekit'` must stay light.
 */

/** Environment variables the skills server reads its integration settings from when no flag names them. */
export const SEARCH_ENGINE_ENV = {
  url: 'PROBEKIT_SEARCH_ENGINE_URL',
  apiToken: 'PROBEKIT_SEARCH_ENGINE_API_TOKEN',
} as const;

/** Path of the Streamable HTTP endpoint. */
export const MCP_HTTP_PATH = '/mcp';

/** Path of the health check that orchestrators probe. */
export const SKILLS_SERVER_HEALTH_PATH = '/healthz';
