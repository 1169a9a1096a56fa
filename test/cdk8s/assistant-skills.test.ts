/**
 * The skills server's cluster form: what is synthesized, as a snapshot, and the properties that matter checked one
 * by one (URL and token read from the search-engine Secret, non-root, read-only root filesystem, a Service).
 * No Kubernetes API server can run here; the manifests are checked for shape, not applied.
 */
import { Chart, Testing } from 'cdk8s';
import { AssistantSkills, MCP_TOKEN_ENV } from '../../src/cdk8s/assistant-skills';
import { SEARCH_ENGINE_SECRET_KEYS, SEARCH_ENGINE_SECRET_NAME } from '../../src/render/search-engine-secret';
import { SEARCH_ENGINE_ENV, SKILLS_SERVER_IMAGE } from '../../src/render/skills-server';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, any>;
}

function synth(props: Partial<ConstructorParameters<typeof AssistantSkills>[2]> = {}): Manifest[] {
  const app = Testing.app();
  const chart = new Chart(app, 'assistant', { namespace: 'monitoring' });
  new AssistantSkills(chart, 'skills', { image: 'registry.example/probekit:0.1.0', ...props });
  return Testing.synth(chart) as Manifest[];
}

describe('AssistantSkills', () => {
  it('synthesizes a Deployment and a Service', () => {
    expect(synth()).toMatchSnapshot();
  });

  it("runs the image the repository's Dockerfile builds, tagged with the package's version, unless told otherwise", () => {
    const app = Testing.app();
    const chart = new Chart(app, 'assistant', { namespace: 'monitoring' });
    new AssistantSkills(chart, 'skills');
    const deployment = (Testing.synth(chart) as Manifest[]).find((m) => m.kind === 'Deployment')!;
    expect(deployment.spec.template.spec.containers[0].image).toBe(SKILLS_SERVER_IMAGE);
    expect(SKILLS_SERVER_IMAGE).toBe(`ghcr.io/probekit/probekit:${require('../../package.json').version}`);
  });

  it('reads URL and token from the search-engine Secret, and serves MCP over HTTP', () => {
    const deployment = synth().find((m) => m.kind === 'Deployment')!;
    const container = deployment.spec.template.spec.containers[0];
    expect(container.command).toEqual(['probekit']);
    expect(container.args).toEqual(['assistant', 'serve', '--http', '8080', '--host', '0.0.0.0']);
    expect(container.env).toEqual([
      { name: SEARCH_ENGINE_ENV.url, valueFrom: { secretKeyRef: { name: SEARCH_ENGINE_SECRET_NAME, key: SEARCH_ENGINE_SECRET_KEYS.url } } },
      { name: SEARCH_ENGINE_ENV.apiToken, valueFrom: { secretKeyRef: { name: SEARCH_ENGINE_SECRET_NAME, key: SEARCH_ENGINE_SECRET_KEYS.apiToken } } },
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
    expect(manifests.map((m) => m.kind).sort()).toEqual(['Deployment', 'Service']);
  });
});
