/**
 * A throw-away PKI for tests: a CA, a server certificate for localhost/127.0.0.1/::1 and a client
 * certificate, all made with openssl in a temporary directory. Real certificates, so TLS verification,
 * SNI and client authentication run exactly as in production.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsFixtures {
  readonly dir: string;
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  /** Unix time at which the server certificate expires (the CA outlives it). */
  readonly serverNotAfter: number;
  cleanup(): void;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function issue(dir: string, name: string, subject: string, extensions: string, days: number): void {
  openssl(dir, 'req', ...KEY_ARGS, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', String(days), '-extfile', `${name}.ext`);
}

/** Makes the CA and certificates; `serverNames` go into the server certificate's subjectAltName. */
export function makeTlsFixtures(serverNames: readonly string[] = ['DNS:localhost', 'IP:127.0.0.1', 'IP:::1']): TlsFixtures {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-tls-'));
  openssl(dir, 'req', '-x509', ...KEY_ARGS, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3650', '-subj', '/O=probekit tests/CN=probekit test CA');
  issue(dir, 'server', '/O=probekit tests/CN=localhost', `subjectAltName=${serverNames.join(',')}\nextendedKeyUsage=serverAuth\n`, 90);
  issue(dir, 'client', '/CN=probekit test client', 'extendedKeyUsage=clientAuth\n', 90);
  const file = (name: string): string => join(dir, name);
  const notAfter = execFileSync('openssl', ['x509', '-in', file('server.crt'), '-noout', '-enddate'], { encoding: 'utf8' }).trim().replace('notAfter=', '');
  return {
    dir,
    caFile: file('ca.crt'),
    serverCertFile: file('server.crt'),
    serverKeyFile: file('server.key'),
    clientCertFile: file('client.crt'),
    clientKeyFile: file('client.key'),
    ca: readFileSync(file('ca.crt'), 'utf8'),
    serverCert: readFileSync(file('server.crt'), 'utf8'),
    serverKey: readFileSync(file('server.key'), 'utf8'),
    serverNotAfter: Math.floor(Date.parse(notAfter) / 1000),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
