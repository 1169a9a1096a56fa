/**
 * Values for Grafana's Alloy chart (grafana/alloy, read at chart 1.11.1, Alloy 1.18): `alloy.configMap.content` is
 * an Alloy configuration, which the chart passes through `tpl` and runs as its only configuration file.
 *
 * Each Prometheus scrape job becomes what Alloy's own converter makes of it: a `discovery.relabel` holding the
 * job's targets and its relabel rules in their order, and a `prometheus.scrape` of its output with the job's name,
 * path, parameters, interval, timeout and access settings. Alloy relabels and scrapes with Prometheus' code, so the
 * series carry the same labels. Every scrape forwards to one `prometheus.remote_write` component, named by the spec:
 *
 * - with `remoteWrite.url`, probekit writes that component and the values are for an Alloy release of its own: one
 *   Deployment replica (a DaemonSet, the chart's default, would probe every target once per node), the endpoint's
 *   credentials read from a Secret mounted as a file;
 * - without, the component is the user's: the configuration is probekit's part of theirs, to be put into it.
 *
 * Every scrape opts into Alloy's clustering, which splits the targets between the replicas of a clustered Alloy
 * and changes nothing in one that is not.
 */
import { parseDuration } from '@probekit/exporter';
import type { AlloyRemoteWrite } from '../../model';
import { goTemplateLiteral } from '../go-template';
import type { ExporterAccess } from '../exporter-web-config';
import type { RelabelRule, ScrapeConfig } from '../scrape-job';
import { replacedNote, type AgentChartValues } from './chart-values';
import { exporterAccessFiles, exporterSecretsNote, mountedSecretsNote, remoteWriteFiles, secretVolumes, volumeMounts, type SecretFiles, type SecretVolume, type VolumeMount } from './secret-files';

export interface AlloyChartValues {
  readonly alloy: { readonly configMap: { readonly content: string }; readonly mounts?: { readonly extra: VolumeMount[] }; readonly clustering?: { readonly enabled: true } };
  readonly controller?: { readonly type?: 'deployment'; readonly replicas?: number; readonly volumes?: { readonly extra: SecretVolume[] } };
}

/** An expression naming what another component exports (`discovery.relabel.x.output`). */
class Reference {
  constructor(readonly path: string) {}
}

type Value = string | number | boolean | Reference | readonly Value[] | { readonly [key: string]: Value };
type Statement = { readonly attribute: string; readonly value: Value } | Block;
interface Block {
  readonly block: string;
  readonly label?: string;
  readonly body: readonly Statement[];
}

const attribute = (name: string, value: Value): Statement => ({ attribute: name, value });
const block = (name: string, body: readonly Statement[], label?: string): Block => ({ block: name, body, ...(label === undefined ? {} : { label }) });

