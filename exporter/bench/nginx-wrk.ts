/**
 * The nginx scenarios: nginx (Debian's nginx-light) as the probed target, over plain HTTP and over TLS with an
 * ECDSA P-256 and an RSA-2048 certificate, TLS 1.2 and 1.3, and wrk as the load on the exporter's /probe. wrk
 * reports percentiles, not each request, so a round here carries its own p50 and p99 instead of latencies.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../loopback/reference-exporter';
import { cpuMilliseconds, type Round } from './measure';

export const NGINX = '/usr/sbin/nginx';
export const WRK = '/usr/bin/wrk';

/** Why the scenario cannot run here, or undefined. */
export function nginxWrkUnavailable(): string | undefined {
  const missing = [NGINX, WRK].filter((binary) => !existsSync(binary));
  return missing.length === 0 ? undefined : `${missing.join(' and ')} missing: install nginx-light and wrk`;
}

/** The certificate kinds of the TLS scenarios: each its own CA, which signs a leaf for 127.0.0.1 with the same kind of key. */
export const NGINX_KEYS = { ecdsa: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], rsa: ['-newkey', 'rsa:2048'] } as const;
export type NginxKey = keyof typeof NGINX_KEYS;
export const NGINX_TLS_VERSIONS = ['TLSv1.2', 'TLSv1.3'] as const;
export type NginxTlsVersion = (typeof NGINX_TLS_VERSIONS)[number];

/** A TLS listener of nginx: its key kind, the one protocol version it speaks, and its port. */
export interface NginxTlsListener {
  readonly key: NginxKey;
  readonly version: NginxTlsVersion;
  readonly port: number;
}

export interface Nginx {
  readonly port: number;
  readonly tls: readonly NginxTlsListener[];
  /** The CA file of each key kind, for a module's tls_config.ca_file. */
  readonly caFiles: Readonly<Record<NginxKey, string>>;
  stop(): Promise<void>;
}

/** A CA and a server certificate it signs (subjectAltName 127.0.0.1 and localhost) for each key kind, made with openssl in `dir`. */
function makeCertificates(dir: string): void {
  const openssl = (...args: string[]): void => void execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  for (const [kind, key] of Object.entries(NGINX_KEYS)) {
    openssl(
      'req',
      '-x509',
      ...key,
      '-nodes',
      '-keyout',
      `${kind}-ca.key`,
      '-out',
      `${kind}-ca.crt`,
      '-days',
      '3650',
      '-subj',
      `/O=probekit bench/CN=${kind} CA`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl('req', ...key, '-nodes', '-keyout', `${kind}.key`, '-out', `${kind}.csr`, '-subj', '/O=probekit bench/CN=localhost');
    writeFileSync(join(dir, `${kind}.ext`), 'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n');
    openssl('x509', '-req', '-in', `${kind}.csr`, '-CA', `${kind}-ca.crt`, '-CAkey', `${kind}-ca.key`, '-CAcreateserial', '-out', `${kind}.crt`, '-days', '90', '-extfile', `${kind}.ext`);
  }
}

/**
 * nginx on loopback ports, answering every request with a short text, its files in a temporary folder: plain
 * HTTP on `port`, and a TLS listener for each key kind and protocol version. Two workers, so that on a 2-core
 * machine the handshakes' server side (an RSA signature each) is not what limits either exporter. Sessions are
 * neither cached nor ticketed: every probe makes a full handshake, as each exporter's probes do.
 */
export async function startNginx(): Promise<Nginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'probekit-nginx-'));
  for (const folder of ['logs', 'temp', 'tls']) mkdirSync(join(prefix, folder));
  makeCertificates(join(prefix, 'tls'));
  const port = await freePort();
  const tls: NginxTlsListener[] = [];
  for (const key of Object.keys(NGINX_KEYS) as NginxKey[]) for (const version of NGINX_TLS_VERSIONS) tls.push({ key, version, port: await freePort() });
  const tlsServer = ({ key, version, port: tlsPort }: NginxTlsListener): string => `server {
    listen 127.0.0.1:${tlsPort} ssl;
    ssl_certificate ${join(prefix, 'tls', `${key}.crt`)};
    ssl_certificate_key ${join(prefix, 'tls', `${key}.key`)};
    ssl_protocols ${version};
    ssl_session_cache off;
    ssl_session_tickets off;
    location / { return 200 "hello from nginx\\n"; }
  }`;
  const temp = (name: string): string => `${name}_temp_path ${join(prefix, 'temp', name)};`;
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `daemon off;
worker_processes 2;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    location / { return 200 "hello from nginx\\n"; }
  }
  ${tls.map(tlsServer).join('\n  ')}
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const until = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return { port, tls, caFiles: { ecdsa: join(prefix, 'tls', 'ecdsa-ca.crt'), rsa: join(prefix, 'tls', 'rsa-ca.crt') }, stop };
    if (Date.now() > until) {
      await stop();
      throw new Error(`nginx did not answer on port ${port}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function wrkMilliseconds(text: string, label: string): number {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
  if (!match) throw new Error(`wrk printed no ${label} latency:\n${text}`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

/** One round of wrk at `concurrency` connections against `url`; wrk counts answers other than 2xx and 3xx as failures. */
export async function wrkRound(url: string, pid: number, concurrency: number, seconds: number): Promise<Round> {
  const threads = Math.min(2, concurrency);
  const cpuBefore = cpuMilliseconds(pid);
  const started = performance.now();
  const text = await new Promise<string>((resolve, reject) =>
    execFile(WRK, ['-t', String(threads), '-c', String(concurrency), '-d', `${Math.max(1, Math.round(seconds))}s`, '--latency', url], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
  const cpuMs = cpuMilliseconds(pid) - cpuBefore;
  const probes = Number(/^\s*(\d+) requests in/m.exec(text)?.[1] ?? NaN);
  const durationSeconds = (performance.now() - started) / 1000;
  const failures = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0) + Number(/Socket errors:.*timeout (\d+)/.exec(text)?.[1] ?? 0);
  return {
    seconds: Math.min(durationSeconds, Math.max(1, Math.round(seconds))),
    probes,
    failures,
    firstFailure: failures > 0 ? `wrk: ${failures} answers were errors or timed out` : undefined,
    cpuMs,
    p50Ms: wrkMilliseconds(text, '50%'),
    p99Ms: wrkMilliseconds(text, '99%'),
  };
}
