/**
 * The one throw-away PKI of the tests and the benchmark: a CA, a server certificate it signs for
 * localhost/127.0.0.1/::1 and a client certificate, all made with openssl in a temporary directory. Real
 * certificates, so TLS verification, SNI and client authentication run exactly as in production. The exporter's
 * tests want files (ca_file, cert_file, key_file, as a module names them) and keep them until cleanup();
 * servers that take certificates as strings (the Elasticsearch contract server) use makeTlsPem.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The program that makes the certificates; tests that cannot do without TLS gate on it with describeWithBinaries. */
export const OPENSSL = '/usr/bin/openssl';

/** The CA and the server's certificate and key, as PEM text. */
export interface TlsPem {
  /** The CA certificate; a client trusts the server by trusting this. */
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
}

export interface TlsFixtures extends TlsPem {
  readonly dir: string;
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** Unix times at which the server certificate and the CA expire (by default the CA outlives it). */
  readonly serverNotAfter: number;
  readonly caNotAfter: number;
  cleanup(): void;
}

export interface TlsFixtureOptions {
  /** Names for the server certificate's subjectAltName; none makes a certificate that names its host (localhost) in the common name alone. */
  readonly serverNames?: readonly string[];
  /** Names for the client certificate's subjectAltName (none by default). */
  readonly clientNames?: readonly string[];
  /** Days each certificate is valid (defaults: CA 3650, server 90). */
  readonly caDays?: number;
  readonly serverDays?: number;
  /** The CA's common name: another name makes a CA that a client trusting the first one does not trust. */
  readonly caName?: string;
}

function openssl(dir: string, ...args: string[]): string {
  return execFileSync(OPENSSL, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function issue(dir: string, name: string, subject: string, extensions: string, days: number): void {
  openssl(dir, 'req', ...KEY_ARGS, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', String(days), '-extfile', `${name}.ext`);
}

/** The subjectAltName extension line for `names`; nothing when there are none. */
const altNames = (names: readonly string[]): string => (names.length > 0 ? `subjectAltName=${names.join(',')}\n` : '');

/** Makes the CA and certificates, as files in a temporary directory that cleanup() removes. */
export function makeTlsFixtures(options: TlsFixtureOptions = {}): TlsFixtures {
  const { serverNames = ['DNS:localhost', 'IP:127.0.0.1', 'IP:::1'], clientNames = [], caDays = 3650, serverDays = 90, caName = 'probekit test CA' } = options;
  const dir = mkdtempSync(join(tmpdir(), 'probekit-tls-'));
  // The CA's extensions are spelled out rather than left to the distribution's openssl.cnf.
  const caExtensions = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  openssl(dir, 'req', '-x509', ...KEY_ARGS, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', String(caDays), '-subj', `/O=probekit tests/CN=${caName}`, ...caExtensions);
  issue(dir, 'server', '/O=probekit tests/CN=localhost', `extendedKeyUsage=serverAuth\n${altNames(serverNames)}`, serverDays);
  issue(dir, 'client', '/CN=probekit test client', `extendedKeyUsage=clientAuth\n${altNames(clientNames)}`, 90);
  const file = (name: string): string => join(dir, name);
  const notAfter = (name: string): number => Math.floor(Date.parse(openssl(dir, 'x509', '-in', name, '-noout', '-enddate').trim().replace('notAfter=', '')) / 1000);
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

/** The same CA and server certificate as PEM text only, leaving no files behind. */
export function makeTlsPem(options: TlsFixtureOptions = {}): TlsPem {
  const fixtures = makeTlsFixtures(options);
  fixtures.cleanup();
  return { ca: fixtures.ca, serverCert: fixtures.serverCert, serverKey: fixtures.serverKey };
}
