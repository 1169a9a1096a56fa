/**
 * Spec to the files of the single-machine form: the exporter's config, its secret header files, the agent's
 * config with the jobs, the record of which jobs are probekit's, and the exporter's systemd unit. An existing
 * agent file is edited in place: its comments, order and other jobs stay; probekit's own jobs are replaced,
 * added, or removed when the spec no longer has them.
 */
import { posix } from 'node:path';
import { isMap, isSeq, parse, parseDocument, stringify, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import { EXPORTER_NODE_FLAGS, exporterArgs, HEALTH_PATH } from '@probekit/exporter';
import { ProblemsError, type FieldPath, type Problem } from '@probekit/exporter';
import { DEFAULTS, readEnvSecret, unsetVariableProblem, type Environment, type Spec } from '../model';
import { renderExporterConfig } from './exporter-config';
import { renderHostMonitoringFiles } from './host-monitoring-files';
import { localExporterAddress, renderExporterScrapeJob, renderScrapeJobs } from './scrape-job';

export interface HostFile {
  /** Absolute path on the machine. */
  readonly path: string;
  /** The file's text; undefined when the file is to be removed (an agent file left with nothing in it). */
  readonly content: string | undefined;
  /** File mode; secrets are readable by their owner only. */
  readonly mode: number;
}

export interface HostPaths {
  readonly agentConfig: string;
  readonly exporterDir: string;
  readonly exporterConfig: string;
  readonly secretsDir: string;
  /** The job names probekit wrote into the agent file, so that it removes only its own. */
  readonly agentJobs: string;
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
    agentJobs: `${exporterDir}/agent-jobs.yaml`,
    unit: `/etc/systemd/system/${EXPORTER_UNIT_NAME}`,
  };
}

export const EXPORTER_UNIT_NAME = 'probekit-exporter.service';
/** Where install.sh puts the exporter bundle (its ICMP addon beside it); the unit's ExecStart names it. */
export const EXPORTER_INSTALL_PATH = '/opt/probekit/exporter/probekit-exporter.js';
export const DEFAULT_VENDOR = 'probekit';
/**
 * Open files the unit allows: a probe holds a socket or two while it runs, and a machine probing thousands of
 * targets runs thousands at once; systemd's default soft limit of 1024 ends in "too many open files".
 */
export const EXPORTER_OPEN_FILES_LIMIT = 65536;

export interface HostFilesOptions {
  /** The vendor directory under /etc (`/etc/<vendor>/agent-config.yaml`). @default probekit */
  readonly vendor?: string;
  /** The agent config file as it is now on the machine, to edit rather than replace. */
  readonly existingAgentConfig?: string;
  /** Where existingAgentConfig was read from, named before its problems. @default agent config */
  readonly agentConfigSource?: string;
  /** The record of probekit's jobs (`agentJobs` of hostPaths) as it is now on the machine. */
  readonly existingAgentJobs?: string;
  /** Where existingAgentJobs was read from, named before its problems. @default agent jobs record */
  readonly agentJobsSource?: string;
  /** Where `fromEnv` header secrets are read from. */
  readonly env?: Environment;
}

/**
 * Every file of the host form. The spec's `searchEngine` section is not used here: the host form installs the
 * exporter, while the assistant's skills server runs where the assistant runs and takes the engine's URL and token
 * from its own environment (docs/host.md).
 */
export function renderHostFiles(spec: Spec, options: HostFilesOptions = {}): HostFile[] {
  const vendor = options.vendor ?? DEFAULT_VENDOR;
  const paths = hostPaths(vendor);
  const { config, secretFiles } = renderExporterConfig(spec, paths.secretsDir);
  const problems: Problem[] = [];
  const secrets = secretFiles.flatMap((file): HostFile[] => {
    const field: FieldPath = ['modules', file.module, ...file.field];
    if (!('fromEnv' in file.ref)) {
      const form = 'existingSecret' in file.ref ? 'existingSecret' : 'externalSecret';
      problems.push({ path: field, message: `${form} names a Kubernetes Secret, which a single machine does not have; use { fromEnv: VAR } for the host form` });
      return [];
    }
    const value = readEnvSecret(file.ref, options.env ?? {});
    if (value === undefined) problems.push(unsetVariableProblem(field, file.ref, 'host files'));
    return value === undefined ? [] : [{ path: file.path, content: value, mode: 0o600 }];
  });
  problems.push(...hiddenSocketProblems(spec));
  spec.jobs.forEach((job, index) => {
    if (job.discover !== undefined)
      problems.push({ path: ['jobs', index, 'discover'], message: 'finds Ingresses and Services in a cluster, which a single machine does not have; list the targets instead' });
  });
  if (problems.length > 0) throw new ProblemsError(problems);

  // The exporter's own job too: the alert on a failed config reload needs its metrics.
  const exporterAddress = localExporterAddress(spec.host.listenAddress);
  const jobs = [...renderScrapeJobs(spec, exporterAddress), renderExporterScrapeJob(exporterAddress, spec.location)];
  const previousJobs = readAgentJobs(options.existingAgentJobs, options.agentJobsSource);
  const agentConfig = syncScrapeJobs(options.existingAgentConfig ?? '', jobs, { previousJobs, source: options.agentConfigSource });
  const icmp = Object.values(spec.modules).some((module) => module.prober === 'icmp');
  return [
    { path: paths.exporterConfig, content: stringify(config, { lineWidth: 0 }), mode: 0o644 },
    ...secrets,
    { path: paths.agentConfig, content: agentConfig, mode: 0o644 },
    { path: paths.agentJobs, content: agentJobsRecord(paths.agentConfig, jobs), mode: 0o644 },
    { path: paths.unit, content: exporterUnit(paths, { icmp, listenAddress: spec.host.listenAddress }), mode: 0o644 },
    ...renderHostMonitoringFiles(spec, vendor),
  ];
}

