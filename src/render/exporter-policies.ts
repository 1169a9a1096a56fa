/**
 * Who may reach the exporter and what disruption it bears, as Kubernetes objects: a NetworkPolicy that
 * admits only the agent's pods to port 9115 (and, when the spec lists egress ranges or allow-list networks,
 * lets the exporter reach only those and the cluster's DNS), and a PodDisruptionBudget that keeps all but one replica up through
 * a node drain.
 */
import { EXPORTER_PORT } from '@probekit/exporter';
import { isIP } from 'node:net';
import type { AllowedTargets, NetworkPolicySettings } from '../model';
import { exporterLabels, exporterSelectorLabels } from './labels';

/** The namespace label Kubernetes (1.22 and later) sets on every namespace to its name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** The label of the cluster DNS pods, kube-dns or CoreDNS (which keeps that label for compatibility). */
export const CLUSTER_DNS_LABELS = { 'k8s-app': 'kube-dns' } as const;

/**
 * The ranges the exporter's pod may connect to: the policy's own egress list, else the exporter-wide
 * allow-list's networks (a single address as its /32 or /128), else none (egress not limited). A module's
 * own allowed_targets narrows its probes in the exporter, not the pod's egress.
 */
export function egressRanges(settings: NetworkPolicySettings, allowedTargets?: AllowedTargets): readonly string[] | undefined {
  if (settings.egress !== undefined) return settings.egress;
  return allowedTargets?.networks?.map((network) => (network.includes('/') ? network : `${network}/${isIP(network) === 4 ? 32 : 128}`));
}

export function renderNetworkPolicy(serviceName: string, settings: NetworkPolicySettings, allowedTargets?: AllowedTargets): Record<string, unknown> {
  const { agentPods } = settings;
  const egress = egressRanges(settings, allowedTargets);
  const agentPeer = {
    podSelector: { matchLabels: { ...agentPods.labels } },
    // Without a namespace, a pod selector matches the exporter's own namespace only.
    ...(agentPods.namespace === undefined ? {} : { namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: agentPods.namespace } } }),
  };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: serviceName, labels: exporterLabels(serviceName) },
    spec: {
      podSelector: { matchLabels: exporterSelectorLabels(serviceName) },
      policyTypes: egress === undefined ? ['Ingress'] : ['Ingress', 'Egress'],
      ingress: [{ from: [agentPeer], ports: [{ protocol: 'TCP', port: EXPORTER_PORT }] }],
      ...(egress === undefined
        ? {}
        : {
            egress: [
              // Targets are names: the exporter must resolve them.
              {
                to: [{ namespaceSelector: {}, podSelector: { matchLabels: { ...CLUSTER_DNS_LABELS } } }],
                ports: [
                  { protocol: 'UDP', port: 53 },
                  { protocol: 'TCP', port: 53 },
                ],
              },
              ...(egress.length === 0 ? [] : [{ to: egress.map((cidr) => ({ ipBlock: { cidr } })) }]),
            ],
          }),
    },
  };
}

/** With several replicas, a drain takes at most one at a time, so probes keep being answered. */
export function renderPodDisruptionBudget(serviceName: string): Record<string, unknown> {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: serviceName, labels: exporterLabels(serviceName) },
    spec: { maxUnavailable: 1, selector: { matchLabels: exporterSelectorLabels(serviceName) } },
  };
}
