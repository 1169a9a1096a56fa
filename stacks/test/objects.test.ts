import * as kubernetes from '@pulumi/kubernetes';
import { objectResourceName, resourceClassFor } from '../objects';

describe('synthesized objects as Pulumi resources', () => {
  it.each<[string, string, unknown]>([
    ['v1', 'Secret', kubernetes.core.v1.Secret],
    ['v1', 'ConfigMap', kubernetes.core.v1.ConfigMap],
    ['apps/v1', 'Deployment', kubernetes.apps.v1.Deployment],
    ['networking.k8s.io/v1', 'NetworkPolicy', kubernetes.networking.v1.NetworkPolicy],
    ['rbac.authorization.k8s.io/v1', 'Role', kubernetes.rbac.v1.Role],
    ['monitoring.coreos.com/v1', 'ServiceMonitor', kubernetes.apiextensions.CustomResource],
    ['apps/v1', 'NoSuchKind', kubernetes.apiextensions.CustomResource],
    ['apps.example.com/v1', 'Deployment', kubernetes.apiextensions.CustomResource],
  ])('applies %s %s as its typed resource', (apiVersion, kind, expected) => {
    expect(resourceClassFor(apiVersion, kind)).toBe(expected);
  });

  it('names each object after its cluster, namespace and name', () => {
    expect(objectResourceName('eu-west', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'blackbox-exporter', namespace: 'monitoring' } })).toBe('eu-west-monitoring/blackbox-exporter');
    expect(objectResourceName('eu-west', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'monitoring' } })).toBe('eu-west-monitoring');
  });
});
