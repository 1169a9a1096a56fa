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
  /** Unix times at which the server certificate and the CA expire (by default the CA outlives it). */
  readonly serverNotAfter: number;
  readonly caNotAfter: number;
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

export interface TlsFixtureOptions {
  /** Names for the server certificate's subjectAltName. */
  readonly serverNames?: readonly string[];
  /** Days each certificate is valid (defaults: CA 3650, server 90). */
  readonly caDays?: number;
  readonly serverDays?: number;
}

/** Makes the CA and certificates. */
export function makeTlsFixtures(options: TlsFixtureOptions = {}): TlsFixtures {
  const { serverNames = ['DNS:localhost', 'IP:127.0.0.1', 'IP:::1'], caDays = 3650, serverDays = 90 } = options;
  const dir = mkdtempSync(join(tmpdir(), 'probekit-tls-'));
  openssl(dir, 'req', '-x509', ...KEY_ARGS, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', String(caDays), '-subj', '/O=probekit tests/CN=probekit test CA');
  issue(dir, 'server', '/O=probekit tests/CN=localhost', `subjectAltName=${serverNames.join(',')}\nextendedKeyUsage=serverAuth\n`, serverDays);
  issue(dir, 'client', '/CN=probekit test client', 'extendedKeyUsage=clientAuth\n', 90);
  const file = (name: string): string => join(dir, name);
  const notAfter = (name: string): number =>
    Math.floor(
      Date.parse(
        execFileSync('openssl', ['x509', '-in', file(name), '-noout', '-enddate'], { encoding: 'utf8' })
          .trim()
          .replace('notAfter=', ''),
      ) / 1000,
    );
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
    serverNotAfter: notAfter('server.crt'),
    caNotAfter: notAfter('ca.crt'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
