/** Helpers for asserting on synthesized objects. */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

/** Validates an object against the Kubernetes OpenAPI schema of its kind; throws naming what is wrong. */
export function validateAgainstSchema(manifest: Record<string, any>): void {
  const model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new model(manifest).validate();
}

export function find(manifests: ReadonlyArray<Record<string, any>>, kind: string, name?: string): Record<string, any> {
  const found = manifests.find((manifest) => manifest.kind === kind && (name === undefined || manifest.metadata.name === name));
  if (!found) throw new Error(`no ${kind} ${name ?? ''} among ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
}

/** Secrets with their values replaced, so that snapshots hold no secret. */
export function redactSecrets(manifests: ReadonlyArray<Record<string, any>>): Array<Record<string, any>> {
  return manifests.map((manifest) => {
    if (manifest.kind !== 'Secret') return manifest;
    const redact = (data?: Record<string, string>) => data && Object.fromEntries(Object.keys(data).map((key) => [key, '<redacted>']));
    return { ...manifest, data: redact(manifest.data), stringData: redact(manifest.stringData) };
  });
}
