/**
 * The assistant's skills server in a cluster (optional). MCP over stdio needs the assistant to start probekit
 * itself, which a Deployment cannot offer, so the server speaks MCP over Streamable HTTP behind a Service
 * (`probekit assistant serve --http`). URL and API token come from the search-engine Secret, never from the
 * synthesized manifests.
 *
 * Whoever reaches the server reads every log the API token can read, so it asks every MCP request for a bearer token
 * (from a Secret the user names: a token generated at synth would sit in the manifests), and a NetworkPolicy admits
 * only the clients the user names to its port. Serving without a token takes `allowUnauthenticated: true`
 * (docs/decisions.md).
 */
import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { ProblemsError, type Problem } from '@probekit/exporter';
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
   * The Secret key holding the bearer token every MCP request must carry (`Authorization: Bearer <token>`), in the
   * construct's namespace: `kubectl create secret generic probekit-mcp-token -n <namespace>
   * --from-literal=token="$(openssl rand -hex 32)"`, then `{ name: 'probekit-mcp-token', key: 'token' }`.
   * Required unless `allowUnauthenticated` is true.
   */
  readonly mcpToken?: SecretKeyReference;
  /**
   * Serve MCP without a token: every pod the NetworkPolicy admits reads every log the API token can read.
   * @default false
   */
  readonly allowUnauthenticated?: boolean;
  /**
   * The assistant's pods, the only ones the NetworkPolicy admits to the MCP port: `kplus.Pods.select(scope, id,
   * { labels, namespaces })`, or a workload of the same app. At least one.
   */
  readonly clients: readonly kplus.INetworkPolicyPeer[];
  /** Extra arguments to `assistant serve`, e.g. ['--fields', '{"level":"severity"}']. @default none */
  readonly extraArgs?: readonly string[];
}

/** The command that makes the token's Secret: printed where the construct asks for one. */
export const MCP_TOKEN_SECRET_COMMAND = 'kubectl create secret generic probekit-mcp-token -n <namespace> --from-literal=token="$(openssl rand -hex 32)"';

function propsProblems(props: AssistantSkillsProps): Problem[] {
  const problems: Problem[] = [];
  if (props.mcpToken === undefined && props.allowUnauthenticated !== true) {
    problems.push({
      path: ['mcpToken'],
      message: `required: the Secret key of the bearer token every MCP request must carry, such as { name: 'probekit-mcp-token', key: 'token' } after ${MCP_TOKEN_SECRET_COMMAND}; or allowUnauthenticated: true to serve without one`,
    });
  }
  if (props.mcpToken !== undefined && props.allowUnauthenticated === true) {
    problems.push({ path: ['allowUnauthenticated'], message: 'is true beside mcpToken: the server either asks for the token or does not; remove one of them' });
  }
  if (props.clients === undefined || props.clients.length === 0) {
    problems.push({
      path: ['clients'],
      message: "must name at least one client, such as kplus.Pods.select(this, 'assistant', { labels: { app: 'assistant' } }): the NetworkPolicy admits only them to the MCP port",
    });
  }
  return problems;
}

export class AssistantSkills extends Construct {
  readonly deployment: kplus.Deployment;
  readonly service: kplus.Service;
  /** Admits only the clients to the MCP port. */
  readonly networkPolicy: kplus.NetworkPolicy;

  constructor(scope: Construct, id: string, props: AssistantSkillsProps) {
    super(scope, id);
    const problems = propsProblems(props);
    if (problems.length > 0) throw new ProblemsError(problems, this.node.path);
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
    this.networkPolicy = new kplus.NetworkPolicy(this, 'network-policy', {
      metadata: { labels },
      selector: this.deployment,
      ingress: { default: kplus.NetworkPolicyTrafficDefault.DENY },
    });
    for (const client of props.clients) this.networkPolicy.addIngressRule(client, [kplus.NetworkPolicyPort.tcp(containerPort)]);
  }
}