/**
 * What uninstalling leaves: the agent file without probekit's jobs (removed when nothing else is left in it), and no
 * record.
 */
export function removeHostJobs(options: Pick<HostFilesOptions, 'vendor' | 'existingAgentConfig' | 'agentConfigSource' | 'existingAgentJobs' | 'agentJobsSource'>): HostFile[] {
  const paths = hostPaths(options.vendor ?? DEFAULT_VENDOR);
  const previousJobs = readAgentJobs(options.existingAgentJobs, options.agentJobsSource);
  const record: HostFile = { path: paths.agentJobs, content: undefined, mode: 0o644 };
  if (options.existingAgentConfig === undefined) return [record];
  const agentConfig = syncScrapeJobs(options.existingAgentConfig, [], { previousJobs, source: options.agentConfigSource });
  return [{ path: paths.agentConfig, content: agentConfig, mode: 0o644 }, record];
}

/**
 * Which jobs of the agent file are probekit's is kept in a file of its own, not in the agent file: users edit the
 * agent file, and tools that rewrite YAML drop comments, which would make a marker comment either vanish (the job
 * then stays forever) or travel with a block a user copied (a user's job then gets removed). The record is touched
 * by probekit alone, and names only jobs probekit wrote.
 */
function agentJobsRecord(agentConfig: string, jobs: ReadonlyArray<{ job_name: string }>): string {
  return `# The scrape jobs probekit wrote into ${agentConfig}. The next install removes those no longer in the spec;
# jobs not listed here are never touched. Written by probekit: do not edit.
${stringify({ jobs: jobs.map((job) => job.job_name) }, { lineWidth: 0 })}`;
}

function readAgentJobs(text: string | undefined, source = 'agent jobs record'): string[] {
  if (text === undefined) return [];
  let record: unknown;
  try {
    record = parse(text);
  } catch {
    record = undefined;
  }
  const jobs = (record as { jobs?: unknown } | undefined)?.jobs;
  if (!Array.isArray(jobs) || !jobs.every((job) => typeof job === 'string')) {
    throw new ProblemsError([{ path: ['jobs'], message: 'is not a list of job names; remove the file (probekit then removes none of the jobs it wrote before) and install again' }], source);
  }
  return jobs;
}

/** The metrics instance probekit adds to an agent file that has none. */
const PROBEKIT_INSTANCE = 'probekit';

/** Where the agent keeps its jobs: one list at the top, or one per metrics instance. */
type JobLists = { readonly lists: YAMLSeq[]; readonly addTo: YAMLSeq };

/**
 * The lists of jobs in the agent file. Prometheus and the agent's top-level form keep them under `scrape_configs`;
 * an agent in its static form keeps them per instance, under `metrics.configs[].scrape_configs`, and new jobs go to
 * the instance that already holds probekit's jobs, else the first.
 */
