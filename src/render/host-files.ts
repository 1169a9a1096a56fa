/**
 * Spec to the files of the single-machine form: the exporter's config, the agent's config with the jobs
 * under `scrape_configs`, and the exporter's systemd unit. An existing agent file
 * is edited in place: its comments, order and other jobs stay; jobs of the same name are replaced.
 */
import { isMap, isSeq, parseDocument, stringify, type Document } from 'yaml';
import { EXPORTER_PORT, exporterArgs, HEALTH_PATH } from '@probekit/exporter';
import { ProblemsError, type FieldPath } from '@probekit/exporter';
import { requireEnvSecret, type Environment, type Spec } from '../model';
import { renderExporterConfig } from './exporter-config';
import { renderHostMonitoringFiles } from './host-monitoring-files';
import { LOCAL_EXPORTER_ADDRESS, renderExporterScrapeJob, renderScrapeJobs } from './scrape-job';

export interface HostFile {
  /** Absolute path on the machine. */
  readonly path: string;
  readonly content: string;
  /** File mode; secrets are readable by their owner only. */
  readonly mode: number;
}

export interface HostPaths {
  readonly agentConfig: string;
  readonly exporterDir: string;
  readonly exporterConfig: string;
  readonly secretsDir: string;
  readonly unit: string;
}

/** Where the agent's vendor layout puts each file, for a vendor directory name (`/etc/<vendor>/...`). */
export function hostPaths(vendor: string): HostPaths {
  const exporterDir = `/etc/${vendor}/exporters/blackbox`;
  return {
    agentConfig: `/etc/${vendor}/agent-config.yaml`,
    exporterDir,
    exporterConfig: `${exporterDir}/config.yaml`,
    secretsDir: `${exporterDir}/secrets`,
    unit: `/etc/systemd/system/${EXPORTER_UNIT_NAME}`,
  };
}

export const EXPORTER_UNIT_NAME = 'probekit-exporter.service';
/** Where install.sh puts the exporter bundle. */
export const EXPORTER_INSTALL_PATH = '/opt/probekit/exporter/probekit-exporter.js';
export const DEFAULT_VENDOR = 'probekit';

export interface HostFilesOptions {
  /** The vendor directory under /etc (`/etc/<vendor>/agent-config.yaml`). @default probekit */
  readonly vendor?: string;
  /** The agent config file as it is now on the machine, to edit rather than replace. */
  readonly existingAgentConfig?: string;
  /** Where existingAgentConfig was read from, named before its problems. @default agent config */
  readonly agentConfigSource?: string;
  /** Where `fromEnv` header secrets are read from. */
  readonly env?: Environment;
}

export function renderHostFiles(spec: Spec, options: HostFilesOptions = {}): HostFile[] {
  const vendor = options.vendor ?? DEFAULT_VENDOR;
  const paths = hostPaths(vendor);
  const { config, secretFiles } = renderExporterConfig(spec, paths.secretsDir);
  const secrets = secretFiles.map((file): HostFile => {
    const field: FieldPath = ['modules', file.module, 'http', 'headers', file.header];
    if ('existingSecret' in file.ref) {
      throw new ProblemsError([{ path: field, message: 'existingSecret names a Kubernetes Secret, which a single machine does not have; use { fromEnv: VAR } for the host form' }]);
    }
    return { path: file.path, content: requireEnvSecret(file.ref, options.env ?? {}, field, 'host files'), mode: 0o600 };
  });
  return [
    { path: paths.exporterConfig, content: stringify(config, { lineWidth: 0 }), mode: 0o644 },
    ...secrets,
    {
      path: paths.agentConfig,
      content: addScrapeJobs(options.existingAgentConfig ?? '', [...renderScrapeJobs(spec, LOCAL_EXPORTER_ADDRESS), renderExporterScrapeJob(LOCAL_EXPORTER_ADDRESS)], options.agentConfigSource),
      mode: 0o644,
    },
    { path: paths.unit, content: exporterUnit(paths), mode: 0o644 },
    ...renderHostMonitoringFiles(spec, vendor),
  ];
}

/**
 * The agent file with `jobs` under `scrape_configs`: a job whose job_name is already there is replaced
 * where it stands, the others are appended; everything else in the file, comments included, stays.
 */
export function addScrapeJobs(agentConfig: string, jobs: ReadonlyArray<{ job_name: string }>, source = 'agent config'): string {
  const refuse = (path: FieldPath, message: string) => new ProblemsError([{ path, message }], source);
  const document: Document = parseDocument(agentConfig);
  if (document.errors.length > 0) throw refuse([], `${document.errors[0].message.split('\n')[0]}; fix the file's YAML first`);
  if (document.contents === null) document.contents = document.createNode({}) as never;
  if (!isMap(document.contents)) throw refuse([], 'the file is not a YAML mapping; scrape_configs must be a top-level key');
  let list = document.get('scrape_configs');
  if (list === undefined || list === null) {
    document.set('scrape_configs', document.createNode([]));
    list = document.get('scrape_configs');
  }
  if (!isSeq(list)) throw refuse(['scrape_configs'], 'is not a list; make it a list of jobs');
  for (const job of jobs) {
    const node = document.createNode(job);
    const index = list.items.findIndex((item) => isMap(item) && item.get('job_name') === job.job_name);
    if (index >= 0) list.items[index] = node;
    else list.items.push(node);
  }
  return document.toString({ lineWidth: 0 });
}

/** The system user install.sh creates; it owns the secret header files. */
export const EXPORTER_USER = 'probekit-exporter';

/** A hardened unit: its own user, no privileges but the one ICMP needs, nothing writable. */
export function exporterUnit(paths: HostPaths): string {
  return `[Unit]
Description=probekit exporter (blackbox_exporter compatible prober)
Documentation=https://github.com/probekit/probekit
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
ExecStart=/usr/bin/node ${EXPORTER_INSTALL_PATH} ${exporterArgs({ configFile: paths.exporterConfig }).join(' ')}
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=5s
User=${EXPORTER_USER}
Group=${EXPORTER_USER}
# Raw sockets for the icmp prober, and nothing else.
AmbientCapabilities=CAP_NET_RAW
CapabilityBoundingSet=CAP_NET_RAW
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
LockPersonality=yes

[Install]
WantedBy=multi-user.target
# Health: curl -fsS http://localhost:${EXPORTER_PORT}${HEALTH_PATH}
`;
}
