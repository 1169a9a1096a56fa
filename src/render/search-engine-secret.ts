/**
 * The search-engine Secret: the engine's URL and the API token the assistant presents (the integration's two
 * settings), the token being the base64 `encoded` value of a created API key. The cluster form, the Pulumi stacks and
 * `probekit search-engine create-key --output secret` all produce this one shape.
 */

import { DEFAULTS } from '../model/spec';
import { probekitLabels } from './labels';

/** Default name of the Secret (the spec's searchEngine.secretName); the skills server defaults to it too. */
export const SEARCH_ENGINE_SECRET_NAME = DEFAULTS.searchEngine.secretName;

/** Keys of the Secret's data. */
export const SEARCH_ENGINE_SECRET_KEYS = {
  url: 'url',
  apiToken: 'api-token',
} as const;

export interface SearchEngineSecretInput {
  readonly name?: string;
  readonly namespace: string;
  readonly url: string;
  readonly apiToken: string;
}

/** The Secret as a Kubernetes manifest; `stringData` so that it reads back as written. */
export function renderSearchEngineSecret(input: SearchEngineSecretInput): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: input.name ?? SEARCH_ENGINE_SECRET_NAME,
      namespace: input.namespace,
      labels: probekitLabels({ component: 'search-engine' }),
    },
    type: 'Opaque',
    stringData: {
      [SEARCH_ENGINE_SECRET_KEYS.url]: input.url,
      [SEARCH_ENGINE_SECRET_KEYS.apiToken]: input.apiToken,
    },
  };
}
