/**
 * The probing exporter in a cluster: a ConfigMap with its config file, a Deployment that runs it, a
 * Service on port 9115 with a readable name, and a Secret with the secret header values it reads from
 * files. A config change rolls the pods through a checksum annotation. Probes are stateless, so replicas
 * behind the Service share the scrapes; with `autoscaling` a HorizontalPodAutoscaler sets their number
 * from CPU use, which is what limits the probes one replica can make.
 */
import { createHash } from 'node:crypto';
import { ApiObject, Chart, JsonPatch, Lazy } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { stringify } from 'yaml';
import { DEFAULT_CONFIG_FILE, EXPORTER_PORT, exporterArgs, HEALTH_PATH, ProblemsError, type ExporterArgsOptions, type FieldPath, type Problem } from '@probekit/exporter';
import {
  clusterSecretOf,
  requireEnvSecret,
  type Environment,
  type ExporterBasicAuth,
  type ExporterInput,
  type ExporterTls,
  type ModuleEntry,
  type Resources,
  type SpecModule,
  type AllowedTargets,
} from '../model';
import { exporterSettings } from '../model/defaults';
import { moduleNameProblem, parseModule } from '../model/validate';
import { withDurationSuggestions } from '../model/problems';
import { CLUSTER_CONFIG_DIR, CLUSTER_SECRETS_DIR, existingSecretDir, renderExporterConfig, type SecretFile } from '../render/exporter-config';
import { renderExternalSecret } from '../render/external-secret';
import { renderNetworkPolicy, renderPodDisruptionBudget } from '../render/exporter-policies';
import { CLUSTER_TLS_DIR, CLUSTER_WEB_CONFIG_DIR, hasWebConfig, kubeletCanCallHealth, renderWebConfig, WEB_CONFIG_FILE, type ExporterAccess } from '../render/exporter-web-config';
import { exporterLabels, exporterSelectorLabels } from '../render/labels';
import { exporterServiceAddress, type TargetGroup } from '../render/scrape-job';
import { TargetFilePacker } from '../render/target-files';
import { EXPORTER_SERVICE_PORT_NAME } from '../render/operator-objects';

/** The exporter's settings as a spec's `exporter` writes them (ExporterInput), its modules and the environment. */
export interface BlackboxExporterProps extends Omit<ExporterInput, 'sizeFromTargets'> {
  /**
   * Modules of the exporter's config file, each a preset (`presets.http2xx()`, `{ preset: 'http_2xx' }`) or a module
   * in blackbox_exporter's format, checked as the spec's modules are; more can be added with `addModule`.
   * @default - none
   */
  readonly modules?: Readonly<Record<string, ModuleEntry>>;
  /**
   * The environment `fromEnv` secret references are read from; the cdk8s app passes process.env.
   * @default - no variables: a `fromEnv` header reference fails synth
   */
  readonly env?: Environment;
}

/** Annotation on the pod template whose value changes with the config, so that a change rolls the pods. */
export const CONFIG_CHECKSUM_ANNOTATION = 'probekit.io/config-checksum';

/** An unprivileged uid and gid; the image's own user is not relied on, so runAsNonRoot can be verified. */
const RUN_AS = 65534;

/** Where the exporter's pod mounts its target ConfigMaps (`--sd.targets-dir`), each in a folder of its own. */
export const CLUSTER_TARGETS_DIR = `${CLUSTER_CONFIG_DIR}/targets`;

