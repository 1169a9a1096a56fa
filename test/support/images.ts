/**
 * Container images built by packaging/images/build.sh, run the way this machine allows. podman builds here, but its
 * runtime (crun) cannot set the rlimits a container starts with in this sandbox, so an image runs as a container's
 * process would, without the runtime: its filesystem mounted read-only by podman, /dev and /proc mounted in a mount
 * namespace of its own, its entrypoint and command started in it as the image's user, with the image's environment
 * and working folder, and only the capabilities a manifest grants. The network is this machine's, so its loopback
 * servers are the targets.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an image says about how it runs (`podman image inspect`'s Config). */
export interface ImageConfig {
  readonly user: string;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly workingDir: string;
}

export function imageConfig(image: string): ImageConfig {
  const [inspected] = JSON.parse(execFileSync('podman', ['image', 'inspect', image], { encoding: 'utf8' })) as {
    Config: { User?: string; Entrypoint?: string[]; Cmd?: string[]; Env?: string[]; WorkingDir?: string };
  }[];
  const config = inspected!.Config;
  const env = Object.fromEntries((config.Env ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  return { user: config.User ?? '', entrypoint: config.Entrypoint ?? [], cmd: config.Cmd ?? [], env, workingDir: config.WorkingDir || '/' };
}

/** The image's size as podman counts it (its layers, uncompressed), in bytes. */
export function imageSize(image: string): number {
  return Number(execFileSync('podman', ['image', 'inspect', '--format', '{{.Size}}', image], { encoding: 'utf8' }).trim());
}

/** Mounts the image's filesystem (read-only, as podman mounts an image) and returns where. */
export function mountImage(image: string): string {
  return execFileSync('podman', ['image', 'mount', image], { encoding: 'utf8' }).trim();
}

export function unmountImage(image: string): void {
  execFileSync('podman', ['image', 'unmount', image], { stdio: 'ignore' });
}

/** The uid and gid of a user named in the image's own /etc/passwd (a number passes through). */
export function imageUser(root: string, user: string): { uid: number; gid: number } {
  const [name, group] = user.split(':');
  const line = readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .map((entry) => entry.split(':'))
    .find((fields) => fields[0] === name || fields[2] === name);
  if (!line) throw new Error(`the image's /etc/passwd has no user ${name}`);
  return { uid: Number(line[2]), gid: group === undefined ? Number(line[3]) : Number(group) };
}

export interface RunOptions {
  /** The words to run: the entrypoint and command, as a container runtime joins them. */
  readonly argv: readonly string[];
  readonly config: ImageConfig;
  /** Variables added to the image's environment, as a pod's `env` adds them. */
  readonly env?: Readonly<Record<string, string>>;
  /** Files of this machine bind-mounted over files of the image, as a volume is (`{ [pathInImage]: pathHere }`). */
  readonly files?: Readonly<Record<string, string>>;
  /** Capabilities granted besides none, by their Kubernetes names (`NET_RAW`), as a container's securityContext adds them. */
  readonly capabilities?: readonly string[];
  /** Who runs it, as a securityContext's runAsUser and runAsGroup say. @default the image's USER */
  readonly user?: { readonly uid: number; readonly gid: number };
}

/**
 * Starts `argv` in the mounted image `root`, as the image's user. The process itself is the child (each step
 * execs the next), so its pid is the container's main process and a signal reaches it as a runtime's would.
 */
export function runInImage(root: string, options: RunOptions): ChildProcess {
  const { uid, gid } = options.user ?? imageUser(root, options.config.user || 'root');
  // chroot needs CAP_SYS_CHROOT after the user is switched; it goes with the granted ones, and nothing else does.
  const caps = ['sys_chroot', ...(options.capabilities ?? []).map((name) => name.toLowerCase())];
  const capList = ['-all', ...caps.map((cap) => `+${cap}`)].join(',');
  // The runtime's own files first, as a container runtime mounts them: this machine's name resolution.
  const files = { '/etc/hosts': '/etc/hosts', '/etc/resolv.conf': '/etc/resolv.conf', ...options.files };
  const binds = Object.entries(files)
    .map(([inImage, here]) => `mount --bind ${shellQuote(here)} "$root"${shellQuote(inImage)}`)
    .join(' && ');
  const script = [
    'set -e',
    // This machine's programs until the image's are run; then the image's PATH finds its entrypoint.
    'image_path=$PATH; PATH=/usr/sbin:/usr/bin:/sbin:/bin',
    'root=$1; wd=$2; shift 2',
    'mount --rbind /dev "$root/dev"',
    'mount -t proc proc "$root/proc"',
    ...(binds ? [binds] : []),
    // Into the root while still root: podman's storage folder, above it, is closed to other users.
    'cd "$root"',
    'PATH=$image_path',
    `exec /usr/bin/setpriv --reuid=${uid} --regid=${gid} --clear-groups --inh-caps=${capList} --ambient-caps=${capList} --bounding-set=${capList} /usr/bin/unshare --root=. --wd="$wd" -- "$@"`,
  ].join('\n');
  return spawn('/usr/bin/unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, 'sh', root, options.config.workingDir, ...options.argv], {
    env: { ...options.config.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The words of `argv` with the one starting with `prefix` (a flag) replaced by `replacement`; throws when there is none. */
export function replaceArgument(argv: readonly string[], prefix: string, replacement: string): string[] {
  const index = argv.findIndex((word) => word.startsWith(prefix));
  if (index < 0) throw new Error(`no argument starting with ${prefix} in ${argv.join(' ')}`);
  return argv.map((word, at) => (at === index ? replacement : word));
}
