/**
 * A network namespace for tests of what the exporter resolves: its own loopback, its resolver (resolv.conf,
 * nsswitch.conf and hosts laid over the machine's in its own mounts) asking a dnsmasq started there with the
 * test's names, and one process in it that fetches URLs for the test (a JSON line each way, so a request
 * costs no process start on a loaded machine). Needs root, dnsmasq, unshare, nsenter and ip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { inNamespace, run, start, type Process } from './release';

export const DNSMASQ = '/usr/sbin/dnsmasq';
/** What a test of the namespace needs installed. */
export const NAMESPACE_BINARIES = [DNSMASQ, '/usr/bin/unshare', '/usr/bin/nsenter', '/usr/sbin/ip'];

export interface Reply {
  readonly status: number;
  readonly body: string;
}

export interface DnsNamespace {
  /** A folder for the test's files, removed with the namespace. */
  readonly dir: string;
  /** A request from inside the namespace: the status and body, whatever the status (0 and the error when it fails). */
  get(url: string, method?: string): Promise<Reply>;
  /** Starts `command` in the namespace (`mounts`: with its resolver files) and waits until `ready` says so of its output. */
  startIn(command: readonly string[], ready: (output: string) => boolean, what: string, mounts?: boolean): Promise<Process>;
  /** Runs `command` in the namespace to its end. */
  runIn(command: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

const FETCHER = `
const lines = require('node:readline').createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const { id, url, method } = JSON.parse(line);
  try {
    const response = await fetch(url, { method });
    process.stdout.write(JSON.stringify({ id, status: response.status, body: await response.text() }) + '\\n');
  } catch (error) {
    process.stdout.write(JSON.stringify({ id, status: 0, body: String(error) }) + '\\n');
  }
});`;

/** Polls `check` until it holds, for up to two minutes (a loaded machine starts processes slowly). */
export async function waitUntil(check: () => Promise<boolean>, what: () => string): Promise<void> {
  const until = Date.now() + 120_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** The namespace, with dnsmasq answering `names` (name → address, names below it too) and nothing else. */
export async function startDnsNamespace(names: Readonly<Record<string, string>>): Promise<DnsNamespace> {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-namespace-'));
  writeFileSync(join(dir, 'resolv.conf'), 'nameserver 127.0.0.1\n');
  // Files, then DNS: nothing else (no systemd-resolved over a socket outside the namespace) answers.
  writeFileSync(join(dir, 'nsswitch.conf'), 'hosts: files dns\n');
  writeFileSync(join(dir, 'hosts'), '127.0.0.1 localhost\n');
  const addresses = Object.entries(names).map(([name, address]) => `address=/${name}/${address}`);
  writeFileSync(join(dir, 'dnsmasq.conf'), ['port=53', 'listen-address=127.0.0.1', 'bind-interfaces', 'no-resolv', 'no-hosts', 'local=/test/', ...addresses, ''].join('\n'));
  const binds = ['resolv.conf', 'nsswitch.conf', 'hosts'].map((file) => `mount --bind ${join(dir, file)} /etc/${file}`);
  const holder = start(['unshare', '--mount', '--net', '--', 'sh', '-c', ['set -e', 'ip link set lo up', ...binds, 'echo namespace ready', 'exec sleep 3600'].join('\n')]);
  const started: Process[] = [];
  let fetcher: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    fetcher?.kill();
    for (const process of started.reverse()) await process.stop();
    await holder.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      async () => holder.output().includes('namespace ready'),
      () => `the namespace: ${holder.output()}`,
    );
    const inside = (command: readonly string[], mounts = false): string[] => inNamespace(holder.child.pid!, command, mounts);
    const waiting = new Map<number, (reply: Reply) => void>();
    let nextId = 0;
    const [command, ...args] = inside([process.execPath, '-e', FETCHER]);
    const spawned = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    fetcher = spawned;
    createInterface({ input: spawned.stdout }).on('line', (line) => {
      const { id, status, body } = JSON.parse(line) as Reply & { id: number };
      waiting.get(id)?.({ status, body });
      waiting.delete(id);
    });
    const namespace: DnsNamespace = {
      dir,
      get: (url, method = 'GET') =>
        new Promise((resolve) => {
          const id = nextId++;
          waiting.set(id, resolve);
          spawned.stdin.write(`${JSON.stringify({ id, url, method })}\n`);
        }),
      startIn: async (command, ready, what, mounts = false) => {
        const process = start(inside(command, mounts));
        started.push(process);
        await waitUntil(
          async () => ready(process.output()),
          () => `${what}: ${process.output()}`,
        );
        return process;
      },
      runIn: async (command) => {
        const [program, ...rest] = inside(command);
        await run(program, rest);
      },
      stop,
    };
    await namespace.startIn(
      [DNSMASQ, '--keep-in-foreground', `--conf-file=${join(dir, 'dnsmasq.conf')}`, '--pid-file=', '--log-facility=-', '--user=root'],
      (output) => output.includes('started'),
      'dnsmasq',
    );
    return namespace;
  } catch (error) {
    await stop();
    throw error;
  }
}