function jobLists(document: Document, previousJobs: readonly string[], refuse: (path: FieldPath, message: string) => ProblemsError): JobLists {
  const metrics = document.get('metrics');
  if (metrics === undefined || metrics === null) {
    let list = document.get('scrape_configs');
    if (list === undefined || list === null) {
      document.set('scrape_configs', document.createNode([]));
      list = document.get('scrape_configs');
    }
    if (!isSeq(list)) throw refuse(['scrape_configs'], 'is not a list; make it a list of jobs');
    return { lists: [list], addTo: list };
  }
  if (!isMap(metrics)) throw refuse(['metrics'], 'is not a mapping; the agent keeps its jobs under metrics.configs[].scrape_configs');
  if (document.has('scrape_configs')) throw refuse(['scrape_configs'], 'and metrics both hold jobs; keep one of them (the agent reads metrics.configs[].scrape_configs)');
  let configs = metrics.get('configs');
  if (configs === undefined || configs === null) {
    metrics.set('configs', document.createNode([]));
    configs = metrics.get('configs');
  }
  if (!isSeq(configs)) throw refuse(['metrics', 'configs'], 'is not a list; make it a list of instances, each with a name and scrape_configs');
  if (configs.items.length === 0) configs.items.push(document.createNode({ name: PROBEKIT_INSTANCE, scrape_configs: [] }));
  const lists = configs.items.map((instance, index) => {
    if (!isMap(instance)) throw refuse(['metrics', 'configs', index], 'is not a mapping; an instance has a name and scrape_configs');
    let list = instance.get('scrape_configs');
    if (list === undefined || list === null) {
      instance.set('scrape_configs', document.createNode([]));
      list = instance.get('scrape_configs');
    }
    if (!isSeq(list)) throw refuse(['metrics', 'configs', index, 'scrape_configs'], 'is not a list; make it a list of jobs');
    return list;
  });
  const owning = lists.findIndex((list) => list.items.some((item) => previousJobs.includes(jobName(item) ?? '')));
  return { lists, addTo: lists[Math.max(owning, 0)] };
}

function jobName(item: unknown): string | undefined {
  const name = isMap(item) ? item.get('job_name') : undefined;
  return typeof name === 'string' ? name : undefined;
}

export interface SyncScrapeJobsOptions {
  /** The job names probekit wrote before (its record): those not among `jobs` are removed. @default none */
  readonly previousJobs?: readonly string[];
  /** Names the file before its problems. @default agent config */
  readonly source?: string;
}

/**
 * The agent file with probekit's jobs set to `jobs`: a job whose job_name is already there is replaced where it
 * stands (its comments stay), the others are appended, and a job named in `previousJobs` but no longer in `jobs` is
 * removed. Jobs probekit did not write are never touched, nor is anything else in the file, comments included.
 * A file that is not YAML, or whose jobs are not where the agent reads them, is refused. A list of jobs emptied by
 * the removal is removed with its key; a file left with nothing at all gives undefined.
 */
export function syncScrapeJobs(agentConfig: string, jobs: ReadonlyArray<{ job_name: string }>, options: SyncScrapeJobsOptions = {}): string | undefined {
  const previousJobs = options.previousJobs ?? [];
  const refuse = (path: FieldPath, message: string) => new ProblemsError([{ path, message }], options.source ?? 'agent config');
  const document: Document = parseDocument(agentConfig);
  if (document.errors.length > 0) throw refuse([], `${document.errors[0].message.split('\n')[0]}; fix the file's YAML first`);
  if (document.contents === null) document.contents = document.createNode({}) as never;
  if (!isMap(document.contents)) throw refuse([], 'the file is not a YAML mapping; scrape_configs must be a top-level key');
  const { lists, addTo } = jobLists(document, previousJobs, refuse);

  const wanted = new Set(jobs.map((job) => job.job_name));
  for (const list of lists) {
    list.items = list.items.filter((item) => {
      const name = jobName(item);
      return name === undefined || wanted.has(name) || !previousJobs.includes(name);
    });
  }
  for (const job of jobs) {
    const node = document.createNode(job) as YAMLMap;
    const list = lists.find((candidate) => candidate.items.some((item) => jobName(item) === job.job_name)) ?? addTo;
    const index = list.items.findIndex((item) => jobName(item) === job.job_name);
    if (index >= 0) {
      const replaced = list.items[index] as YAMLMap;
      node.commentBefore = replaced.commentBefore;
      node.comment = replaced.comment;
      list.items[index] = node;
    } else list.items.push(node);
  }
  if (jobs.length === 0) dropEmptiedLists(document);
  const contents = document.contents as YAMLMap;
  if (contents.items.length === 0 && !document.commentBefore && !document.comment && !contents.commentBefore) return undefined;
  return document.toString({ lineWidth: 0, flowCollectionPadding: false, ...layoutOf(agentConfig) });
}

/**
 * The indentation the file is written with, so that the lines the edit does not change are written as they were:
 * the width of its first indented line, and whether a block list sits at its key's column (`key:` then `- item`).
 */
