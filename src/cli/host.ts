/**
 * `probekit host`: the single-machine form's files, written under a folder that mirrors the machine's root
 * (`--out host/` gives host/etc/...), or in place with `--out /`. Relative paths are the caller's. The agent file and
 * the record of probekit's jobs already there, or under `--from DIR` (install.sh gives the machine's root), are
 * edited, not replaced.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readSpecFile, SpecFileError } from '../model';
import { ProblemsError } from '@probekit/exporter';
import { DEFAULT_VENDOR, hostPaths, removeHostJobs, renderHostFiles, type HostFile } from '../render/host-files';
import { commandGroup, helpText, parseFlags, usageLine, UsageError, type CliIo, type Flags } from './command';

const VENDOR_FLAG = { type: 'string', value: 'NAME', default: DEFAULT_VENDOR, help: "the agent's folder under /etc: /etc/NAME/agent-config.yaml" } as const;
const OUT_FLAG = { type: 'string', value: 'DIR', default: 'host', help: "the folder standing for the machine's root (DIR/etc/...); / writes in place" } as const;
const FROM_FLAG = { type: 'string', value: 'DIR', defaultText: 'the --out folder', help: "where the agent file and the record of probekit's jobs are read from; install.sh gives /" } as const;

const FLAGS = {
  render: {
    spec: { type: 'string', value: 'FILE', required: true, help: 'the spec to render the files from' },
    vendor: VENDOR_FLAG,
    out: OUT_FLAG,
    from: FROM_FLAG,
    'agent-config': { type: 'string', value: 'FILE', defaultText: 'FROM/etc/NAME/agent-config.yaml', help: "the agent's config file the jobs are added to" },
    location: { type: 'string', value: 'NAME', defaultText: "the spec's location", help: "this machine's location (one of the spec's locations): the location label of its series" },
  },
  removeJobs: { vendor: VENDOR_FLAG, out: OUT_FLAG, from: FROM_FLAG },
} as const satisfies Record<string, Flags>;

const USAGE = {
  render: usageLine('probekit host render', FLAGS.render),
  removeJobs: usageLine('probekit host remove-jobs', FLAGS.removeJobs),
};

const HELP = {
  render: helpText(
    USAGE.render,
    FLAGS.render,
    `Writes the single-machine form of the spec under --out, as the machine's root holds it: the exporter's config
and secret header files, its systemd unit, the agent's config with the spec's jobs, the record of which jobs are
probekit's, and the dashboard and alert rules. The agent file already there is edited, not replaced: jobs of an
earlier render that the spec no longer has are removed, jobs written by hand stay.`,
    '0 written; 1 the spec refused; 2 a mistake in the command line (a spec file that cannot be read)',
  ),
  removeJobs: helpText(
    USAGE.removeJobs,
    FLAGS.removeJobs,
    "Removes probekit's jobs from the agent file (those the record of an earlier render names), leaving the rest.",
    '0 done; 1 an agent file that cannot be edited; 2 a mistake in the command line',
  ),
};

function vendorFrom(vendor: string): string {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(vendor)) throw new UsageError(`--vendor ${vendor}: not a directory name; use lower case letters, digits, . _ -`);
  return vendor;
}

/** The file's text, or undefined where there is none. */
function readIfThere(io: CliIo, path: string): string | undefined {
  const file = resolve(io.cwd, path);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Writes (or, for a file left with nothing in it, removes) each file under `out`, and lists what it did. */
function writeTree(io: CliIo, out: string, files: readonly HostFile[]): void {
  for (const file of files) {
    const target = join(out, file.path);
    const absolute = resolve(io.cwd, target);
    if (file.content === undefined) {
      if (!existsSync(absolute)) continue;
      rmSync(absolute);
      io.stdout(`removed ${target}\n`);
      continue;
    }
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, file.content, { mode: file.mode });
    chmodSync(absolute, file.mode);
    io.stdout(`${target}\n`);
  }
}

async function render(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, FLAGS.render, HELP.render);
  const specFile = values.spec!;
  const vendor = vendorFrom(values.vendor);
  const out = values.out;
  const paths = hostPaths(vendor);
  // The agent file and the record already on the machine (--from /), or in the output tree, are edited, not replaced.
  const from = values.from ?? out;
  const agentFile = values['agent-config'] ?? join(from, paths.agentConfig);
  const agentJobsFile = join(from, paths.agentJobs);

  let loaded;
  try {
    // Secret references are read by the renderer, for the sections the host form uses: an unset variable of a
    // section it leaves out (searchEngine) is no reason to fail.
    loaded = readSpecFile(specFile, { cwd: io.cwd, namedBy: `--spec ${specFile}`, ...(values.location === undefined ? {} : { location: values.location }) });
  } catch (error) {
    // A path that leads nowhere is a mistake in the command line; a spec with problems is a failure.
    throw error instanceof SpecFileError ? new UsageError(error.message) : error;
  }
  const { spec } = loaded;
  let files;
  try {
    files = renderHostFiles(spec, {
      vendor,
      existingAgentConfig: readIfThere(io, agentFile),
      agentConfigSource: agentFile,
      existingAgentJobs: readIfThere(io, agentJobsFile),
      agentJobsSource: agentJobsFile,
      env: io.env,
    });
  } catch (error) {
    // What only the host form refuses (a Kubernetes Secret reference, a socket its unit hides) is the spec's: named after it.
    throw error instanceof ProblemsError ? loaded.namedAfterFile(error) : error;
  }
  writeTree(io, out, files);
  if (spec.searchEngine) {
    io.stderr(
      'note: searchEngine is not rendered on a host: the host form installs the exporter; run the assistant\'s skills server where the assistant runs, with the URL and token in its environment (see "probekit assistant serve --help")\n',
    );
  }
  const clusterOnly = (['tls', 'basicAuth', 'networkPolicy'] as const).filter((key) => spec.exporter[key] !== undefined);
  if (clusterOnly.length > 0) {
    io.stderr(
      `note: ${clusterOnly.map((key) => `exporter.${key}`).join(', ')} ${clusterOnly.length === 1 ? 'is a cluster setting' : 'are cluster settings'} and not rendered on a host: the exporter there listens where host.listenAddress says (127.0.0.1:9115 unless set), without TLS or a password of its own (see docs/security.md)\n`,
    );
  }
  return 0;
}

async function removeJobs(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, FLAGS.removeJobs, HELP.removeJobs);
  const out = values.out;
  const vendor = vendorFrom(values.vendor);
  const paths = hostPaths(vendor);
  const from = values.from ?? out;
  const agentFile = join(from, paths.agentConfig);
  const agentJobsFile = join(from, paths.agentJobs);
  const files = removeHostJobs({
    vendor,
    existingAgentConfig: readIfThere(io, agentFile),
    agentConfigSource: agentFile,
    existingAgentJobs: readIfThere(io, agentJobsFile),
    agentJobsSource: agentJobsFile,
  });
  writeTree(io, out, files);
  return 0;
}

export const hostCommand = commandGroup('host', 'single-machine form: render the exporter config, agent config and systemd unit', {
  render: { usage: USAGE.render, run: render },
  'remove-jobs': { usage: USAGE.removeJobs, run: removeJobs },
});