export class BlackboxExporter extends Construct {
  readonly configMap: kplus.ConfigMap;
  readonly deployment: kplus.Deployment;
  readonly service: kplus.Service;
  /** Present with the `autoscaling` prop. */
  readonly autoscaler?: kplus.HorizontalPodAutoscaler;
  /** Present when the exporter serves https: whoever scrapes it (AgentValues, Probes) uses https and trusts its CA. */
  readonly tls?: ExporterTls;
  /** Present when the exporter asks for a password: whoever scrapes it sends the password from its Secret. */
  readonly basicAuth?: ExporterBasicAuth;
  /** Where a browser reaches the exporter: the base of the debug links of the dashboard (EndpointsDashboard). */
  readonly externalUrl: string;
  /** Holds the secret header values; created with the first `fromEnv` header. */
  private headerSecret?: kplus.Secret;
  private readonly container: kplus.Container;
  private readonly moduleMap: Record<string, SpecModule> = {};
  private readonly allowedTargets?: AllowedTargets;
  private readonly env: Environment;
  private readonly mountedExistingSecrets = new Set<string>();
  private pingSocketsGranted = false;
  private readonly serviceName: string;
  private readonly labels: Record<string, string>;
  /** The target files served at `/sd/<job>`, made with the first job given to `serveTargets`. */
  private targetFiles?: TargetFilePacker;
  private readonly targetConfigMaps: kplus.ConfigMap[] = [];
  /** A digest of each target file, in order: the pods roll when the targets change. */
  private readonly targetDigests: string[] = [];

  /** The exporter's command line, but for the target files (see serveTargets). */
  private readonly argsOptions: ExporterArgsOptions;

