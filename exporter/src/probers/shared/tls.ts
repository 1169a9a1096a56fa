/**
 * TLS for every prober: Node TLS options from a module's tls_config, and the TLS metrics upstream records
 * from an established connection (certificate expiries, leaf certificate, version, cipher).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { checkServerIdentity, createSecureContext, type ConnectionOptions, type PeerCertificate, type SecureContext, type SecureContextOptions, type SecureVersion, type TLSSocket } from 'node:tls';
import type { TlsSettings } from './tls-config';
import { readConfiguredText } from './config-file';
import { GO_CLIENT_CIPHERS } from './go-tls';
import { trustAnchors, verifiedChain } from './trust-anchors';
import { PROBE_SSL_EARLIEST_CERT_EXPIRY, PROBE_SSL_LAST_CHAIN_EXPIRY, PROBE_SSL_LAST_CHAIN_INFO, PROBE_TLS_CIPHER_INFO, PROBE_TLS_VERSION_INFO, gauge, type ProbeRegistry } from '../../metrics';

/** The label values of probe_tls_version_info, as upstream writes them. */
const VERSION_LABELS: Record<string, string> = { TLSv1: 'TLS 1.0', 'TLSv1.1': 'TLS 1.1', 'TLSv1.2': 'TLS 1.2', 'TLSv1.3': 'TLS 1.3' };

/**
 * Go's zero time as a Unix timestamp: what upstream reports for the last chain expiry when no chain was
 * verified (insecure_skip_verify). Kept so that alerts written against upstream behave the same.
 */
export const UNVERIFIED_CHAIN_EXPIRY = -62135596800;

/** Secure contexts by their material; enough for every module of a large config, bounded for rotating files. */
const SECURE_CONTEXTS_KEPT = 256;
const secureContexts = new Map<string, SecureContext>();
/**
 * A small number for each material text (a CA bundle, a certificate, a key) a context was made with. A file's
 * text is one string while the file is unchanged (readConfiguredText) and a module's inline text is its config's,
 * so a probe finds its context by the string's cached hash, where hashing the material's text cost every probe
 * in proportion to the size of its CA bundle.
 */
const materialIds = new Map<string, number>();

function materialId(text: string | undefined): string {
  if (text === undefined) return '';
  let id = materialIds.get(text);
  if (id === undefined) {
    id = materialIds.size;
    materialIds.set(text, id);
  }
  return String(id);
}

/** The options of a context: its material, and whether it verifies (an empty trust store when it does not). */
interface ContextMaterial {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly minVersion?: SecureVersion;
  readonly maxVersion?: SecureVersion;
  readonly verify: boolean;
}

/**
 * The secure context for `material`, made once per distinct content: building one (parsing keys and
 * certificates, setting up OpenSSL) cost more CPU than the handshake's own work in our benchmark. Keyed by
 * content, not by file name, so a renewed certificate gets a new context at the next probe. A context that does
 * not verify (insecure_skip_verify) trusts nothing: OpenSSL then stops building the chain at the leaf, and Node
 * makes no host name check, where with a trust store both ran on every handshake only for the result to be
 * ignored. Go's client with InsecureSkipVerify verifies nothing either.
 */
function secureContextFor(material: ContextMaterial): SecureContext {
  if (materialIds.size > 4 * SECURE_CONTEXTS_KEPT) {
    materialIds.clear();
    secureContexts.clear();
  }
  const key = `${material.verify ? 'verify' : 'trust-none'}:${materialId(material.ca)}:${materialId(material.cert)}:${materialId(material.key)}:${material.minVersion ?? ''}:${material.maxVersion ?? ''}`;
  let context = secureContexts.get(key);
  if (context === undefined) {
    const options: SecureContextOptions = { cert: material.cert, key: material.key, minVersion: material.minVersion, maxVersion: material.maxVersion, ciphers: GO_CLIENT_CIPHERS };
    // An empty list, unlike no ca at all, leaves Node's root certificates out too.
    options.ca = material.verify ? material.ca : [];
    context = createSecureContext(options);
    if (material.verify && material.ca !== undefined) trustAnchors.add(material.ca);
    if (secureContexts.size >= SECURE_CONTEXTS_KEPT) secureContexts.delete(secureContexts.keys().next().value as string);
    secureContexts.set(key, context);
  }
  return context;
}

/**
 * Node TLS options for `config`. Files (ca_file, cert_file, key_file) are read now, at every probe, so a
 * renewed certificate is used without a reload (a ca_file is read even when insecure_skip_verify leaves it
 * unused, as upstream reads it, so that a missing file fails the probe alike). `defaultServerName` (the target
 * host, or the Host header) applies when the config names none. Rejects with a message naming the field when a
 * file cannot be read.
 */
