/**
 * ICMP sockets from the native addon in exporter/native (Node has neither raw nor ping sockets).
 * The addon is built from source by `npm ci`; where it is missing, opening a socket fails with a message
 * saying so instead of the exporter failing to start, so the other probers keep working.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type IcmpFamily = 4 | 6;

export interface IcmpSocketOptions {
  readonly family: IcmpFamily;
  /** A raw socket (root or CAP_NET_RAW) instead of the kernel's unprivileged ping socket. */
  readonly raw: boolean;
  readonly source?: string;
  /** IPv4 TTL or IPv6 unicast hop limit of the packets sent. */
  readonly ttl?: number;
  readonly dontFragment?: boolean;
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
}

const ADDON_RELATIVE_PATH = join('native', 'build', 'Release', 'icmp_socket.node');

/**
 * The addon sits in exporter/native/build/Release. This file runs from exporter/src/probers/shared (tests,
 * tsx) or bundled into exporter/dist (the exporter bin, the container image): walk up to the exporter
 * folder, whichever of those it is.
 */
function findAddon(): string | undefined {
  let folder = __dirname;
  for (;;) {
    const candidate = join(folder, ADDON_RELATIVE_PATH);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

let addon: Addon | Error | undefined;

function loadAddon(): Addon {
  if (addon === undefined) {
    const path = findAddon();
    try {
      if (path === undefined) throw new Error(`${ADDON_RELATIVE_PATH} not found`);
      // createRequire keeps the bundler from trying to inline a binary module.
      addon = createRequire(__filename)(path) as Addon;
    } catch (error) {
      addon = new Error(`the ICMP addon (exporter/native, built by npm ci) cannot be loaded: ${(error as Error).message}`);
    }
  }
  if (addon instanceof Error) throw addon;
  return addon;
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