/** A double-quoted Alloy string: `\` and `"` escaped, control characters as the escapes Alloy reads. */
export function alloyString(text: string): string {
  const named: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  // eslint-disable-next-line no-control-regex
  return `"${text.replace(/[\\"\u0000-\u001f\u007f]/g, (character) => named[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

function isObject(value: Value): value is { readonly [key: string]: Value } {
  return typeof value === 'object' && !Array.isArray(value) && !(value instanceof Reference);
}

function writeValue(value: Value, indent: string): string {
  if (typeof value === 'string') return alloyString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Reference) return value.path;
  if (Array.isArray(value)) {
    const items = value as readonly Value[];
    if (!items.some(isObject)) return `[${items.map((item) => writeValue(item, indent)).join(', ')}]`;
    return `[\n${items.map((item) => `${indent}  ${writeValue(item, `${indent}  `)},\n`).join('')}${indent}]`;
  }
  const entries = Object.entries(value as { readonly [key: string]: Value });
  return `{${entries.map(([key, entry]) => `${alloyString(key)} = ${writeValue(entry, indent)}`).join(', ')}}`;
}

/** The statements of a body, the `=` of neighbouring attributes aligned as `alloy fmt` aligns them. */
function writeBody(body: readonly Statement[], indent: string): string {
  const lines: string[] = [];
  body.forEach((statement, index) => {
    if ('block' in statement) {
      lines.push(writeBlock(statement, indent));
      return;
    }
    let width = statement.attribute.length;
    for (let other = index; other < body.length && !('block' in body[other]); other++) width = Math.max(width, (body[other] as { attribute: string }).attribute.length);
    for (let other = index - 1; other >= 0 && !('block' in body[other]); other--) width = Math.max(width, (body[other] as { attribute: string }).attribute.length);
    lines.push(`${indent}${statement.attribute.padEnd(width)} = ${writeValue(statement.value, indent)}\n`);
  });
  return lines.join('');
}

function writeBlock({ block: name, label, body }: Block, indent: string): string {
  return `${indent}${name}${label === undefined ? '' : ` ${alloyString(label)}`} {\n${writeBody(body, `${indent}  `)}${indent}}\n`;
}

/** A Prometheus duration (`1m30s`, `1d`) as Go's, which Alloy's durations are (`1m30s`, `24h`). */
export function goDuration(text: string): string {
  const total = parseDuration(text);
  if (total === undefined) throw new Error(`"${text}" is not a Prometheus duration`);
  const parts: Array<[number, string]> = [
    [Math.floor(total / 3_600_000), 'h'],
    [Math.floor(total / 60_000) % 60, 'm'],
    [Math.floor(total / 1000) % 60, 's'],
    [total % 1000, 'ms'],
  ];
  return parts.map(([amount, unit]) => (amount > 0 ? `${amount}${unit}` : '')).join('') || '0s';
}

/** Component labels from job names: letters, digits and _ (an Alloy identifier), prefixed with probekit_, each one once. */
function componentLabels(jobNames: readonly string[]): string[] {
  const taken = new Set<string>();
  return jobNames.map((name) => {
    const identifier = name.replace(/[^A-Za-z0-9_]/g, '_');
    const base = identifier.startsWith('probekit_') ? identifier : `probekit_${identifier}`;
    let label = base;
    for (let count = 2; taken.has(label); count++) label = `${base}_${count}`;
    taken.add(label);
    return label;
  });
}

/** Prometheus' tls_config fields, which Alloy's tls_config block names alike. */
const TLS_FIELDS = new Set(['ca_file', 'cert_file', 'key_file', 'server_name', 'insecure_skip_verify']);

function ruleBlock(rule: RelabelRule): Block {
  const { source_labels, target_label, replacement, regex, modulus, action, ...unplaced } = rule;
  placedEverything(unplaced, 'relabel rule');
  return block('rule', [
    ...(source_labels === undefined ? [] : [attribute('source_labels', source_labels)]),
    ...(regex === undefined ? [] : [attribute('regex', regex)]),
    ...(target_label === undefined ? [] : [attribute('target_label', target_label)]),
    ...(replacement === undefined ? [] : [attribute('replacement', replacement)]),
    ...(modulus === undefined ? [] : [attribute('modulus', modulus)]),
    ...(action === undefined ? [] : [attribute('action', action)]),
  ]);
}

/** A field of ours that is not placed in the Alloy configuration fails to compile here, and to render if it slips through. */
function placedEverything(unplaced: Record<string, never>, what: string): void {
  const fields = Object.keys(unplaced);
  if (fields.length > 0) throw new Error(`${what}: ${fields.join(', ')} has no place in the Alloy configuration`);
}

/** A scrape job's (or its http_sd's) tls_config and basic_auth as Alloy's blocks of the same names. */
function clientBlocks(job: string, tlsConfig: Readonly<Record<string, string>> | undefined, basicAuth: ScrapeConfig['basic_auth']): Block[] {
  const tls = Object.entries(tlsConfig ?? {});
  const unknownTls = tls.filter(([field]) => !TLS_FIELDS.has(field));
  if (unknownTls.length > 0) throw new Error(`job ${job}: tls_config.${unknownTls[0][0]} has no place in the Alloy configuration`);
  return [
    ...(tls.length === 0
      ? []
      : [
          block(
            'tls_config',
            tls.map(([field, value]) => attribute(field, value)),
          ),
        ]),
    ...(basicAuth === undefined ? [] : [block('basic_auth', [attribute('username', basicAuth.username), attribute('password_file', basicAuth.password_file)])]),
  ];
}

/** Where a job's targets come from: a discovery.kubernetes or discovery.http component of the job's label, else its static targets. */
function jobDiscovery(config: ScrapeConfig, label: string): { component?: Block; targets: Value } {
  const { job_name, static_configs, kubernetes_sd_configs, http_sd_configs } = config;
  const [discovered, ...more] = kubernetes_sd_configs ?? [];
  const [served, ...moreServed] = http_sd_configs ?? [];
  if (more.length > 0 || moreServed.length > 0 || (discovered && served)) throw new Error(`job ${job_name}: one discovery per job has a place in the Alloy configuration`);
  if (discovered) {
    const component = block(
      'discovery.kubernetes',
      [
        attribute('role', discovered.role),
        ...(discovered.namespaces ? [block('namespaces', [attribute('names', discovered.namespaces.names)])] : []),
        ...discovered.selectors.map((selector) => block('selectors', [attribute('role', selector.role), attribute('label', selector.label)])),
      ],
      label,
    );
    return { component, targets: new Reference(`discovery.kubernetes.${label}.targets`) };
  }
  if (served) {
    const { url, tls_config, basic_auth, ...unplaced } = served;
    placedEverything(unplaced, `job ${job_name}'s http_sd_configs`);
    const component = block('discovery.http', [attribute('url', url), ...clientBlocks(job_name, tls_config, basic_auth)], label);
    return { component, targets: new Reference(`discovery.http.${label}.targets`) };
  }
  return { targets: (static_configs ?? []).flatMap(({ targets: addresses, labels }) => addresses.map((address) => ({ __address__: address, ...labels }))) };
}