function layoutOf(text: string): { indent: number; indentSeq: boolean } {
  const indented = /^[^\s#][^\n]*:[ \t]*(?:#[^\n]*)?\n( +)\S/m.exec(text);
  return { indent: indented?.[1].length ?? 2, indentSeq: !/^( *)[^\s#-][^\n]*:[ \t]*(?:#[^\n]*)?\n(?:[ \t]*#[^\n]*\n)*\1- /m.test(text) };
}

/** Without jobs of probekit's, an empty `scrape_configs` says nothing: it goes, and so does an emptied `metrics.configs` entry probekit made. */
function dropEmptiedLists(document: Document): void {
  const top = document.get('scrape_configs');
  if (isSeq(top) && top.items.length === 0 && !top.commentBefore && !top.comment) document.delete('scrape_configs');
  const configs = document.getIn(['metrics', 'configs']);
  if (!isSeq(configs)) return;
  for (const instance of configs.items) {
    const list = isMap(instance) ? instance.get('scrape_configs') : undefined;
    if (isMap(instance) && isSeq(list) && list.items.length === 0) instance.delete('scrape_configs');
  }
  configs.items = configs.items.filter((instance) => !(isMap(instance) && instance.items.length === 1 && instance.get('name') === PROBEKIT_INSTANCE));
}

/** The system user install.sh creates; it runs the exporter and owns the secret header files. */
export const EXPORTER_USER = 'probekit-exporter';

export interface ExporterUnitOptions {
  /** Whether a module uses the icmp prober: only then does the unit grant the one capability ICMP needs. @default false */
  readonly icmp?: boolean;
  /** Where the exporter listens (`--web.listen-address`). @default DEFAULTS.host.listenAddress: loopback only */
  readonly listenAddress?: string;
}

/**
 * The directories the exporter's unit (exporterUnit: ProtectHome, PrivateTmp) takes out of its sight, and the
 * setting that does: a unix socket there is one the exporter cannot connect to, whatever its permissions.
 */
const HIDDEN_FROM_EXPORTER: ReadonlyArray<{ readonly directory: string; readonly by: string }> = [
  { directory: '/tmp', by: 'PrivateTmp=yes gives it a /tmp of its own' },
  { directory: '/var/tmp', by: 'PrivateTmp=yes gives it a /var/tmp of its own' },
  { directory: '/home', by: 'ProtectHome=yes hides it' },
  { directory: '/root', by: 'ProtectHome=yes hides it' },
  { directory: '/run/user', by: 'ProtectHome=yes hides it' },
];

/** A unix job's socket in a directory the exporter's unit hides: refused at install, where every probe would fail. */
function hiddenSocketProblems(spec: Spec): Problem[] {
  return spec.jobs.flatMap((job, jobIndex) => {
    if (spec.modules[job.module]?.prober !== 'unix') return [];
    return job.targets.flatMap(({ target }, targetIndex): Problem[] => {
      const path = posix.normalize(target);
      const hidden = HIDDEN_FROM_EXPORTER.find(({ directory }) => path === directory || path.startsWith(`${directory}/`));
      if (!hidden) return [];
      return [
        {
          path: ['jobs', jobIndex, 'targets', targetIndex],
          message: `"${target}" is under ${hidden.directory}, which the exporter's service cannot see (${hidden.by}); have the service put its socket elsewhere, under /run for example`,
        },
      ];
    });
  });
}

/**
 * A hardened unit: its own user, no privilege but CAP_NET_RAW when an icmp module needs it, nothing writable,
 * the kernel's tunables, logs and modules out of reach, and a system call filter. Memory that is both writable and
 * executable stays allowed (MemoryDenyWriteExecute is off): Node's JIT compiler needs it.
 */
export function exporterUnit(paths: HostPaths, options: ExporterUnitOptions = {}): string {
  const listenAddress = options.listenAddress ?? DEFAULTS.host.listenAddress;
  const capabilities = options.icmp
    ? `# Raw sockets for the icmp prober (a ping socket needs none, where net.ipv4.ping_group_range allows it), and nothing else.
AmbientCapabilities=CAP_NET_RAW
CapabilityBoundingSet=CAP_NET_RAW`
    : `# No module uses the icmp prober: no capability at all.
CapabilityBoundingSet=`;
  return `[Unit]
Description=probekit exporter (blackbox_exporter compatible prober)
Documentation=https://github.com/probekit/probekit
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
# V8's young generation at the size the exporter is measured with, whatever the machine's memory.
Environment="NODE_OPTIONS=${EXPORTER_NODE_FLAGS.join(' ')}"
ExecStart=/usr/bin/node ${EXPORTER_INSTALL_PATH} ${exporterArgs({ configFile: paths.exporterConfig, listenAddress }).join(' ')}
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=5s
User=${EXPORTER_USER}
Group=${EXPORTER_USER}
LimitNOFILE=${EXPORTER_OPEN_FILES_LIMIT}
${capabilities}
NoNewPrivileges=yes
UMask=0077
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectClock=yes
ProtectHostname=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectProc=invisible
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RemoveIPC=yes
LockPersonality=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged
SystemCallErrorNumber=EPERM

[Install]
WantedBy=multi-user.target
# Health: curl -fsS http://${localExporterAddress(listenAddress)}${HEALTH_PATH}
`;
}
