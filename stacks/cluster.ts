/**
 * Everything probekit puts on one cluster, as one Pulumi component: the cluster's own Kubernetes
 * provider, the namespace, the synthesized objects applied through it, the search-engine Secret and the
 * agent's Helm release. Every child goes through this cluster's provider, never the ambient one.
 */
import * as pulumi from '@pulumi/pulumi';
import * as kubernetes from '@pulumi/kubernetes';
import { PART_OF_PROBEKIT } from 'probekit';
import { renderSearchEngineSecret } from 'probekit/cli';
import { applyObjects, type KubernetesObject } from './objects';

export interface AgentRelease {
  /** The Helm chart to install (stacks/config.ts: probekit:agent.helmChart). */
  readonly helmChart: string;
  readonly repository?: string;
  readonly version?: string;
  readonly releaseName: string;
  readonly namespace: string;
  /** The agent chart's values: the scrape jobs and the exporter switch. */
  readonly values: Record<string, unknown>;
}

export interface SearchEngineSecretArgs {
  readonly name: string;
  readonly namespace: string;
  readonly url: string;
  /** The `encoded` API key; made a secret here whatever it was before. */
  readonly apiToken: pulumi.Input<string>;
}

export interface ProbekitClusterArgs {
  /** Path to a kubeconfig or its content; the ambient kubeconfig when left out. Held as a secret. */
  readonly kubeconfig?: string;
  /** The kubeconfig context; its current context when left out. */
  readonly context?: string;
  /** Namespace of the objects and the Secret. */
  readonly namespace: string;
  /** The objects to apply, as the cdk8s chart synthesizes them. */
  readonly objects: readonly KubernetesObject[];
  readonly searchEngineSecret: SearchEngineSecretArgs;
  readonly agent: AgentRelease;
}

export class ProbekitCluster extends pulumi.ComponentResource {
  static readonly TYPE = 'probekit:stacks:Cluster';

  readonly provider: kubernetes.Provider;
  readonly namespace: kubernetes.core.v1.Namespace;
  readonly objects: readonly pulumi.CustomResource[];
  readonly searchEngineSecret: kubernetes.core.v1.Secret;
  readonly agentRelease: kubernetes.helm.v3.Release;

  constructor(name: string, args: ProbekitClusterArgs, opts?: pulumi.ComponentResourceOptions) {
    super(ProbekitCluster.TYPE, name, {}, opts);
    const child = { parent: this };

    this.provider = new kubernetes.Provider(
      name,
      {
        ...(args.kubeconfig === undefined ? {} : { kubeconfig: pulumi.secret(args.kubeconfig) }),
        ...(args.context === undefined ? {} : { context: args.context }),
      },
      child,
    );
    const onCluster = { ...child, provider: this.provider };

    // The cluster form expects the namespace to exist; here it is ensured, and kept on destroy because
    // it may hold more than probekit (`monitoring` often does).
    this.namespace = new kubernetes.core.v1.Namespace(`${name}-namespace`, { metadata: { name: args.namespace, labels: { ...PART_OF_PROBEKIT } } }, { ...onCluster, retainOnDelete: true });
    const inNamespace = { ...onCluster, dependsOn: [this.namespace] };

    this.objects = applyObjects(name, args.objects, inNamespace);

    this.searchEngineSecret = new kubernetes.core.v1.Secret(`${name}-search-engine`, secretArgs(args.searchEngineSecret), inNamespace);

    this.agentRelease = new kubernetes.helm.v3.Release(
      `${name}-agent`,
      {
        name: args.agent.releaseName,
        chart: args.agent.helmChart,
        ...(args.agent.repository === undefined ? {} : { repositoryOpts: { repo: args.agent.repository } }),
        ...(args.agent.version === undefined ? {} : { version: args.agent.version }),
        namespace: args.agent.namespace,
        createNamespace: true,
        values: args.agent.values,
        // As the cluster form's `helm upgrade --reuse-values`: an agent's own settings survive the upgrade.
        reuseValues: true,
      },
      // The scrape job points at the exporter's Service: install the agent once the exporter is there.
      { ...onCluster, dependsOn: [...this.objects] },
    );

    this.registerOutputs({
      namespace: this.namespace.metadata.name,
      searchEngineSecret: this.searchEngineSecret.metadata.name,
      agentRelease: this.agentRelease.name,
      agentStatus: this.agentRelease.status.status,
    });
  }
}

/**
 * The shared Secret shape. Only stringData depends on the token; rendering the rest without it keeps the
 * Secret's name and labels known at preview, before the key exists, and out of the secret.
 */
function secretArgs(input: SearchEngineSecretArgs): kubernetes.core.v1.SecretArgs {
  const render = (apiToken: string) => renderSearchEngineSecret({ ...input, apiToken });
  const { metadata, type } = render('');
  return {
    metadata: metadata as kubernetes.types.input.meta.v1.ObjectMeta,
    type: type as string,
    stringData: pulumi.secret(input.apiToken).apply((apiToken) => render(apiToken).stringData as Record<string, string>),
  };
}
