/**
 * Go's crypto/tls facts both sides of the exporter need: the names Go gives cipher suites (a web config's
 * `cipher_suites` are written in them) and what Go's client offers by default, which upstream's probes offer.
 */
import { readFileSync } from 'node:fs';

/** Go's names for the TLS 1.2 cipher suites it accepts, and OpenSSL's for the same suite. */
export const TLS12_CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
};

/**
 * TLS 1.3's suites, in the order Go's client offers them on a CPU with AES instructions. Go accepts their names
 * in a web config and, as TLS 1.3 is not configurable there, uses all three anyway.
 */
export const TLS13_CIPHER_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/**
 * The TLS 1.2 suites Go's client offers by default, in its order on a CPU with AES-GCM instructions, as built for
 * 0.28 (its go.mod says 1.24, so suites without ECDHE are off since Go 1.22 and 3DES since 1.23; CBC with SHA-256
 * and RC4 never were on). Without them Go puts ChaCha20-Poly1305 first (GO_CLIENT_TLS12_SUITES_NO_AES).
 */
const GO_CLIENT_TLS12_SUITES = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
];
const CHACHA20 = (name: string): boolean => name.includes('CHACHA20');
const GO_CLIENT_TLS12_SUITES_NO_AES = [...GO_CLIENT_TLS12_SUITES.filter(CHACHA20), ...GO_CLIENT_TLS12_SUITES.filter((name) => !CHACHA20(name))];
const GO_CLIENT_TLS13_SUITES_NO_AES = [...TLS13_CIPHER_SUITES.filter(CHACHA20), ...TLS13_CIPHER_SUITES.filter((name) => !CHACHA20(name))];

/**
 * Whether Go would take this CPU to have AES-GCM instructions (crypto/tls's hasAESGCMHardwareSupport): on x86-64
 * `aes` and `pclmulqdq` among /proc/cpuinfo's flags, on arm64 `aes` and `pmull` among its Features. A machine
 * whose cpuinfo says nothing either way (not Linux, another architecture) is taken to have them.
 */
export function hasAesGcmInstructions(cpuinfo: string | undefined, arch: string): boolean {
  const needed = arch === 'x64' ? ['aes', 'pclmulqdq'] : arch === 'arm64' ? ['aes', 'pmull'] : undefined;
  const line = cpuinfo === undefined ? undefined : /^(?:flags|Features)\s*:(.*)$/m.exec(cpuinfo)?.[1];
  if (needed === undefined || line === undefined) return true;
  const features = new Set(line.trim().split(/\s+/));
  return needed.every((feature) => features.has(feature));
}

/**
 * The probes' cipher list for OpenSSL: Go's client defaults in Go's order for this CPU. A server that follows the
 * client's preference (nginx and OpenSSL by default) then picks what it picks for upstream, which
 * probe_tls_cipher_info shows: OpenSSL's own order starts TLS 1.3 with AES-256-GCM-SHA384, and a server would pick
 * that for us and AES-128-GCM-SHA256 for upstream. A server that only has suites Go leaves out (RSA key exchange,
 * 3DES) fails the handshake for both.
 */
export function goClientCiphers(aesGcmInstructions: boolean): string {
  const tls13 = aesGcmInstructions ? TLS13_CIPHER_SUITES : GO_CLIENT_TLS13_SUITES_NO_AES;
  const tls12 = aesGcmInstructions ? GO_CLIENT_TLS12_SUITES : GO_CLIENT_TLS12_SUITES_NO_AES;
  return [...tls13, ...tls12.map((name) => TLS12_CIPHER_SUITES[name])].join(':');
}

function cpuinfo(): string | undefined {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return undefined;
  }
}

/** Go's client cipher list for the CPU this process runs on. */
export const GO_CLIENT_CIPHERS = goClientCiphers(hasAesGcmInstructions(cpuinfo(), process.arch));
