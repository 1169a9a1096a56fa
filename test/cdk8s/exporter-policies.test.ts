/**
 * The exporter's NetworkPolicy and PodDisruptionBudget: made when the spec asks (the budget by default with
 * several replicas), valid against the Kubernetes 1.28 schemas, admitting only the agent's pods to 9115.
 * No API server or CNI runs here: the objects are checked against the schemas and the documented
 * semantics of their fields.
 */
import { Testing } from 'cdk8s';
import { ProbekitChart } from '../../src/cdk8s';
import { parseSpec, type SpecInput } from '../../src/model';
import { find, validateAgainstSchema } from '../support/manifests';
import { problemsOf } from '../support/problems';

const base: SpecInput = { modules: { web: { preset: 'http_2xx' } }, jobs: [{ module: 'web', targets: ['https://example.com'] }] };

function synth(exporter: NonNullable<SpecInput['exporter']>): Array<Record<string, any>> {
  return Testing.synth(new ProbekitChart(Testing.app(), 'probes', { spec: parseSpec({ ...base, exporter }), env: {} }));
}

describe('the NetworkPolicy', () => {
  const manifests = synth({ replicas: 3, networkPolicy: { agentPods: { namespace: 'observability', labels: { 'app.kubernetes.io/name': 'alloy' } }, egress: ['192.0.2.0/24', '2001:db8::/32'] } });
  const policy = find(manifests, 'NetworkPolicy');

  it('is valid against the 1.28 schema, and the schema check does refuse a broken one', () => {
    expect(() => validateAgainstSchema(policy)).not.toThrow();
    expect(() => validateAgainstSchema({ ...policy, spec: { ...policy.spec, ingress: [{ ports: [{ port: 9115, protocol: 7 }] }] } })).toThrow();
  });

  it("selects the exporter's pods and admits only the agent's pods, from their namespace, on 9115", () => {
    expect(policy.spec.podSelector).toEqual({ matchLabels: find(manifests, 'Deployment').spec.selector.matchLabels });
    expect(policy.spec.ingress).toEqual([
      {
        from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'alloy' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'observability' } } }],
        ports: [{ protocol: 'TCP', port: 9115 }],
      },
    ]);
  });

  it('limits egress to the cluster DNS and the listed ranges', () => {
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec.egress).toEqual([
      {
        to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
        ports: [
          { protocol: 'UDP', port: 53 },
          { protocol: 'TCP', port: 53 },
        ],
      },
      { to: [{ ipBlock: { cidr: '192.0.2.0/24' } }, { ipBlock: { cidr: '2001:db8::/32' } }] },
    ]);
  });

  it('leaves egress alone without an egress list, and the agent in its own namespace without one', () => {
    const open = find(synth({ networkPolicy: { agentPods: { labels: { app: 'agent' } } } }), 'NetworkPolicy');
    expect(open.spec.policyTypes).toEqual(['Ingress']);
    expect(open.spec.ingress[0].from).toEqual([{ podSelector: { matchLabels: { app: 'agent' } } }]);
  });

  it("takes egress from the exporter-wide allow-list's networks when it lists none, a single address as its /32 or /128", () => {
    const manifests = synth({
      networkPolicy: { agentPods: { labels: { app: 'agent' } } },
      allowedTargets: { networks: ['192.0.2.0/24', '198.51.100.7', '2001:db8::1'], denySelfAndMetadata: true },
    });
    const derived = find(manifests, 'NetworkPolicy');
    expect(() => validateAgainstSchema(derived)).not.toThrow();
    expect(derived.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(derived.spec.egress[1]).toEqual({ to: [{ ipBlock: { cidr: '192.0.2.0/24' } }, { ipBlock: { cidr: '198.51.100.7/32' } }, { ipBlock: { cidr: '2001:db8::1/128' } }] });
    // The exporter enforces the same list: its config file carries it.
    expect(find(manifests, 'ConfigMap').data['blackbox.yml']).toContain('allowed_targets:\n  networks:\n    - 192.0.2.0/24\n    - 198.51.100.7\n    - 2001:db8::1\n  deny_self_and_metadata: true\n');
    // A policy's own egress list is the user's choice and stays as written.
    const own = synth({ networkPolicy: { agentPods: { labels: { app: 'agent' } }, egress: ['10.0.0.0/8'] }, allowedTargets: { networks: ['192.0.2.0/24'] } });
    expect(find(own, 'NetworkPolicy').spec.egress[1]).toEqual({ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] });
  });

  it('refuses an allow-list entry the exporter would refuse, naming the field and the fix', () => {
    expect(problemsOf(() => parseSpec({ ...base, exporter: { allowedTargets: { hosts: ['a*b.example'], networks: ['10.0.0.1/8'] } } }))).toEqual([
      'exporter.allowedTargets.hosts[0]: "a*b.example" is not a host pattern; write a host name (example.org), a name with a wildcard first label (*.example.org), an IP address, or *',
      'exporter.allowedTargets.networks[0]: "10.0.0.1/8" has bits set after its prefix length (the range is 10.0.0.0/8); write a CIDR range such as 10.0.0.0/8 or 2001:db8::/32, or one address',
    ]);
  });

  it('is not made unless asked for', () => {
    expect(synth({}).map((manifest) => manifest.kind)).not.toContain('NetworkPolicy');
  });

  it('refuses a range that is not a CIDR and an empty agent selector, naming the field', () => {
    expect(problemsOf(() => parseSpec({ ...base, exporter: { networkPolicy: { agentPods: { labels: {} }, egress: ['10.0.0.0/33', 'example.com'] } } }))).toEqual([
      "exporter.networkPolicy.agentPods.labels: must name at least one label of the agent's pods, for example app.kubernetes.io/name: alloy",
      'exporter.networkPolicy.egress[0]: must be a CIDR range such as 10.0.0.0/8 or 2001:db8::/32',
      'exporter.networkPolicy.egress[1]: must be a CIDR range such as 10.0.0.0/8 or 2001:db8::/32',
    ]);
  });
});

describe('the PodDisruptionBudget', () => {
  it('keeps all but one replica up when there are several, valid against the 1.28 schema', () => {
    const manifests = synth({ replicas: 3 });
    const budget = find(manifests, 'PodDisruptionBudget');
    expect(() => validateAgainstSchema(budget)).not.toThrow();
    expect(budget.spec).toEqual({ maxUnavailable: 1, selector: find(manifests, 'Deployment').spec.selector });
  });

  it('is made with an autoscaler that may add replicas, even from one', () => {
    const manifests = synth({ autoscaling: { minReplicas: 1, maxReplicas: 4 } });
    expect(find(manifests, 'PodDisruptionBudget').spec).toEqual({ maxUnavailable: 1, selector: find(manifests, 'Deployment').spec.selector });
    expect(synth({ autoscaling: { minReplicas: 1, maxReplicas: 1 } }).map((manifest) => manifest.kind)).not.toContain('PodDisruptionBudget');
  });

  it('is not made for one replica, nor when turned off', () => {
    expect(synth({}).map((manifest) => manifest.kind)).not.toContain('PodDisruptionBudget');
    expect(synth({ replicas: 2, podDisruptionBudget: false }).map((manifest) => manifest.kind)).not.toContain('PodDisruptionBudget');
  });
});