/** One scrape job as Alloy components: its discovery, its discovery.relabel when it has rules, and its prometheus.scrape. */
function jobComponents(config: ScrapeConfig, label: string, forwardTo: Reference): Block[] {
  const { job_name, scrape_interval, scrape_timeout, metrics_path, params, static_configs, kubernetes_sd_configs, http_sd_configs, relabel_configs, scheme, tls_config, basic_auth, ...unplaced } =
    config;
  placedEverything(unplaced, `job ${job_name}`);
  const discovery = jobDiscovery({ job_name, static_configs, kubernetes_sd_configs, http_sd_configs } as ScrapeConfig, label);
  const relabel =
    relabel_configs === undefined || relabel_configs.length === 0 ? undefined : block('discovery.relabel', [attribute('targets', discovery.targets), ...relabel_configs.map(ruleBlock)], label);
  const scrape = block(
    'prometheus.scrape',
    [
      attribute('targets', relabel ? new Reference(`discovery.relabel.${label}.output`) : discovery.targets),
      attribute('forward_to', [forwardTo]),
      attribute('job_name', job_name),
      attribute('metrics_path', metrics_path),
      ...(params === undefined ? [] : [attribute('params', params)]),
      attribute('scrape_interval', goDuration(scrape_interval)),
      attribute('scrape_timeout', goDuration(scrape_timeout)),
      ...(scheme === undefined ? [] : [attribute('scheme', scheme)]),
      ...clientBlocks(job_name, tls_config, basic_auth),
      block('clustering', [attribute('enabled', true)]),
    ],
    label,
  );
  return [...(discovery.component ? [discovery.component] : []), ...(relabel ? [relabel] : []), scrape];
}

/** The remote_write component probekit writes when the spec gives its URL, and the Secret file it reads. */
function remoteWriteComponent(remoteWrite: AlloyRemoteWrite & { readonly url: string }): { component: Block; files: SecretFiles[] } {
  const basicAuth = remoteWrite.basicAuth && { ...remoteWriteFiles(remoteWrite.basicAuth.passwordSecret), username: remoteWrite.basicAuth.username };
  const bearer = remoteWrite.bearerTokenSecret && remoteWriteFiles(remoteWrite.bearerTokenSecret);
  const endpoint = block('endpoint', [
    attribute('url', remoteWrite.url),
    ...(bearer ? [attribute('bearer_token_file', bearer.path)] : []),
    ...(basicAuth ? [block('basic_auth', [attribute('username', basicAuth.username), attribute('password_file', basicAuth.path)])] : []),
  ]);
  return { component: block('prometheus.remote_write', [endpoint], remoteWrite.name), files: [basicAuth?.files, bearer?.files].filter((files) => files !== undefined) };
}

