/**
 * The program's body: one API key (created here, or the one configured), then one component per cluster
 * with the objects the cdk8s chart synthesizes for that cluster's spec. Kept apart from index.ts so that
 * what runs on `pulumi up` is a function of the configuration and the environment alone.
 */
import * as pulumi from '@pulumi/pulumi';
import { readFileSync } from 'node:fs';
import { synthesize, type Environment } from 'probekit';
import { SEARCH_ENGINE_SECRET_NAME } from 'probekit/cli';
import { DEFAULT_ROLE_PRESET } from '@probekit/assistant';
import { SearchEngineApiKey } from './api-key';
import { ProbekitCluster } from './cluster';
import type { KubernetesObject } from './objects';
import { CONFIG_KEYS, createsApiKey, StackConfigError, type SearchEngineConfig, type StackConfig } from './config';

export interface ClusterOutputs {
  readonly namespace: string;
  /** host:port the agent's scrape job sends probes to. */
  readonly exporterAddress: string;
  readonly searchEngineSecret: pulumi.Output<string>;
  readonly agentRelease: pulumi.Output<string>;
  readonly agentStatus: pulumi.Output<string>;
}

/** What `pulumi stack output` shows: addresses and names, nothing secret. */
export interface DeploymentOutputs {
  /** The created key's id (not a credential), to find it in the engine. */
  readonly searchEngineApiKeyId?: pulumi.Output<string>;
  readonly clusters: Record<string, ClusterOutputs>;
  /**
   * The rule file for the Prometheus (or Mimir/Thanos ruler) every cluster's agent remote-writes to: with two or more
   * locations it counts them (README: alerting). Absent when the spec turns alerts off.
   */
  readonly centralRules?: string;
  /** Alertmanager's file for probekit's alerts, when the spec routes them (receivers, windows, two or more locations). */
  readonly alertmanagerConfig?: string;
}

export interface Deployment {
  /** The key created at deploy time; absent when the configuration gives a ready token. */
  readonly apiKey?: SearchEngineApiKey;
  readonly clusters: readonly ProbekitCluster[];
  readonly outputs: DeploymentOutputs;
}

function readCaFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StackConfigError([{ path: [CONFIG_KEYS.searchEngine, 'caFile'], message: `cannot read ${path} (${code}); give the PEM file of the engine's CA` }]);
  }
}

/** The API token for the clusters' Secrets: a key created now with the admin credentials, or the one configured. */
function searchEngineToken(searchEngine: SearchEngineConfig): { apiKey?: SearchEngineApiKey; apiToken: pulumi.Output<string> } {
  if (!createsApiKey(searchEngine)) return { apiToken: pulumi.secret(searchEngine.apiToken) };
  const apiKey = new SearchEngineApiKey('search-engine-api-key', {
    url: searchEngine.url,
    username: searchEngine.username,
    password: searchEngine.password,
    name: searchEngine.keyName ?? `probekit-${pulumi.getStack()}`,
    role: searchEngine.role ?? DEFAULT_ROLE_PRESET,
    ...(searchEngine.insecure === undefined ? {} : { insecure: searchEngine.insecure }),
    // The program is the edge that reads files; the provider gets the CA's text.
    ...(searchEngine.caFile === undefined ? {} : { ca: readCaFile(searchEngine.caFile) }),
  });
  return { apiKey, apiToken: pulumi.secret(apiKey.encoded) };
}

export function deployProbekit(config: StackConfig, env: Environment): Deployment {
  const { searchEngine, agent } = config;
  const { apiKey, apiToken } = searchEngineToken(searchEngine);

  const synthesized = config.clusters.map((cluster) => synthesize(cluster.spec, env));
  const clusters = config.clusters.map((cluster, index) => {
    const { manifests, agentValues } = synthesized[index]!;
    return new ProbekitCluster(cluster.name, {
      kubeconfig: cluster.kubeconfig,
      context: cluster.context,
      namespace: cluster.spec.namespace,
      objects: manifests as KubernetesObject[],
      searchEngineSecret: {
        name: searchEngine.secretName ?? SEARCH_ENGINE_SECRET_NAME,
        namespace: cluster.spec.namespace,
        url: searchEngine.url,
        apiToken,
      },
      agent: {
        helmChart: agent.helmChart,
        repository: agent.repository,
        version: agent.version,
        releaseName: agent.releaseName,
        namespace: agent.namespace ?? cluster.spec.namespace,
        values: agentValues,
      },
    });
  });

  // Every cluster's spec has the same jobs and locations; the first one's rules are the central Prometheus's.
  const { centralRules, alertmanagerConfig } = synthesized[0]!;
  const outputs: DeploymentOutputs = {
    ...(apiKey ? { searchEngineApiKeyId: apiKey.id } : {}),
    ...(centralRules === undefined ? {} : { centralRules }),
    ...(alertmanagerConfig === undefined ? {} : { alertmanagerConfig }),
    clusters: Object.fromEntries(
      config.clusters.map((cluster, index) => [
        cluster.name,
        {
          namespace: cluster.spec.namespace,
          exporterAddress: synthesized[index]!.exporterAddress,
          searchEngineSecret: clusters[index]!.searchEngineSecret.metadata.name,
          agentRelease: clusters[index]!.agentRelease.name,
          agentStatus: clusters[index]!.agentRelease.status.status,
        },
      ]),
    ),
  };
  return { ...(apiKey ? { apiKey } : {}), clusters, outputs };
}
