/**
 * The assistant's skills server in a cluster (optional). MCP over stdio needs the assistant to start probekit
 * itself, which a Deployment cannot offer, so the server speaks MCP over Streamable HTTP behind a Service
 * (`probekit assistant serve --http`). URL and API token come from the search-engine Secret, never from the
 * synthesized manifests.
 */
import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { probekitLabels } from '../render/labels';
import { SEARCH_ENGINE_SECRET_KEYS, SEARCH_ENGINE_SECRET_NAME } from '../render/search-engine-secret';
import { SEARCH_ENGINE_ENV, SKILLS_SERVER_HEALTH_PATH, SKILLS_SERVER_IMAGE, SKILLS_SERVER_PORT } from '../render/skills-server';

/** Environment variable the server reads its MCP bearer token from, when one is configured. */
export const MCP_TOKEN_ENV = 'PROBEKIT_MCP_TOKEN';

export interface SecretKeyReference {
  readonly name: string;
  readonly key: string;
}

export interface AssistantSkillsProps {
  /** Image that holds the `probekit` CLI on its PATH. @default SKILLS_SERVER_IMAGE, the image the repository's Dockerfile builds, tagged with this package's version */
  readonly image?: string;
  /** Secret with the engine's URL and API token, in the shape of renderSearchEngineSecret. @default SEARCH_ENGINE_SECRET_NAME */
  readonly secretName?: string;
  /** Port the server listens on in the pod. @default SKILLS_SERVER_PORT (8080) */
  readonly containerPort?: number;
  /** Port of the Service. @default 80 */
  readonly servicePort?: number;
  /** @default 1 */
  readonly replicas?: number;
  /**
   * A bearer token every MCP request must carry. Without it, anyone who reaches the Service can read logs
   * through the skills; restrict the Service by network policy then.
   * @default no token
   */
  readonly mcpToken?: SecretKeyReference;
  /** Extra arguments to `assistant serve`, e.g. ['--fields', '{"level":"severity"}']. @default none */
  readonly extraArgs?: readonly string[];
}

export class AssistantSkills extends Construct {
  readonly deployment: kplus.Deployment;
  readonly service: kplus.Service;

  constructor(scope: Construct, id: string, props: AssistantSkillsProps = {}) {
    super(scope, id);
    const containerPort = props.containerPort ?? SKILLS_SERVER_PORT;
    const secret = kplus.Secret.fromSecretName(this, 'search-engine', props.secretName ?? SEARCH_ENGINE_SECRET_NAME);
    const fromSecret = (source: kplus.ISecret, key: string) => kplus.EnvValue.fromSecretValue({ secret: source, key });
    const env: Record<string, kplus.EnvValue> = {
      [SEARCH_ENGINE_ENV.url]: fromSecret(secret, SEARCH_ENGINE_SECRET_KEYS.url),
      [SEARCH_ENGINE_ENV.apiToken]: fromSecret(secret, SEARCH_ENGINE_SECRET_KEYS.apiToken),
    };
    if (props.mcpToken) env[MCP_TOKEN_ENV] = fromSecret(kplus.Secret.fromSecretName(this, 'mcp-token', props.mcpToken.name), props.mcpToken.key);

    const labels = probekitLabels({ name: 'probekit-assistant-skills', component: 'assistant-skills' });
    this.deployment = new kplus.Deployment(this, 'deployment', {
      replicas: props.replicas ?? 1,
      metadata: { labels },
      podMetadata: { labels },
      automountServiceAccountToken: false,
      securityContext: { ensureNonRoot: true, user: 65532, group: 65532, fsGroup: 65532 },
    });
    const health = kplus.Probe.fromHttpGet(SKILLS_SERVER_HEALTH_PATH, { port: containerPort, periodSeconds: Duration.seconds(10) });
    this.deployment.addContainer({
      name: 'skills',
      image: props.image ?? SKILLS_SERVER_IMAGE,
      command: ['probekit'],
      args: ['assistant', 'serve', '--http', String(containerPort), '--host', '0.0.0.0', ...(props.mcpToken ? ['--http-token-env', MCP_TOKEN_ENV] : []), ...(props.extraArgs ?? [])],
      envVariables: env,
      ports: [{ number: containerPort, name: 'mcp' }],
      securityContext: { ensureNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, privileged: false, user: 65532, group: 65532 },
      resources: {
        cpu: { request: kplus.Cpu.millis(50), limit: kplus.Cpu.millis(500) },
        memory: { request: Size.mebibytes(96), limit: Size.mebibytes(256) },
      },
      readiness: health,
      liveness: health,
    });
    this.service = this.deployment.exposeViaService({
      ports: [{ port: props.servicePort ?? 80, targetPort: containerPort, name: 'mcp' }],
      serviceType: kplus.ServiceType.CLUSTER_IP,
    });
  }
}