  constructor(scope: Construct, id: string, props: BlackboxExporterProps = {}) {
    super(scope, id);
    // The spec's defaults, filled as parseSpec fills a spec's exporter.
    const settings = exporterSettings(props);
    const serviceName = settings.serviceName;
    this.serviceName = serviceName;
    this.allowedTargets = settings.allowedTargets;
    this.env = props.env ?? {};
    this.tls = settings.tls;
    this.basicAuth = settings.basicAuth;
    this.externalUrl = settings.externalUrl;
    const access: ExporterAccess = { tls: settings.tls, basicAuth: settings.basicAuth };
    const labels = exporterLabels(serviceName);
    this.labels = labels;
    this.argsOptions = { configFile: `${CLUSTER_CONFIG_DIR}/${DEFAULT_CONFIG_FILE}`, webConfigFile: webConfigFileOf(access) };

    this.configMap = new kplus.ConfigMap(this, 'config', { metadata: { name: `${serviceName}-config`, labels } });

    this.deployment = new kplus.Deployment(this, 'deployment', {
      metadata: { name: serviceName, labels },
      // An autoscaler refuses a target with a fixed replica count: it sets the count itself.
      replicas: settings.autoscaling ? undefined : settings.replicas,
      podMetadata: { labels },
      // Select by readable labels rather than the construct path, which would freeze the tree's layout
      // into an immutable selector.
      select: false,
      securityContext: { ensureNonRoot: true, user: RUN_AS, group: RUN_AS },
      automountServiceAccountToken: false,
    });
    const selector = exporterSelectorLabels(serviceName);
    this.deployment.select(kplus.LabelSelector.of({ labels: selector }));
    this.container = this.deployment.addContainer({
      name: 'exporter',
      image: settings.image,
      imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
      args: exporterArgs(this.argsOptions),
      ports: [{ number: EXPORTER_PORT, name: EXPORTER_SERVICE_PORT_NAME }],
      liveness: healthProbe(access),
      readiness: healthProbe(access),
      securityContext: {
        ensureNonRoot: true,
        user: RUN_AS,
        group: RUN_AS,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
        // Every capability dropped; NET_RAW added back at synth when a module pings, also one added after this.
        capabilities: { drop: [kplus.Capability.ALL], add: lazyValue(() => (this.pings() ? [kplus.Capability.NET_RAW] : undefined)) },
      },
    });
    this.container.mount(CLUSTER_CONFIG_DIR, kplus.Volume.fromConfigMap(this, 'config-volume', this.configMap));
    this.configMap.addData(
      DEFAULT_CONFIG_FILE,
      lazyValue(() => this.configText()),
    );
    if (access.basicAuth) {
      const webConfig = new kplus.Secret(this, 'web-config', { metadata: { name: `${serviceName}-web-config`, labels } });
      webConfig.addStringData(WEB_CONFIG_FILE, renderWebConfig(access));
      this.container.mount(CLUSTER_WEB_CONFIG_DIR, kplus.Volume.fromSecret(this, 'web-config-volume', webConfig), { readOnly: true });
    } else if (access.tls) {
      this.configMap.addData(WEB_CONFIG_FILE, renderWebConfig(access));
    }
    if (settings.tls) {
      const tlsSecret = kplus.Secret.fromSecretName(this, 'tls', settings.tls.secretName);
      this.container.mount(CLUSTER_TLS_DIR, kplus.Volume.fromSecret(this, 'tls-volume', tlsSecret), { readOnly: true });
    }
    this.deployment.podMetadata.addAnnotation(
      CONFIG_CHECKSUM_ANNOTATION,
      // The web config too: a new password hash or TLS setting rolls the pods as a new config does.
      lazyValue(() =>
        createHash('sha256')
          .update(this.configText())
          .update(hasWebConfig(access) ? renderWebConfig(access) : '')
          .update(this.targetDigests.join(','))
          .digest('hex'),
      ),
    );
    ApiObject.of(this.deployment).addJsonPatch(
      // Quantities pass through as written: no unit conversion to get wrong.
      JsonPatch.add('/spec/template/spec/containers/0/resources', resourcesOf(settings.resources)),
    );

    this.service = new kplus.Service(this, 'service', {
      metadata: { name: serviceName, labels },
      ports: [{ port: EXPORTER_PORT, targetPort: EXPORTER_PORT, name: EXPORTER_SERVICE_PORT_NAME }],
    });
    Object.entries(selector).forEach(([key, value]) => this.service.selectLabel(key, value));

    if (settings.autoscaling) {
      const { minReplicas, maxReplicas, cpuUtilization } = settings.autoscaling;
      this.autoscaler = new kplus.HorizontalPodAutoscaler(this, 'autoscaler', {
        metadata: { name: serviceName, labels },
        target: this.deployment,
        minReplicas,
        maxReplicas,
        metrics: [kplus.Metric.resourceCpu(kplus.MetricTarget.averageUtilization(cpuUtilization))],
      });
    }

    // Plain objects from the pure renderers, as the rest of probekit's non-workload objects.
    if (settings.networkPolicy)
      new ApiObject(this, 'network-policy', renderNetworkPolicy(serviceName, settings.networkPolicy, settings.allowedTargets) as unknown as ConstructorParameters<typeof ApiObject>[2]);
    // With an autoscaler the replicas vary: a budget as soon as there may be more than one.
    const mayRunSeveral = settings.autoscaling ? settings.autoscaling.maxReplicas > 1 : settings.replicas > 1;
    if (mayRunSeveral && settings.podDisruptionBudget) {
      new ApiObject(this, 'disruption-budget', renderPodDisruptionBudget(serviceName) as unknown as ConstructorParameters<typeof ApiObject>[2]);
    }

    this.addModules(props.modules ?? {});
  }

  /** The address the agent scrapes: the Service's cluster DNS name and port 9115. */
  get address(): string {
    return exporterServiceAddress(this.service.name, this.namespace);
  }

  /** The namespace of the exporter's objects: its chart's. */
  get namespace(): string {
    return Chart.of(this).namespace ?? 'default';
  }

  /** The base URL of the exporter as the agent reaches it: https when it serves TLS. */
  get url(): string {
    return `${this.tls ? 'https' : 'http'}://${this.address}`;
  }

  /** The ConfigMaps holding the target files served at `/sd/<job>`; none until `serveTargets`. */
  get targetsConfigMaps(): readonly kplus.ConfigMap[] {
    return this.targetConfigMaps;
  }

