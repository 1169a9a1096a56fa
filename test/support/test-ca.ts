/**
 * A certificate authority made by the test, and a server certificate it signs for localhost, 127.0.0.1 and ::1,
 * so that TLS is verified for real against loopback servers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The program that makes the certificates; tests that need it gate on it with describeWithBinaries. */
export const OPENSSL = '/usr/bin/openssl';

export interface TestCa {
  /** PEM of the CA certificate; a client trusts the server by trusting this. */
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
}

export function makeTestCa(commonName = 'probekit test CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-ca-'));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync(OPENSSL, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
      '-keyout',
      path('ca.key'),
      '-out',
      path('ca.pem'),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=localhost', '-keyout', path('server.key'), '-out', path('server.csr'));
    writeFileSync(path('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n');
    openssl('x509', '-req', '-in', path('server.csr'), '-CA', path('ca.pem'), '-CAkey', path('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', path('server.ext'), '-out', path('server.pem'));
    return {
      caCert: readFileSync(path('ca.pem'), 'utf8'),
      serverCert: readFileSync(path('server.pem'), 'utf8'),
      serverKey: readFileSync(path('server.key'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
