/** Ending a verified chain in the trust anchor the server did not send, as Go's VerifiedChains do. */
import { X509Certificate } from 'node:crypto';
import { trustAnchors, verifiedChain } from '../../../src/probers/shared/trust-anchors';
import { makeTlsFixtures, type TlsFixtures } from '../../../loopback/tls-fixtures';

let pki: TlsFixtures;
let other: TlsFixtures;
beforeAll(() => {
  pki = makeTlsFixtures();
  other = makeTlsFixtures();
});
afterAll(() => {
  pki.cleanup();
  other.cleanup();
});

const subjects = (chain: X509Certificate[]): string[] => chain.map((certificate) => certificate.fingerprint256);

it('appends the anchor that issued the last certificate sent, once that anchor is known', () => {
  const leaf = new X509Certificate(pki.serverCert);
  const ca = new X509Certificate(pki.ca);
  // Unknown before its ca is configured: the chain is what was sent.
  expect(subjects(verifiedChain([leaf]))).toEqual(subjects([leaf]));
  // Both test CAs have the same subject; the other one comes first and must be passed over by its key.
  trustAnchors.add(`${other.ca}\n${pki.ca}`);
  expect(subjects(verifiedChain([leaf]))).toEqual(subjects([leaf, ca]));
});

it('ends at a self-signed certificate the server sent', () => {
  const chain = [new X509Certificate(pki.serverCert), new X509Certificate(pki.ca)];
  expect(subjects(verifiedChain(chain))).toEqual(subjects(chain));
});
