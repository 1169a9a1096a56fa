/**
 * Synthesized Kubernetes objects as Pulumi resources, each as the typed resource of its kind (a Secret as
 * `kubernetes.core.v1.Secret`, whose data Pulumi keeps secret). Not yaml.ConfigGroup: a component's
 * arguments are sent to the engine and kept in the stack's state, so a ConfigGroup would store every
 * object, Secrets included, in clear a second time.
 */
import * as pulumi from '@pulumi/pulumi';
import * as kubernetes from '@pulumi/kubernetes';

/** A Kubernetes object as synthesized (the cdk8s chart's JSON form). */
export type KubernetesObject = Record<string, unknown> & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
};

type ResourceClass = (new (name: string, args: object, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource) & { readonly __pulumiType?: string };

/**
 * The @pulumi/kubernetes class of an apiVersion and kind: `kubernetes.<group>.<version>.<Kind>`, found under
 * the first label of the API group (`apps`, `networking` for networking.k8s.io, `core` for v1) and accepted
 * when its type token names the same group, version and kind. Others (custom resources) go through
 * CustomResource.
 */
export function resourceClassFor(apiVersion: string, kind: string): ResourceClass {
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['core', apiVersion];
  const modules = kubernetes as unknown as Record<string, Record<string, Record<string, ResourceClass | undefined>> | undefined>;
  const typed = modules[group.split('.')[0]!]?.[version]?.[kind];
  return typed?.__pulumiType === `kubernetes:${group}/${version}:${kind}` ? typed : (kubernetes.apiextensions.CustomResource as unknown as ResourceClass);
}

/** `<prefix>-<namespace>/<name>`: unique across clusters, since URNs hold types and names, not parents. */
export function objectResourceName(prefix: string, object: KubernetesObject): string {
  const { name, namespace } = object.metadata;
  return `${prefix}-${namespace === undefined ? '' : `${namespace}/`}${name}`;
}

export function applyObjects(prefix: string, objects: readonly KubernetesObject[], opts: pulumi.CustomResourceOptions): pulumi.CustomResource[] {
  return objects.map((object) => new (resourceClassFor(object.apiVersion, object.kind))(objectResourceName(prefix, object), object, opts));
}