/** The Alloy configuration: every job's components, and the remote_write component when probekit writes it. */
export function renderAlloyConfig(scrapeConfigs: readonly ScrapeConfig[], remoteWrite: AlloyRemoteWrite): string {
  const forwardTo = new Reference(`prometheus.remote_write.${remoteWrite.name}.receiver`);
  const labels = componentLabels(scrapeConfigs.map((config) => config.job_name));
  const components = scrapeConfigs.flatMap((config, index) => jobComponents(config, labels[index], forwardTo));
  const own = remoteWrite.url === undefined ? undefined : remoteWriteComponent({ ...remoteWrite, url: remoteWrite.url });
  const header =
    own === undefined
      ? `// probekit's scrape jobs. They forward to prometheus.remote_write.${remoteWrite.name}, which is yours: put them into the configuration that has it.\n`
      : `// probekit's scrape jobs, forwarding to prometheus.remote_write.${remoteWrite.name} below.\n`;
  return header + [...components, ...(own ? [own.component] : [])].map((component) => `\n${writeBlock(component, '')}`).join('');
}

export function alloyChartValues(
  scrapeConfigs: readonly ScrapeConfig[],
  remoteWrite: AlloyRemoteWrite,
  access: ExporterAccess,
  exporterNamespace: string,
  file: string,
  shards = 1,
): AgentChartValues<AlloyChartValues> {
  const ownRelease = remoteWrite.url !== undefined;
  const files = [...exporterAccessFiles(access), ...(ownRelease ? remoteWriteComponent({ ...remoteWrite, url: remoteWrite.url }).files : [])];
  const content = goTemplateLiteral(renderAlloyConfig(scrapeConfigs, remoteWrite));
  const volumes = files.length === 0 ? {} : { volumes: { extra: secretVolumes(files) } };
  const controller = ownRelease ? { type: 'deployment' as const, replicas: shards, ...volumes } : files.length === 0 ? undefined : volumes;
  // agent.shards: the replicas share the targets by Alloy's clustering, which every scrape opts into.
  const clustering = shards > 1 ? { clustering: { enabled: true as const } } : {};
  return {
    values: {
      alloy: { configMap: { content }, ...(files.length === 0 ? {} : { mounts: { extra: volumeMounts(files) } }), ...clustering },
      ...(controller === undefined ? {} : { controller }),
    },
    notes: [
      ...(ownRelease
        ? [
            `Values for the grafana/alloy chart, for an Alloy release of its own: probekit's scrape jobs, sent to ${remoteWrite.url} by prometheus.remote_write.${remoteWrite.name}.`,
            shards > 1
              ? `It runs as ${shards} Deployment replicas in one Alloy cluster (alloy.clustering), which share the targets: each is scraped by one replica.`
              : "It runs as one Deployment replica: a DaemonSet, the chart's default, would probe every target once per node.",
          ]
        : [
            `alloy.configMap.content is probekit's part of an Alloy configuration: its scrapes forward to prometheus.remote_write.${remoteWrite.name}, which it does not define.`,
            'Put it into your own alloy.configMap.content: installed alone, this file would replace your configuration.',
            ...(shards > 1 ? [`Run ${shards} replicas of that Alloy (controller.replicas): with alloy.clustering.enabled they share the targets, each scraped by one replica.`] : []),
            ...(files.length === 0 ? [] : [replacedNote(['alloy.mounts.extra', 'controller.volumes.extra'])]),
          ]),
      ...mountedSecretsNote(files),
      ...exporterSecretsNote(access, exporterNamespace),
      ...(ownRelease ? [`Install: helm upgrade --install probekit-alloy grafana/alloy -n ${exporterNamespace} -f ${file}`] : []),
    ],
  };
}
