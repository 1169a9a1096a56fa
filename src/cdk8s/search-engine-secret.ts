/**
 * The Secret that holds the search engine's URL and API token, the assistant's integration settings. With `existingSecret` nothing
 * is created: the construct only references the Secret made elsewhere.
 */
import { ApiObject, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { clusterSecretOf, DEFAULTS, requireEnvSecret, type Environment, type SecretRef } from '../model';
import { renderExternalSecret } from '../render/external-secret';
import { SEARCH_ENGINE_SECRET_KEYS, renderSearchEngineSecret } from '../render/search-engine-secret';

export interface SearchEngineSecretProps {
  /** URL of the search engine. */
  readonly url: string;
  /** Where the API token (the key's `encoded` value) comes from. */
  readonly apiToken: SecretRef;
  /** Name of the Secret to create. @default search-engine */
  readonly name?: string;
  /** The environment a `fromEnv` token is read from. @default - none: a `fromEnv` token fails synth */
  readonly env?: Environment;
}

export class SearchEngineSecret extends Construct {
  /** The Secret holding the token: the one created here, or the existing one referenced. */
  readonly secret: kplus.ISecret;
  /** The key under which `secret` holds the token. */
  readonly apiTokenKey: string;

  constructor(scope: Construct, id: string, props: SearchEngineSecretProps) {
    super(scope, id);
    if (!('fromEnv' in props.apiToken)) {
      const clusterSecret = clusterSecretOf(props.apiToken)!;
      if ('externalSecret' in props.apiToken) new ApiObject(this, 'external', renderExternalSecret(props.apiToken.externalSecret) as unknown as ConstructorParameters<typeof ApiObject>[2]);
      this.secret = kplus.Secret.fromSecretName(this, 'existing', clusterSecret.name);
      this.apiTokenKey = clusterSecret.key;
      return;
    }
    const apiToken = requireEnvSecret(props.apiToken, props.env ?? {}, ['searchEngine', 'apiToken'], 'synth');
    const name = props.name ?? DEFAULTS.searchEngine.secretName;
    const manifest = renderSearchEngineSecret({ name, namespace: Chart.of(this).namespace ?? 'default', url: props.url, apiToken });
    new ApiObject(this, 'resource', manifest as unknown as ConstructorParameters<typeof ApiObject>[2]);
    this.secret = kplus.Secret.fromSecretName(this, 'created', name);
    this.apiTokenKey = SEARCH_ENGINE_SECRET_KEYS.apiToken;
  }
}
