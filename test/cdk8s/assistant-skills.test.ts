/**
 * The skills server's cluster form: what is synthesized, as a snapshot, and the properties that matter checked one
 * by one (URL and token read from the search-engine Secret, non-root, read-only root filesystem, a Service).
 * No Kubernetes API server can run here; the manifests are checked for shape, not applied.
 */
import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import type { Construct } from 'constructs';
import { AssistantSkills, MCP_TOKEN_ENV, MCP_TOKEN_SECRET_COMMAND, type AssistantSkillsProps } from '../../src/cdk8s/assistant-skills';
import { validateAgainstSchema } from '../support/manifests';
import { problemsOf } from '../support/problems';
import { SEARCH_ENGINE_SECRET_KEYS, SEARCH_ENGINE_SECRET_NAME } from '../../src/render/search-engine-secret';
import { SEARCH_ENGINE_ENV, SKILLS_SERVER_IMAGE } from '../../src/render/skills-server';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, any>;
}

const TOKEN = { name: 'probekit-mcp-token', key: 'token' };
/** The assistant's pods, in a namespace of their own. */
const assistantPods = (scope: Construct) => kplus.Pods.select(scope, 'assistant-pods', { labels: { app: 'assistant' }, namespaces: kplus.Namespaces.select(scope, 'ai', { names: ['ai'] }) });

function synth(props: Partial<AssistantSkillsProps> = {}, clients: (scope: Construct) => kplus.INetworkPolicyPeer[] = (scope) => [assistantPods(scope)]): Manifest[] {
  const app = Testing.app();
  const chart = new Chart(app, 'assistant', { namespace: 'monitoring' });
  new AssistantSkills(chart, 'skills', { image: 'registry.example/probekit:0.1.0', mcpToken: TOKEN, clients: clients(chart), ...props });
  return Testing.synth(chart) as Manifest[];
}

describe('AssistantSkills', () => {
  it('synthesizes a Deployment and a Service', () => {
    expect(synth()).toMatchSnapshot();
  });

  it("runs the image the repository's Dockerfile builds, tagged with the package's version, unless told otherwise", () => {
    const app = Testing.app();
    const chart = new Chart(app, 'assistant', { namespace: 'monitoring' });
    new AssistantSkills(chart, 'skills', { mcpToken: TOKEN, clients: [assistantPods(chart)] });
    const deployment = (Testing.synth(chart) as Manifest[]).find((m) => m.kind === 'Deployment')!;
    expect(deployment.spec.template.spec.containers[0].image).toBe(SKILLS_SERVER_IMAGE);
    expect(SKILLS_SERVER_IMAGE).toBe(`ghcr.io/probekit/probekit:${require('../../package.json').version}`);
  });

  it('reads URL and token from the search-engine Secret, and serves MCP over HTTP', () => {
    const deployment = synth().find((m) => m.kind === 'Deployment')!;
    const container = deployment.spec.template.spec.containers[0];
    expect(container.command).toEqual(['probekit']);
    expect(container.args).toEqual(['assistant', 'serve', '--http', '8080', '--host', '0.0.0.0', '--http-token-env', MCP_TOKEN_ENV]);
    expect(container.env).toEqual([
      { name: SEARCH_ENGINE_ENV.url, valueFrom: { secretKeyRef: { name: SEARCH_ENGINE_SECRET_NAME, key: SEARCH_ENGINE_SECRET_KEYS.url } } },
      { name: SEARCH_ENGINE_ENV.apiToken, valueFrom: { secretKeyRef: { name: SEARCH_ENGINE_SECRET_NAME, key: SEARCH_ENGINE_SECRET_KEYS.apiToken } } },
      { name: MCP_TOKEN_ENV, valueFrom: { secretKeyRef: TOKEN } },
    ]);
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, privileged: false });
    expect(deployment.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(deployment.spec.template.spec.automountServiceAccountToken).toBe(false);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 8080, scheme: 'HTTP' });
  });

  it('a Service in front, on the MCP port', () => {
    const service = synth({ servicePort: 8000 }).find((m) => m.kind === 'Service')!;
    expect(service.metadata.namespace).toBe('monitoring');
    expect(service.spec.ports).toEqual([{ name: 'mcp', port: 8000, targetPort: 8080 }]);
  });

  it('with an MCP bearer token and another Secret name, all by reference', () => {
    const manifests = synth({ secretName: 'es-prod', mcpToken: { name: 'mcp', key: 'token' }, extraArgs: ['--fields', '{"level":"severity"}'] });
    const container = manifests.find((m) => m.kind === 'Deployment')!.spec.template.spec.containers[0];
    expect(container.args).toEqual(['assistant', 'serve', '--http', '8080', '--host', '0.0.0.0', '--http-token-env', MCP_TOKEN_ENV, '--fields', '{"level":"severity"}']);
    expect(container.env.map((e: { valueFrom: { secretKeyRef: { name: string; key: string } } }) => e.valueFrom.secretKeyRef)).toEqual([
      { name: 'es-prod', key: 'url' },
      { name: 'es-prod', key: 'api-token' },
      { name: 'mcp', key: 'token' },
    ]);
    expect(manifests.map((m) => m.kind).sort()).toEqual(['Deployment', 'NetworkPolicy', 'Service']);
  });
});

