import { goClientCiphers, hasAesGcmInstructions } from '../../../src/probers/shared/go-tls';

const X86 = (flags: string): string => `processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: ${flags}\nbugs\t\t: sysret_ss_attrs\n\nprocessor\t: 1\nflags\t\t: ${flags}\n`;
const ARM64 = (features: string): string => `processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: ${features}\nCPU implementer\t: 0x41\n`;

describe("Go's client cipher suites", () => {
  it('takes the CPU to have AES-GCM instructions as Go does: x86-64 aes and pclmulqdq, arm64 aes and pmull', () => {
    expect(hasAesGcmInstructions(X86('fpu sse2 pclmulqdq ssse3 aes avx2'), 'x64')).toBe(true);
    expect(hasAesGcmInstructions(X86('fpu sse2 ssse3 avx2 pclmulqdq'), 'x64')).toBe(false);
    expect(hasAesGcmInstructions(X86('fpu sse2 aes avx2'), 'x64')).toBe(false);
    // A Raspberry Pi 4's Cortex-A72 has no crypto extensions; a Graviton's has.
    expect(hasAesGcmInstructions(ARM64('fp asimd evtstrm crc32 cpuid'), 'arm64')).toBe(false);
    expect(hasAesGcmInstructions(ARM64('fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics'), 'arm64')).toBe(true);
    // Nothing to read: taken to have them.
    expect(hasAesGcmInstructions(undefined, 'x64')).toBe(true);
    expect(hasAesGcmInstructions('processor\t: 0\n', 'arm64')).toBe(true);
  });

  it('offers AES-128-GCM first with AES-GCM instructions and ChaCha20-Poly1305 first without, in both versions, ECDHE only', () => {
    expect(goClientCiphers(true).split(':')).toEqual([
      'TLS_AES_128_GCM_SHA256',
      'TLS_AES_256_GCM_SHA384',
      'TLS_CHACHA20_POLY1305_SHA256',
      'ECDHE-ECDSA-AES128-GCM-SHA256',
      'ECDHE-RSA-AES128-GCM-SHA256',
      'ECDHE-ECDSA-AES256-GCM-SHA384',
      'ECDHE-RSA-AES256-GCM-SHA384',
      'ECDHE-ECDSA-CHACHA20-POLY1305',
      'ECDHE-RSA-CHACHA20-POLY1305',
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-RSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA',
      'ECDHE-RSA-AES256-SHA',
    ]);
    expect(goClientCiphers(false).split(':')).toEqual([
      'TLS_CHACHA20_POLY1305_SHA256',
      'TLS_AES_128_GCM_SHA256',
      'TLS_AES_256_GCM_SHA384',
      'ECDHE-ECDSA-CHACHA20-POLY1305',
      'ECDHE-RSA-CHACHA20-POLY1305',
      'ECDHE-ECDSA-AES128-GCM-SHA256',
      'ECDHE-RSA-AES128-GCM-SHA256',
      'ECDHE-ECDSA-AES256-GCM-SHA384',
      'ECDHE-RSA-AES256-GCM-SHA384',
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-RSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA',
      'ECDHE-RSA-AES256-SHA',
    ]);
  });
});