export async function tlsConnectionOptions(config: TlsSettings, defaultServerName: string): Promise<ConnectionOptions> {
  const serverName = config.serverName || defaultServerName;
  const ca = config.ca ?? (config.caFile ? await readField('ca_file', config.caFile) : undefined);
  const cert = config.cert ?? (config.certFile ? await readField('cert_file', config.certFile) : undefined);
  const key = config.key ?? (config.keyFile ? await readField('key_file', config.keyFile) : undefined);
  const verify = !config.insecureSkipVerify;
  const options: ConnectionOptions = {
    secureContext: secureContextFor({ ca, cert, key, minVersion: config.minVersion, maxVersion: config.maxVersion, verify }),
    rejectUnauthorized: verify,
    // Verification is against the configured server name even though the socket connects to an IP.
    checkServerIdentity: (_host, certificate) => checkHostName(serverName, certificate),
  };
  // SNI carries host names only (RFC 6066); an IP server name is still what the certificate is checked against.
  if (serverName && isIP(serverName) === 0) options.servername = serverName;
  return options;
}

/** Server names and the alternative names that passed the check for them: a target sends the same certificate to every probe. */
const HOST_NAME_CHECKS_KEPT = 1024;
const passedHostNameChecks = new Set<string>();

/**
 * The host name check of Go's crypto/x509 (VerifyHostname, since Go 1.15), which upstream's probes make:
 * against the certificate's subject alternative names alone. Node's checkServerIdentity falls back to the
 * subject's common name when the certificate has no DNS names; upstream refuses such a certificate
 * ("certificate relies on legacy Common Name field"), so the check is given the alternative names only.
 */
function checkHostName(serverName: string, certificate: Pick<PeerCertificate, 'subjectaltname'>): Error | undefined {
  const checked = `${serverName}\n${certificate.subjectaltname}`;
  if (passedHostNameChecks.has(checked)) return undefined;
  const refused = checkServerIdentity(serverName, { subjectaltname: certificate.subjectaltname } as PeerCertificate);
  if (refused === undefined) {
    if (passedHostNameChecks.size >= HOST_NAME_CHECKS_KEPT) passedHostNameChecks.delete(passedHostNameChecks.values().next().value as string);
    passedHostNameChecks.add(checked);
  }
  return refused;
}

/**
 * Node's TLS client ends each verified handshake by calling the socket's getPeerCertificate(true) and hands
 * what it returns to checkServerIdentity, which reads the leaf's alternative names from it. That call builds
 * every certificate up to the trust anchor as a detailed object (three fingerprints, the public key, each
 * name as an object): 10 to 18 % of a verified TLS probe's CPU, measured side by side. This connection answers
 * the call, once, with the alternative names alone, from the certificates its metrics read anyway. Should a
 * Node version stop making the call, nothing changes but the cost.
 */
export function answerHostNameCheckFromLeaf(socket: TLSSocket): void {
  Reflect.defineProperty(socket, 'getPeerCertificate', {
    configurable: true,
    writable: true,
    value: (): Pick<PeerCertificate, 'subjectaltname'> => {
      Reflect.deleteProperty(socket, 'getPeerCertificate');
      return { subjectaltname: certificatesSent(socket)[0]?.subjectAltName ?? '' };
    },
  });
}

function readField(field: string, path: string): Promise<string> {
  return readConfiguredText(`tls_config.${field}`, path);
}

/** Each connection's certificates, read once (see sentCertificates). */
const sentByConnection = new WeakMap<TLSSocket, readonly X509Certificate[]>();

/** The certificates the server of `socket` sent, leaf first, read from the connection at the first call. */
function certificatesSent(socket: TLSSocket): readonly X509Certificate[] {
  let sent = sentByConnection.get(socket);
  if (sent === undefined) {
    sent = sentCertificates(socket);
    sentByConnection.set(socket, sent);
  }
  return sent;
}

/**
 * The certificates the server sent, leaf first, each followed by its issuer, as Go's PeerCertificates.
 * Once per connection: on Node 20 getPeerX509Certificate takes the leaf out of the connection's peer chain,
 * so a second call (or a later getPeerCertificate) finds nothing.
 */
function sentCertificates(socket: TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  let current = socket.getPeerX509Certificate();
  while (current && !seen.has(current.fingerprint256)) {
    seen.add(current.fingerprint256);
    chain.push(current);
    current = current.issuerCertificate;
  }
  return chain;
}

const unixSeconds = (date: string): number => Math.floor(Date.parse(date) / 1000);

/** Go's pkix.Name.String(): the attributes in reverse order, comma-separated. */
function distinguishedName(text: string): string {
  return text.split('\n').filter(Boolean).reverse().join(',');
}

function dnsNames(subjectAltName: string | undefined): string {
  if (!subjectAltName) return '';
  return subjectAltName
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4))
    .join(',');
}

/**
 * The TLS metrics a prober reports beyond the three every prober has (earliest expiry, leaf certificate,
 * version). Upstream's probers differ here: http reports both, tcp no cipher, grpc neither; the metric
 * names of each prober are kept as upstream's.
 */
export interface OptionalTlsMetrics {
  readonly lastChainExpiry: boolean;
  readonly cipher: boolean;
}

