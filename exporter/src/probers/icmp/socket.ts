/**
 * ICMP sockets from the native addon in exporter/native (Node has neither raw nor ping sockets).
 * The addon is built from source by `npm ci`, and a release bundle carries it beside the bundle; where it is
 * missing, the exporter says so once at start and every icmp probe fails saying so, while the exporter and its
 * other probers keep working.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Logger } from '../../log';
import { EXPORTER_VERSION } from '../../version';

export type IcmpFamily = 4 | 6;

export interface IcmpSocketOptions {
  readonly family: IcmpFamily;
  /** A raw socket (root or CAP_NET_RAW) instead of the kernel's unprivileged ping socket. */
  readonly raw: boolean;
  readonly source?: string;
  /** IPv4 TTL or IPv6 unicast hop limit of the packets sent. */
  readonly ttl?: number;
  readonly dontFragment?: boolean;
  /**
   * For a raw socket: the echo identifier of the probe's request. The kernel then hands the socket only the
   * echo replies that carry it, instead of a copy of every ICMP message of the host (which, with a socket per
   * probe in flight, cost CPU growing with their square and overflowed the sockets' buffers under load).
   */
  readonly echoIdentifier?: number;
}

/** A datagram received: the ICMP message (no IP header), who sent it, and its TTL or hop limit (-1: unknown). */
export type IcmpMessageHandler = (message: Buffer, from: string, hopLimit: number) => void;

export interface IcmpSocket {
  send(message: Buffer, to: string): void;
  /** For a ping socket, the echo identifier the kernel writes into every request it sends. */
  localPort(): number;
  close(): void;
}

/** An error from the addon carries the errno name, as Node's own socket errors do. */
export interface IcmpSocketError extends Error {
  readonly code?: string;
}

interface Addon {
  open(options: IcmpSocketOptions, onMessage: IcmpMessageHandler): unknown;
  send(handle: unknown, message: Buffer, to: string): void;
  localPort(handle: unknown): number;
  close(handle: unknown): void;
  releaseFreeMemory(): boolean;
  acceptPending(fd: number, max: number): number[];
}

const ADDON_FILE = 'icmp_socket.node';
const ADDON_BUILD_PATH = join('native', 'build', 'Release', ADDON_FILE);

/**
 * Where the addon is looked for. First beside the bundle: a release bundle and an installed exporter
 * (/opt/probekit/exporter) keep the two files in one folder. Then the build output, native/build/Release, in
 * this folder or one above it: tests and tsx run this file from exporter/src/probers/icmp, the exporter bin
 * runs it bundled into exporter/dist, and the container image copies the build output beside the bundle.
 */
function addonCandidates(): string[] {
  const candidates = [join(__dirname, ADDON_FILE)];
  for (let folder = __dirname; ; folder = dirname(folder)) {
    candidates.push(join(folder, ADDON_BUILD_PATH));
    if (dirname(folder) === folder) return candidates;
  }
}

/**
 * What to do when the addon is nowhere: it is compiled for one architecture, so the npm package does not carry it
 * (an exporter installed with npm, or `probekit test` run from it, has none).
 */
const whereToGetIt = (folder: string): string =>
  `copy icmp_socket.node into ${folder} from the release bundle for this machine (probekit-exporter-${EXPORTER_VERSION}-linux-${process.arch === 'x64' ? 'amd64' : process.arch}.tar.gz, which also runs probekit test as node probekit.js test), or build it in a checkout (npm ci writes exporter/native/build/Release/icmp_socket.node); the npm package does not carry it`;

/** Why the addon cannot be loaded, with the path that was tried (where it belongs when it is nowhere). */
interface AddonFailure {
  readonly path: string;
  readonly reason: string;
}

let addon: Addon | AddonFailure | undefined;

function loadAddon(): Addon {
  if (addon === undefined) {
    const candidates = addonCandidates();
    const path = candidates.find((candidate) => existsSync(candidate));
    try {
      if (path === undefined) throw new Error(`no such file (nor ${ADDON_BUILD_PATH} in ${__dirname} or a folder above it); ${whereToGetIt(__dirname)}`);
      // createRequire keeps the bundler from trying to inline a binary module.
      addon = createRequire(__filename)(path) as Addon;
    } catch (error) {
      addon = { path: path ?? candidates[0], reason: (error as Error).message.split('\n')[0] };
    }
  }
  if ('path' in addon) throw new Error(`the ICMP addon cannot be loaded from ${addon.path}: ${addon.reason}`);
  return addon;
}

/**
 * Said once, when the exporter starts, rather than first at an icmp probe: an exporter without its addon is a
 * broken install, and the path named is where the addon belongs. Called by the exporter's start, not at import:
 * the config loader's worker thread runs the same bundle and would say it twice.
 */
export function warnWhenIcmpAddonMissing(log: Logger): void {
  try {
    loadAddon();
  } catch {
    const failure = addon as AddonFailure;
    log.warn('The ICMP addon cannot be loaded; icmp probes will fail', { path: failure.path, err: failure.reason });
  }
}

/** Why icmp probes cannot work here (the addon's path and the reason), or undefined when the addon is loaded. */
export function icmpAddonProblem(): string | undefined {
  try {
    loadAddon();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The addon for the calls that are not about ICMP, which do without it: undefined when it cannot be loaded. */
function addonIfLoaded(): Addon | undefined {
  try {
    return loadAddon();
  } catch {
    return undefined;
  }
}

/**
 * Gives the C heap's free pages back to the kernel (glibc's malloc_trim), through the one addon the exporter
 * ships; false when there is nothing to call (no addon, or a C library other than glibc).
 */
export function releaseFreeMemory(): boolean {
  return addonIfLoaded()?.releaseFreeMemory() ?? false;
}

/**
 * Takes up to `max` connections waiting in the accept queue of the listening socket `fd`, as descriptors
 * (exporter/src/server/accept-queue.ts says why); undefined without the addon, where libuv's own accepting is all there is.
 */
export function acceptPending(fd: number, max: number): number[] | undefined {
  return addonIfLoaded()?.acceptPending(fd, max);
}

/** Opens an ICMP socket; throws an IcmpSocketError (code EPERM, EACCES...) when the kernel refuses. */
export function openIcmpSocket(options: IcmpSocketOptions, onMessage: IcmpMessageHandler): IcmpSocket {
  const native = loadAddon();
  // An exception thrown back into the addon's callback would be fatal to the process: keep it here.
  const guarded: IcmpMessageHandler = (message, from, hopLimit) => {
    try {
      onMessage(message, from, hopLimit);
    } catch {
      // A message the handler cannot read is a message that does not match.
    }
  };
  const handle = native.open(options, guarded);
  let open = true;
  return {
    send: (message, to) => native.send(handle, message, to),
    localPort: () => native.localPort(handle),
    close: () => {
      if (open) native.close(handle);
      open = false;
    },
  };
}
