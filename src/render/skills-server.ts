/**
 * The assistant's skills server as it is deployed: the image, port, paths and environment that the AssistantSkills
 * construct gives it and that `@probekit/assistant` serves by (it reads them from `probekit/cli`). Here, in the
 * library, because the construct must not load the assistant's package.
 */
import { version } from '../../package.json';

/** The image built from the repository's Dockerfile, tagged with this package's version: `probekit` on its PATH. */
export const SKILLS_SERVER_IMAGE = `ghcr.io/probekit/probekit:${version}`;

/** The port the skills server listens on in its container (the image's EXPOSE and CMD). */
export const SKILLS_SERVER_PORT = 8080;

/** Environment variables the skills server reads its integration settings from when no flag names them. */
export const SEARCH_ENGINE_ENV = {
  url: 'PROBEKIT_SEARCH_ENGINE_URL',
  apiToken: 'PROBEKIT_SEARCH_ENGINE_API_TOKEN',
} as const;

/** Path of the Streamable HTTP endpoint. */
export const MCP_HTTP_PATH = '/mcp';

/** Path of the health check that orchestrators probe. */
export const SKILLS_SERVER_HEALTH_PATH = '/healthz';