const ALL_TLS_METRICS: OptionalTlsMetrics = { lastChainExpiry: true, cipher: true };

/**
 * What a TLS connection established, as Go's ConnectionState: read once, right after the handshake, since
 * the metrics are recorded later, when the server may have closed the connection already (a socket that is
 * closed tells nothing of its session).
 */
export interface TlsConnectionState {
  /** The certificates the server sent, leaf first. */
  readonly sent: readonly X509Certificate[];
  readonly authorized: boolean;
  /** As Node names it: TLSv1.3... */
  readonly protocol: string;
  readonly cipher: string;
}

export function tlsConnectionState(socket: TLSSocket): TlsConnectionState {
  const negotiated = socket.getCipher();
  return { sent: certificatesSent(socket), authorized: socket.authorized, protocol: socket.getProtocol() ?? '', cipher: negotiated.standardName ?? negotiated.name };
}

/**
 * The serial number as upstream (since 0.26) writes it: the number's big-endian bytes in lower-case hex,
 * without the sign byte DER may add, each byte two digits (so a leading zero nibble stays).
 */
export function serialNumberLabel(serialHex: string): string {
  const digits = BigInt(`0x${serialHex}`).toString(16);
  if (digits === '0') return '';
  return digits.length % 2 === 1 ? `0${digits}` : digits;
}

/**
 * Registers and sets the TLS metrics of a connection: probe_ssl_earliest_cert_expiry,
 * probe_ssl_last_chain_info, probe_tls_version_info, and (as `optional` says, by default both)
 * probe_ssl_last_chain_expiry_timestamp_seconds and probe_tls_cipher_info. `verified` says whether the
 * chain was verified (not insecure_skip_verify).
 */
export function recordTlsMetrics(state: TlsConnectionState, registry: ProbeRegistry, verified: boolean, optional: OptionalTlsMetrics = ALL_TLS_METRICS): void {
  const earliest = gauge(registry, PROBE_SSL_EARLIEST_CERT_EXPIRY);
  const version = gauge(registry, PROBE_TLS_VERSION_INFO, ['version']);
  const lastChain = optional.lastChainExpiry ? gauge(registry, PROBE_SSL_LAST_CHAIN_EXPIRY) : undefined;
  const info = gauge(registry, PROBE_SSL_LAST_CHAIN_INFO, ['fingerprint_sha256', 'subject', 'issuer', 'subjectalternative', 'serialnumber']);
  const cipher = optional.cipher ? gauge(registry, PROBE_TLS_CIPHER_INFO, ['cipher']) : undefined;

  const sent = state.sent;
  earliest.set(sent.length > 0 ? earliestExpiry(sent) : 0);
  lastChain?.set(verified && state.authorized && sent.length > 0 ? earliestExpiry(verifiedChain(sent)) : UNVERIFIED_CHAIN_EXPIRY);
  version.set({ version: VERSION_LABELS[state.protocol] ?? 'unknown' }, 1);
  cipher?.set({ cipher: state.cipher }, 1);
  const leaf = sent[0];
  if (leaf) info.set(leafLabels(leaf), 1);
}

const earliestExpiry = (chain: readonly X509Certificate[]): number => Math.min(...chain.map((certificate) => expiryOf(certificate)));

/** What the metrics take from a certificate, by its SHA-256 fingerprint: a target sends the same one to every probe. */
interface CertificateFacts {
  readonly expiry: number;
  /** The labels of probe_ssl_last_chain_info when it is the leaf; made at its first use as one. */
  leafLabels?: Record<string, string>;
}

/** Enough for the certificates of every target of a large config; bounded for targets that rotate them. */
const CERTIFICATE_FACTS_KEPT = 1024;
const certificateFacts = new Map<string, CertificateFacts>();

/**
 * The facts of `certificate`, read from it once per distinct certificate: reading subject, issuer, alternative
 * names and dates out of a certificate (each a parse in OpenSSL and a string to split) cost more CPU per TLS
 * probe than the rest of our metrics together.
 */
function factsOf(certificate: X509Certificate): CertificateFacts {
  const key = certificate.fingerprint256;
  let facts = certificateFacts.get(key);
  if (facts === undefined) {
    facts = { expiry: unixSeconds(certificate.validTo) };
    if (certificateFacts.size >= CERTIFICATE_FACTS_KEPT) certificateFacts.delete(certificateFacts.keys().next().value as string);
    certificateFacts.set(key, facts);
  }
  return facts;
}

const expiryOf = (certificate: X509Certificate): number => factsOf(certificate).expiry;

function leafLabels(leaf: X509Certificate): Record<string, string> {
  const facts = factsOf(leaf);
  facts.leafLabels ??= {
    fingerprint_sha256: createHash('sha256').update(leaf.raw).digest('hex'),
    subject: distinguishedName(leaf.subject),
    issuer: distinguishedName(leaf.issuer),
    subjectalternative: dnsNames(leaf.subjectAltName),
    serialnumber: serialNumberLabel(leaf.serialNumber),
  };
  return facts.leafLabels;
}