  /**
   * Serves `groups` at `/sd/<job>` (Prometheus' HTTP SD): they are written into target files in ConfigMaps of the
   * exporter's own, each within what `kubectl apply` takes (../render/target-files.ts), mounted into its pod and
   * read with `--sd.targets-dir`; a change of targets rolls the pods. Throws a ProblemsError naming `jobs` when
   * `job` is served already.
   */
  serveTargets(job: string, groups: readonly TargetGroup[]): void {
    if (this.targetFiles === undefined) {
      this.targetFiles = new TargetFilePacker();
      // cdk8s-plus takes a container's args when it is made only.
      const args = exporterArgs({ ...this.argsOptions, sdTargetsDir: CLUSTER_TARGETS_DIR });
      ApiObject.of(this.deployment).addJsonPatch(JsonPatch.replace('/spec/template/spec/containers/0/args', args));
    }
    if (this.targetFiles.has(job)) {
      throw new ProblemsError([{ path: ['jobs'], message: `"${job}" is served at /sd/ of this exporter already; give each scrape job of one exporter a name of its own` }], this.node.path);
    }
    for (const { configMap: index, piece } of this.targetFiles.add(job, groups)) {
      while (this.targetConfigMaps.length <= index) this.addTargetConfigMap(this.targetConfigMaps.length);
      this.targetConfigMaps[index]!.addBinaryData(piece.name, piece.gzipped.toString('base64'));
      this.targetDigests.push(createHash('sha256').update(piece.name).update(piece.gzipped).digest('hex'));
    }
  }

  private addTargetConfigMap(index: number): void {
    const folder = String(index).padStart(4, '0');
    const configMap = new kplus.ConfigMap(this, `targets-${folder}`, { metadata: { name: `${this.serviceName}-targets-${folder}`, labels: this.labels } });
    this.targetConfigMaps.push(configMap);
    this.container.mount(`${CLUSTER_TARGETS_DIR}/${folder}`, kplus.Volume.fromConfigMap(this, `targets-${folder}-volume`, configMap), { readOnly: true });
  }

  /** The modules of the config file, by name, presets expanded. */
  get modules(): Readonly<Record<string, SpecModule>> {
    return { ...this.moduleMap };
  }

  /**
   * Adds a module to the config file: a preset or a module in blackbox_exporter's format, checked as a spec's module
   * is (a regexp that does not compile, another prober's settings, a misspelt field). Throws a ProblemsError naming
   * `modules.<name>` when it has problems, or when the exporter has a module of that name already.
   */
  addModule(name: string, module: ModuleEntry): void {
    this.addModules({ [name]: module });
  }

  private addModules(entries: Readonly<Record<string, ModuleEntry>>): void {
    const problems: Problem[] = [];
    const parsed = Object.entries(entries).flatMap(([name, entry]): Array<[string, SpecModule]> => {
      const path: FieldPath = ['modules', name];
      const nameProblem = moduleNameProblem(name, 'give it one');
      if (nameProblem !== undefined) problems.push({ path, message: nameProblem });
      else if (name in this.moduleMap) problems.push({ path, message: `is a module of this exporter already; give this module another name, or change the first one` });
      const module = parseModule(name, entry, path, problems);
      return module ? [[name, module]] : [];
    });
    if (problems.length > 0) throw new ProblemsError(withDurationSuggestions(problems, { modules: entries }), this.node.path);
    for (const [name, module] of parsed) this.moduleMap[name] = module;
    this.render();
  }

  /** The config file's text, rendered when the chart is synthesized so that later `addModule` calls count. */
  private configText(): string {
    return stringify(renderExporterConfig({ modules: this.moduleMap, exporter: { allowedTargets: this.allowedTargets } }, CLUSTER_SECRETS_DIR).config, { lineWidth: 0 });
  }

  /** Mounts and capabilities follow each module as it comes; the config text itself is lazy. */
  private render(): void {
    renderExporterConfig({ modules: this.moduleMap }, CLUSTER_SECRETS_DIR).secretFiles.forEach((file) => this.provideSecretFile(file));
    if (!this.pingSocketsGranted && this.pings()) this.grantPingSockets();
  }

