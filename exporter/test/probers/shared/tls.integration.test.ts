import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProbeRegistry } from '../../../src/metrics';
import { compileTlsConfig, tlsConfigSchema, type TlsConfig } from '../../../src/probers/shared/tls-config';
import { recordTlsMetrics, serialNumberLabel, tlsConnectionOptions, tlsConnectionState, UNVERIFIED_CHAIN_EXPIRY } from '../../../src/probers/shared/tls';
import { makeTlsFixtures, OPENSSL, type TlsFixtures } from '../../../loopback/tls-fixtures';
import { metricValue, parseMetrics } from '../../../loopback/metrics-text';

let pki: TlsFixtures;
let server: Server;
let port: number;
let clientCertSeen: boolean;

beforeAll(async () => {
  pki = makeTlsFixtures();
  server = createServer({ cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true, rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, (socket) => {
    clientCertSeen = socket.authorized;
    socket.end('hello');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  pki.cleanup();
});

async function handshake(config: Partial<TlsConfig>, defaultServerName = 'localhost', serverPort = port): Promise<TLSSocket> {
  const options = await tlsConnectionOptions(compileTlsConfig(tlsConfigSchema.parse(config)), defaultServerName);
  const socket = connect({ ...options, host: '127.0.0.1', port: serverPort });
  try {
    await once(socket, 'secureConnect');
  } catch (error) {
    socket.destroy();
    throw error;
  }
  return socket;
}

describe('TLS options from tls_config', () => {
  it('verifies the server against ca_file and the target host name', async () => {
    const socket = await handshake({ ca_file: pki.caFile });
    expect(socket.authorized).toBe(true);
    socket.destroy();
  });

  it('refuses an unknown CA unless insecure_skip_verify', async () => {
    await expect(handshake({})).rejects.toThrow(/self.signed|unable to (get|verify)/i);
    const socket = await handshake({ insecure_skip_verify: true });
    socket.destroy();
  });

  it('checks the certificate against server_name, not the connected address', async () => {
    await expect(handshake({ ca_file: pki.caFile, server_name: 'other.example' })).rejects.toThrow(/other\.example/);
    const socket = await handshake({ ca_file: pki.caFile }, '127.0.0.1');
    expect(socket.authorized).toBe(true);
    socket.destroy();
  });

  it('refuses a certificate that names the host in its common name alone, as upstream (Go) does', async () => {
    const commonNameOnly = makeTlsFixtures({ serverNames: [] });
    const legacy = createServer({ cert: commonNameOnly.serverCert, key: commonNameOnly.serverKey }, (socket) => socket.end());
    legacy.listen(0, '127.0.0.1');
    await once(legacy, 'listening');
    try {
      // The certificate is CN=localhost, issued by the CA trusted here: only the host name check refuses it.
      await expect(handshake({ ca_file: commonNameOnly.caFile }, 'localhost', (legacy.address() as AddressInfo).port)).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        message: expect.stringMatching(/does not contain a DNS name/),
      });
    } finally {
      legacy.close();
      commonNameOnly.cleanup();
    }
  });

  it('presents cert_file and key_file as the client certificate', async () => {
    clientCertSeen = false;
    const socket = await handshake({ ca_file: pki.caFile, cert_file: pki.clientCertFile, key_file: pki.clientKeyFile });
    socket.resume();
    await once(socket, 'end');
    expect(clientCertSeen).toBe(true);
    socket.destroy();
  });

  it('enforces min_version', async () => {
    await expect(handshake({ ca_file: pki.caFile, min_version: 'TLS13' })).rejects.toThrow(/protocol|version/i);
  });

  it('makes one secure context per content, and a renewed ca_file takes effect at the next probe', async () => {
    const other = makeTlsFixtures();
    const caFile = join(pki.dir, 'rotating-ca.crt');
    try {
      writeFileSync(caFile, pki.ca);
      const config = compileTlsConfig(tlsConfigSchema.parse({ ca_file: caFile }));
      const first = await tlsConnectionOptions(config, 'localhost');
      expect((await tlsConnectionOptions(config, 'localhost')).secureContext).toBe(first.secureContext);
      (await handshake({ ca_file: caFile })).destroy();

      writeFileSync(caFile, other.ca);
      expect((await tlsConnectionOptions(config, 'localhost')).secureContext).not.toBe(first.secureContext);
      await expect(handshake({ ca_file: caFile })).rejects.toThrow(/certificate/i);
    } finally {
      other.cleanup();
    }
  });

  it('verifies nothing with insecure_skip_verify, even against a ca_file that would verify the server, as Go skips it', async () => {
    const options = await tlsConnectionOptions(compileTlsConfig(tlsConfigSchema.parse({ ca_file: pki.caFile, insecure_skip_verify: true })), 'localhost');
    const hostNameChecks: string[] = [];
    const socket = connect({
      ...options,
      host: '127.0.0.1',
      port,
      checkServerIdentity: (host, certificate) => {
        hostNameChecks.push(host);
        return options.checkServerIdentity?.(host, certificate);
      },
    });
    await once(socket, 'secureConnect');
    // The context trusts nothing, so OpenSSL found no anchor for what the server sent (here the leaf and the CA)
    // and Node made no host name check.
    expect(socket.authorized).toBe(false);
    expect(String(socket.authorizationError)).toMatch(/^(UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN)$/);
    expect(hostNameChecks).toEqual([]);
    socket.destroy();
    // The same ca_file verifying is another context, which verifies.
    const verified = await handshake({ ca_file: pki.caFile });
    expect(verified.authorized).toBe(true);
    expect((await tlsConnectionOptions(compileTlsConfig(tlsConfigSchema.parse({ ca_file: pki.caFile })), 'localhost')).secureContext).not.toBe(options.secureContext);
    verified.destroy();
  });

  it('gives probes that read a ca_file at once the same context, and one that reads after a change the new one', async () => {
    const other = makeTlsFixtures();
    const caFile = join(pki.dir, 'shared-ca.crt');
    try {
      writeFileSync(caFile, pki.ca);
      const config = compileTlsConfig(tlsConfigSchema.parse({ ca_file: caFile }));
      const together = await Promise.all(Array.from({ length: 16 }, () => tlsConnectionOptions(config, 'localhost')));
      expect(new Set(together.map((options) => options.secureContext)).size).toBe(1);
      writeFileSync(caFile, other.ca);
      const after = await Promise.all(Array.from({ length: 4 }, () => tlsConnectionOptions(config, 'localhost')));
      expect(new Set(after.map((options) => options.secureContext)).size).toBe(1);
      expect(after[0].secureContext).not.toBe(together[0].secureContext);
      await expect(handshake({ ca_file: caFile })).rejects.toThrow(/certificate/i);
    } finally {
      other.cleanup();
    }
  });

  it('names the field when a file cannot be read', async () => {
    await expect(tlsConnectionOptions(compileTlsConfig(tlsConfigSchema.parse({ ca_file: '/nonexistent/ca.pem' })), 'x')).rejects.toThrow(/tls_config\.ca_file: cannot read \/nonexistent\/ca\.pem/);
  });
});

describe("the cipher suites offered: Go's client defaults, in Go's order", () => {
  /** A server that takes the client's order (as nginx and OpenSSL do by default; Node's own takes its), with `options`. */
  async function serverWith(options: Parameters<typeof createServer>[0]): Promise<{ port: number; close(): void }> {
    const listening = createServer({ cert: pki.serverCert, key: pki.serverKey, honorCipherOrder: false, ...options }, (socket) => socket.end('hello'));
    listening.on('tlsClientError', () => undefined);
    listening.listen(0, '127.0.0.1');
    await once(listening, 'listening');
    return { port: (listening.address() as AddressInfo).port, close: () => listening.close() };
  }
  const negotiated = async (serverPort: number): Promise<string | undefined> => {
    const socket = await handshake({ ca_file: pki.caFile }, 'localhost', serverPort);
    const cipher = tlsConnectionState(socket).cipher;
    socket.destroy();
    return cipher;
  };

  it('gets TLS 1.3 AES-128-GCM and TLS 1.2 ECDHE AES-128-GCM from a server that offers everything, as upstream does', async () => {
    // OpenSSL's own order starts with AES-256-GCM-SHA384: such a server picked that for us and AES-128 for upstream.
    const tls13 = await serverWith({ minVersion: 'TLSv1.3' });
    const tls12 = await serverWith({ maxVersion: 'TLSv1.2', ciphers: 'ALL' });
    try {
      expect(await negotiated(tls13.port)).toBe('TLS_AES_128_GCM_SHA256');
      expect(await negotiated(tls12.port)).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
    } finally {
      tls13.close();
      tls12.close();
    }
  });

  it('offers no suite without ECDHE, as Go since 1.22: a server with only those fails the handshake', async () => {
    // RSA key exchange needs an RSA certificate; a self-signed one will do, as no handshake gets that far.
    const dir = mkdtempSync(join(tmpdir(), 'probekit-rsa-kex-'));
    execFileSync(OPENSSL, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', '/CN=localhost', '-days', '1'], {
      stdio: 'ignore',
    });
    const rsaOnly = await serverWith({ cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')), maxVersion: 'TLSv1.2', ciphers: 'AES128-GCM-SHA256:AES256-SHA' });
    rmSync(dir, { recursive: true, force: true });
    try {
      await expect(negotiated(rsaOnly.port)).rejects.toThrow(/handshake failure|no shared cipher/i);
    } finally {
      rsaOnly.close();
    }
  });
});

/** The certificate's serial as openssl prints it (`serial=00AB...`), lower-cased without leading zero bytes. */
function opensslSerial(file: string): string {
  const printed = execFileSync(OPENSSL, ['x509', '-in', file, '-noout', '-serial'], { encoding: 'utf8' }).trim();
  return printed
    .replace(/^serial=/, '')
    .toLowerCase()
    .replace(/^(00)+/, '');
}

describe('TLS metrics', () => {
  it('records expiries, leaf information, version and cipher, from the session as the handshake left it', async () => {
    const socket = await handshake({ ca_file: pki.caFile });
    const state = tlsConnectionState(socket);
    // The server may close before the probe records its metrics; a closed socket tells nothing of its session.
    socket.destroy();
    await once(socket, 'close');
    expect(socket.getCipher()).toBeNull();
    const registry = new ProbeRegistry();
    recordTlsMetrics(state, registry, true);
    const samples = parseMetrics(registry.text());
    expect(metricValue(samples, 'probe_ssl_earliest_cert_expiry')).toBe(pki.serverNotAfter);
    expect(metricValue(samples, 'probe_ssl_last_chain_expiry_timestamp_seconds')).toBe(pki.serverNotAfter);
    expect(metricValue(samples, 'probe_tls_version_info', { version: 'TLS 1.2' })).toBe(1);
    const cipher = samples.find((sample) => sample.name === 'probe_tls_cipher_info');
    expect(cipher?.labels.cipher).toMatch(/^TLS_ECDHE_ECDSA_WITH_/);
    const info = samples.find((sample) => sample.name === 'probe_ssl_last_chain_info');
    const raw = new X509Certificate(readFileSync(pki.serverCertFile)).raw;
    expect(info?.labels).toEqual({
      fingerprint_sha256: createHash('sha256').update(raw).digest('hex'),
      subject: 'CN=localhost,O=probekit tests',
      issuer: 'CN=probekit test CA,O=probekit tests',
      subjectalternative: 'localhost',
      // As openssl prints it, in lower case and without the sign byte: Go's %x of the number's bytes.
      serialnumber: opensslSerial(pki.serverCertFile),
    });
  });

  it('writes serial numbers as Go formats their bytes', () => {
    expect(serialNumberLabel('00FF01')).toBe('ff01');
    expect(serialNumberLabel('ABC')).toBe('0abc');
    expect(serialNumberLabel('0A1B')).toBe('0a1b');
    expect(serialNumberLabel('00')).toBe('');
  });

  describe('with a CA that expires before the server certificate', () => {
    let shortLived: TlsFixtures;
    beforeAll(() => {
      shortLived = makeTlsFixtures({ caDays: 30, serverDays: 60 });
    });
    afterAll(() => shortLived.cleanup());

    async function metricsFrom(serverCertificates: string, config: Partial<TlsConfig>): Promise<ReturnType<typeof parseMetrics>> {
      const sending = createServer({ cert: serverCertificates, key: shortLived.serverKey }, (socket) => socket.end());
      await once(sending.listen(0, '127.0.0.1'), 'listening');
      try {
        const options = await tlsConnectionOptions(compileTlsConfig(tlsConfigSchema.parse(config)), 'localhost');
        const socket = connect({ ...options, host: '127.0.0.1', port: (sending.address() as AddressInfo).port });
        await once(socket, 'secureConnect');
        const registry = new ProbeRegistry();
        recordTlsMetrics(tlsConnectionState(socket), registry, !config.insecure_skip_verify);
        socket.destroy();
        return parseMetrics(registry.text());
      } finally {
        sending.close();
      }
    }

    // As Go: the earliest expiry covers the certificates the server sent; the last chain, the verified chain.
    it('counts only the certificates the server sent for the earliest expiry', async () => {
      const samples = await metricsFrom(shortLived.serverCert, { ca_file: shortLived.caFile });
      expect(metricValue(samples, 'probe_ssl_earliest_cert_expiry')).toBe(shortLived.serverNotAfter);
      expect(metricValue(samples, 'probe_ssl_last_chain_expiry_timestamp_seconds')).toBe(shortLived.caNotAfter);
      expect(samples.find((sample) => sample.name === 'probe_ssl_last_chain_info')?.labels.subject).toBe('CN=localhost,O=probekit tests');
    });

    it('counts the CA when the server sends it too', async () => {
      const samples = await metricsFrom(`${shortLived.serverCert}${shortLived.ca}`, { insecure_skip_verify: true });
      expect(metricValue(samples, 'probe_ssl_earliest_cert_expiry')).toBe(shortLived.caNotAfter);
      expect(metricValue(samples, 'probe_ssl_last_chain_expiry_timestamp_seconds')).toBe(UNVERIFIED_CHAIN_EXPIRY);
    });
  });

  it('reports no verified chain when verification was skipped, as upstream', async () => {
    const socket = await handshake({ insecure_skip_verify: true });
    const registry = new ProbeRegistry();
    recordTlsMetrics(tlsConnectionState(socket), registry, false);
    socket.destroy();
    const samples = parseMetrics(registry.text());
    expect(metricValue(samples, 'probe_ssl_last_chain_expiry_timestamp_seconds')).toBe(UNVERIFIED_CHAIN_EXPIRY);
    expect(metricValue(samples, 'probe_ssl_earliest_cert_expiry')).toBe(pki.serverNotAfter);
  });
});
