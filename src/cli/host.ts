/**
 * `probekit host`: the single-machine form's files, written under a folder that mirrors the machine's root
 * (`--out host/` gives host/etc/...), or in place with `--out /`. Relative paths are the caller's. The agent file and
 * the record of probekit's jobs already there, or under `--from DIR` (install.sh gives the machine's root), are
 * edited, not replaced.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadSpecFile, SpecFileError } from '../model';
import { ProblemsError } from '@probekit/exporter';
import { DEFAULT_VENDOR, hostPaths, removeHostJobs, renderHostFiles, type HostFile } from '../render/host-files';
import { commandGroup, parseFlags, required, UsageError, type CliIo } from './command';

const USAGE = {
  render: 'probekit host render --spec FILE [--vendor NAME] [--out DIR] [--from DIR] [--agent-config FILE]',
  removeJobs: 'probekit host remove-jobs [--vendor NAME] [--out DIR] [--from DIR]',
};

function vendorFrom(value: string | undefined): string {
  const vendor = value ?? DEFAULT_VENDOR;
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
  const { values } = parseFlags(args, { spec: { type: 'string' }, vendor: { type: 'string' }, out: { type: 'string' }, from: { type: 'string' }, 'agent-config': { type: 'string' } }, USAGE.render);
  const specFile = required(values.spec, 'spec', 'the spec file, as for npm run synth');
  const vendor = vendorFrom(values.vendor);
  const out = values.out ?? 'host';
  const paths = hostPaths(vendor);
  // The agent file and the record already on the machine (--from /), or in the output tree, are edited, not replaced.
  const from = values.from ?? out;
  const agentFile = values['agent-config'] ?? join(from, paths.agentConfig);
  const agentJobsFile = join(from, paths.agentJobs);

  let spec;
  try {
    // Secret references are read by the renderer, for the sections the host form uses: an unset variable of a
    // section it leaves out (searchEngine) is no reason to fail.
    spec = loadSpecFile(specFile, { cwd: io.cwd, namedBy: `--spec ${specFile}` });
  } catch (error) {
    // A path that leads nowhere is a mistake in the command line; a spec with problems is a failure.
    throw error instanceof SpecFileError ? new UsageError(error.message) : error;
  }
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
    throw error instanceof ProblemsError ? error.namedAfter(specFile) : error;
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
      `note: ${clusterOnly.map((key) => `exporter.${key}`).join(', ')} ${clusterOnly.length === 1 ? 'is a cluster setting' : 'are cluster settings'} and not rendered on a host: the exporter there listens as its unit says; limit who reaches it with --web.listen-address and a web config of your own (see "Security" in the README)\n`,
    );
  }
  return 0;
}

async function removeJobs(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, { vendor: { type: 'string' }, out: { type: 'string' }, from: { type: 'string' } }, USAGE.removeJobs);
  const out = values.out ?? 'host';
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
