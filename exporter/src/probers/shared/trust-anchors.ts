/**
 * The trust anchors a verified chain can end in: every configured ca, Node's bundled roots and
 * NODE_EXTRA_CA_CERTS. Servers seldom send their root, yet Go's VerifiedChains end in it, so
 * probe_ssl_last_chain_expiry_timestamp_seconds counts its expiry. Node's getPeerCertificate(true) finds it
 * too, but building its detailed objects was the largest cost of a verified TLS probe in our benchmark.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Issuers found, by the fingerprint of the certificate they issued; bounded, the oldest goes first. */
const ISSUERS_KEPT = 1024;

class TrustAnchors {
  private readonly bySubject = new Map<string, X509Certificate[]>();
  private readonly known = new Set<string>();
  private readonly issuers = new Map<string, X509Certificate | null>();
  private defaultsAdded = false;

  /** Adds the certificates of a PEM bundle (a ca or ca_file); what does not parse is left to OpenSSL to refuse. */
  add(pem: string): void {
    for (const block of pem.match(PEM_CERTIFICATE) ?? []) {
      let certificate: X509Certificate;
      try {
        certificate = new X509Certificate(block);
      } catch {
        continue;
      }
      if (this.known.has(certificate.fingerprint256)) continue;
      this.known.add(certificate.fingerprint256);
      this.bySubject.set(certificate.subject, [...(this.bySubject.get(certificate.subject) ?? []), certificate]);
      // A new anchor may issue what an earlier lookup found no issuer for.
      for (const [fingerprint, issuer] of this.issuers) if (issuer === null) this.issuers.delete(fingerprint);
    }
  }

  /** The anchor that issued `certificate`: names and key identifiers match and its key verifies the signature. */
  issuerOf(certificate: X509Certificate): X509Certificate | undefined {
    this.addDefaults();
    const fingerprint = certificate.fingerprint256;
    let issuer = this.issuers.get(fingerprint);
    if (issuer === undefined) {
      const candidates = this.bySubject.get(certificate.issuer) ?? [];
      issuer = candidates.find((candidate) => certificate.checkIssued(candidate) && certificate.verify(candidate.publicKey)) ?? null;
      if (this.issuers.size >= ISSUERS_KEPT) this.issuers.delete(this.issuers.keys().next().value as string);
      this.issuers.set(fingerprint, issuer);
    }
    return issuer ?? undefined;
  }

  /** Node's own trust store, read at the first lookup rather than at start-up. */
  private addDefaults(): void {
    if (this.defaultsAdded) return;
    this.defaultsAdded = true;
    for (const root of rootCertificates) this.add(root);
    const extra = process.env.NODE_EXTRA_CA_CERTS;
    if (extra) {
      try {
        this.add(readFileSync(extra, 'utf8'));
      } catch {
        // Node itself warns at start-up when this file cannot be read.
      }
    }
  }
}

export const trustAnchors = new TrustAnchors();

/**
 * The verified chain of a connection whose certificates `sent` (leaf first, each signed by the next) were
 * verified: ending in the self-signed certificate the server sent, else in the anchor that issued the last one.
 */
export function verifiedChain(sent: readonly X509Certificate[]): X509Certificate[] {
  const top = sent[sent.length - 1];
  if (top === undefined || top.checkIssued(top)) return [...sent];
  const anchor = trustAnchors.issuerOf(top);
  return anchor ? [...sent, anchor] : [...sent];
}
