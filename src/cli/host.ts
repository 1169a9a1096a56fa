/**
 * `probekit host render`: the single-machine form's files (seed 2.4), written under a folder that mirrors
 * the machine's root (`--out host/` gives host/etc/...), or in place with `--out /`.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadSpecFile } from '../model';
import { DEFAULT_VENDOR, hostPaths, renderHostFiles } from '../render/host-files';
import { parseFlags, required, UsageError, type CliIo, type Command } from './command';

const USAGE = 'probekit host render --spec FILE [--vendor NAME] [--out DIR] [--agent-config FILE]';

async function render(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, { spec: { type: 'string' }, vendor: { type: 'string' }, out: { type: 'string' }, 'agent-config': { type: 'string' } }, USAGE);
  const specFile = required(values.spec, 'spec', 'the spec file, as for npm run synth');
  const vendor = values.vendor ?? DEFAULT_VENDOR;
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(vendor)) throw new UsageError(`--vendor: "${vendor}" is not a directory name; use lower case letters, digits, . _ -`);
  const out = values.out ?? 'host';
  // The agent file already on the machine (or in the output tree) is edited, not replaced.
  const agentFile = values['agent-config'] ?? join(out, hostPaths(vendor).agentConfig);
  const existingAgentConfig = existsSync(agentFile) ? readFileSync(agentFile, 'utf8') : undefined;

  let files;
  try {
    files = renderHostFiles(loadSpecFile(specFile, { env: io.env }), { vendor, existingAgentConfig, env: io.env });
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`);
    return 1;
  }
  for (const file of files) {
    const target = join(out, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content, { mode: file.mode });
    chmodSync(target, file.mode);
    io.stdout(`${target}\n`);
  }
  return 0;
}

export const hostCommand: Command = {
  summary: 'single-machine form: render the exporter config, agent config and systemd unit',
  run: async (args, io) => {
    const [sub, ...rest] = args;
    if (sub === 'render') return render(rest, io);
    throw new UsageError(`unknown host subcommand "${sub ?? ''}"; usage: ${USAGE}`);
  },
};
