/**
 * `probekit host render`: the single-machine form's files, written under a folder that mirrors the machine's
 * root (`--out host/` gives host/etc/...), or in place with `--out /`. Relative paths are the caller's.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadSpecFile, SpecFileError } from '../model';
import { DEFAULT_VENDOR, hostPaths, renderHostFiles } from '../render/host-files';
import { commandGroup, parseFlags, required, UsageError, type CliIo } from './command';

const USAGE = 'probekit host render --spec FILE [--vendor NAME] [--out DIR] [--agent-config FILE]';

async function render(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, { spec: { type: 'string' }, vendor: { type: 'string' }, out: { type: 'string' }, 'agent-config': { type: 'string' } }, USAGE);
  const specFile = required(values.spec, 'spec', 'the spec file, as for npm run synth');
  const vendor = values.vendor ?? DEFAULT_VENDOR;
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(vendor)) throw new UsageError(`--vendor ${vendor}: not a directory name; use lower case letters, digits, . _ -`);
  const out = values.out ?? 'host';
  // The agent file already on the machine (or in the output tree) is edited, not replaced.
  const agentFile = values['agent-config'] ?? join(out, hostPaths(vendor).agentConfig);
  const existingAgentConfig = existsSync(resolve(io.cwd, agentFile)) ? readFileSync(resolve(io.cwd, agentFile), 'utf8') : undefined;

  let spec;
  try {
    spec = loadSpecFile(specFile, { env: io.env, cwd: io.cwd, namedBy: `--spec ${specFile}` });
  } catch (error) {
    // A path that leads nowhere is a mistake in the command line; a spec with problems is a failure.
    throw error instanceof SpecFileError ? new UsageError(error.message) : error;
  }
  const files = renderHostFiles(spec, { vendor, existingAgentConfig, agentConfigSource: agentFile, env: io.env });
  for (const file of files) {
    const target = join(out, file.path);
    mkdirSync(dirname(resolve(io.cwd, target)), { recursive: true });
    writeFileSync(resolve(io.cwd, target), file.content, { mode: file.mode });
    chmodSync(resolve(io.cwd, target), file.mode);
    io.stdout(`${target}\n`);
  }
  return 0;
}

export const hostCommand = commandGroup('host', 'single-machine form: render the exporter config, agent config and systemd unit', {
  render: { usage: USAGE, run: render },
});