describe('AssistantSkills, who may reach it', () => {
  const build = (props: Partial<AssistantSkillsProps>) => () => {
    const chart = new Chart(Testing.app(), 'assistant', { namespace: 'monitoring' });
    new AssistantSkills(chart, 'skills', props as AssistantSkillsProps);
  };

  it('refuses to synthesize without a token, naming the field, the command that makes its Secret, and the setting that serves without one', () => {
    expect(problemsOf(build({ clients: [] }))).toEqual([
      `mcpToken: required: the Secret key of the bearer token every MCP request must carry, such as { name: 'probekit-mcp-token', key: 'token' } after ${MCP_TOKEN_SECRET_COMMAND}; or allowUnauthenticated: true to serve without one`,
      "clients: must name at least one client, such as kplus.Pods.select(this, 'assistant', { labels: { app: 'assistant' } }): the NetworkPolicy admits only them to the MCP port",
    ]);
    expect(problemsOf(build({ mcpToken: TOKEN, allowUnauthenticated: true, clients: [] }))[0]).toMatch(/^allowUnauthenticated: is true beside mcpToken/);
    expect(MCP_TOKEN_SECRET_COMMAND).toContain('openssl rand -hex 32');
  });

  it('asks every MCP request for the token from the named Secret; no token value is in the manifests', () => {
    const manifests = synth();
    const container = manifests.find((m) => m.kind === 'Deployment')!.spec.template.spec.containers[0];
    expect(container.args.slice(-2)).toEqual(['--http-token-env', MCP_TOKEN_ENV]);
    expect(container.env.find((e: { name: string }) => e.name === MCP_TOKEN_ENV)).toEqual({ name: MCP_TOKEN_ENV, valueFrom: { secretKeyRef: TOKEN } });
    expect(manifests.map((m) => m.kind)).not.toContain('Secret');
  });

  it("admits only the named clients, to the MCP port, in a NetworkPolicy on the server's pods that Kubernetes' schema accepts", () => {
    const manifests = synth({}, (scope) => [assistantPods(scope), kplus.Pods.select(scope, 'local', { labels: { app: 'notebook' } })]);
    const deployment = manifests.find((m) => m.kind === 'Deployment')!;
    const policy = manifests.find((m) => m.kind === 'NetworkPolicy')!;
    for (const manifest of manifests) validateAgainstSchema(manifest);
    expect(policy.metadata.namespace).toBe('monitoring');
    expect(policy.spec.podSelector).toEqual({ matchLabels: deployment.spec.selector.matchLabels });
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(policy.spec.ingress).toEqual([
      { from: [{ podSelector: { matchLabels: { app: 'assistant' } }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ai' } } }], ports: [{ port: 8080, protocol: 'TCP' }] },
      { from: [{ podSelector: { matchLabels: { app: 'notebook' } } }], ports: [{ port: 8080, protocol: 'TCP' }] },
    ]);
  });

  it('serves without a token only when told so by name, still behind the NetworkPolicy', () => {
    const manifests = synth({ mcpToken: undefined, allowUnauthenticated: true });
    const container = manifests.find((m) => m.kind === 'Deployment')!.spec.template.spec.containers[0];
    expect(container.args).toEqual(['assistant', 'serve', '--http', '8080', '--host', '0.0.0.0']);
    expect(container.env.map((e: { name: string }) => e.name)).not.toContain(MCP_TOKEN_ENV);
    expect(manifests.map((m) => m.kind).sort()).toEqual(['Deployment', 'NetworkPolicy', 'Service']);
  });
});
