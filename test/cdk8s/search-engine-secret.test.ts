/**
 * SearchEngineSecret alone: the Secret with the engine's URL and API token read from the environment, or a
 * reference to a Secret made elsewhere, with nothing created.
 */
import { Chart, Testing } from 'cdk8s';
import { SearchEngineSecret, type SearchEngineSecretProps } from '../../src/cdk8s';
import { SEARCH_ENGINE_SECRET_KEYS } from '../../src/render/search-engine-secret';
import { SECRET_VALUES } from '../fixtures/specs';
import { problemsOf } from '../support/problems';
import { validateAgainstSchema } from '../support/manifests';

function synth(props: SearchEngineSecretProps): { construct: SearchEngineSecret; manifests: Array<Record<string, any>> } {
  const chart = new Chart(Testing.app(), 'probes', { namespace: 'observability' });
  const construct = new SearchEngineSecret(chart, 'search-engine', props);
  return { construct, manifests: Testing.synth(chart) };
}

describe('SearchEngineSecret', () => {
  it('is an Opaque Secret with the URL and the token, in the chart namespace', () => {
    const { construct, manifests } = synth({ url: 'https://search.example.com:9200', apiToken: { fromEnv: 'SEARCH_TOKEN' }, env: SECRET_VALUES });
    expect(manifests).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: { name: 'search-engine', namespace: 'observability', labels: { 'app.kubernetes.io/part-of': 'probekit', 'app.kubernetes.io/component': 'search-engine' } },
        stringData: { url: 'https://search.example.com:9200', 'api-token': SECRET_VALUES.SEARCH_TOKEN },
      },
    ]);
    validateAgainstSchema(manifests[0]!);
    expect(construct.secret.name).toBe('search-engine');
    expect(construct.apiTokenKey).toBe(SEARCH_ENGINE_SECRET_KEYS.apiToken);
  });

  it('takes another name', () => {
    const { manifests } = synth({ url: 'https://s.example.com', apiToken: { fromEnv: 'SEARCH_TOKEN' }, env: SECRET_VALUES, name: 'es-assistant' });
    expect(manifests.map((manifest) => manifest.metadata.name)).toEqual(['es-assistant']);
  });

  it('is not created when the token is in an existing Secret, which it references', () => {
    const { construct, manifests } = synth({ url: 'https://s.example.com', apiToken: { existingSecret: { name: 'es', key: 'token' } } });
    expect(manifests).toEqual([]);
    expect([construct.secret.name, construct.apiTokenKey]).toEqual(['es', 'token']);
  });

  it('refuses a token variable that is not set', () => {
    expect(problemsOf(() => synth({ url: 'https://s.example.com', apiToken: { fromEnv: 'NOT_SET_ANYWHERE' } }))).toEqual([
      'searchEngine.apiToken.fromEnv: environment variable NOT_SET_ANYWHERE is not set; export it before synth, or reference an existing Secret with existingSecret: { name, key }',
    ]);
  });
});