  private provideSecretFile(file: SecretFile): void {
    if (!('fromEnv' in file.ref)) {
      const { name } = clusterSecretOf(file.ref)!;
      if (this.mountedExistingSecrets.has(name)) return;
      this.mountedExistingSecrets.add(name);
      if ('externalSecret' in file.ref)
        new ApiObject(this, `external-${name}`, renderExternalSecret(file.ref.externalSecret, exporterLabels(this.serviceName)) as unknown as ConstructorParameters<typeof ApiObject>[2]);
      const secret = kplus.Secret.fromSecretName(this, `existing-${name}`, name);
      this.container.mount(existingSecretDir(name), kplus.Volume.fromSecret(this, `existing-${name}-volume`, secret), { readOnly: true });
      return;
    }
    const value = requireEnvSecret(file.ref, this.env, ['modules', file.module, ...file.field], 'synth');
    if (!this.headerSecret) {
      this.headerSecret = new kplus.Secret(this, 'headers', { metadata: { name: `${this.serviceName}-headers` } });
      this.container.mount(CLUSTER_SECRETS_DIR, kplus.Volume.fromSecret(this, 'headers-volume', this.headerSecret), { readOnly: true });
    }
    this.headerSecret.addStringData(file.fileName, value);
  }

  /** Whether a module pings: ICMP needs raw sockets (NET_RAW) or unprivileged ping sockets, and the pod gets both. */
  private pings(): boolean {
    return Object.values(this.moduleMap).some((module) => module.prober === 'icmp');
  }

  /**
   * Unprivileged ping sockets for the pod: net.ipv4.ping_group_range, a namespaced sysctl that Kubernetes counts as
   * safe. A JSON patch rather than cdk8s-plus' `securityContext.sysctls`, which the Deployment takes only when it is
   * made, before `addModule` may bring the first icmp module.
   */
  private grantPingSockets(): void {
    this.pingSocketsGranted = true;
    ApiObject.of(this.deployment).addJsonPatch(JsonPatch.add('/spec/template/spec/securityContext/sysctls', [{ name: 'net.ipv4.ping_group_range', value: `0 ${2 ** 31 - 1}` }]));
  }
}

/**
 * The kubelet's health check: GET /-/healthy, over https when the exporter serves it; a TCP connect when it
 * requires client certificates or a password, which the kubelet cannot present (a password in the pod spec
 * would be readable by whoever reads Deployments).
 */
function healthProbe(access: ExporterAccess): kplus.Probe {
  if (!kubeletCanCallHealth(access)) return kplus.Probe.fromTcpSocket({ port: EXPORTER_PORT });
  return kplus.Probe.fromHttpGet(HEALTH_PATH, { port: EXPORTER_PORT, ...(access.tls ? { scheme: kplus.ConnectionScheme.HTTPS } : {}) });
}

/** Where the exporter reads its web config: the ConfigMap's folder, or the web-config Secret's when it holds a hash. */
function webConfigFileOf(access: ExporterAccess): string | undefined {
  if (!hasWebConfig(access)) return undefined;
  return `${access.basicAuth ? CLUSTER_WEB_CONFIG_DIR : CLUSTER_CONFIG_DIR}/${WEB_CONFIG_FILE}`;
}

/** A property computed at synth; cdk8s resolves Lazy values wherever they sit in an object. */
function lazyValue<T>(produce: () => T): T {
  return Lazy.any({ produce }) as unknown as T;
}

/** The generated Kubernetes types want Quantity objects; a quantity passes through as written. */
function resourcesOf(resources: Resources): Record<string, Record<string, kplus.k8s.Quantity>> {
  const quantities = (amounts: Resources['requests']) =>
    Object.fromEntries(
      Object.entries(amounts)
        .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
        .map(([name, amount]) => [name, typeof amount === 'number' ? kplus.k8s.Quantity.fromNumber(amount) : kplus.k8s.Quantity.fromString(amount)]),
    );
  return { requests: quantities(resources.requests), limits: quantities(resources.limits) };
}
