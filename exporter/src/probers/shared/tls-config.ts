/** tls_config, as the http, tcp, dns and grpc sections have it (prometheus/common's TLS settings). */
import type { SecureVersion } from 'node:tls';
import { z } from 'zod';

const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const satisfies Record<string, SecureVersion>;

const tlsVersion = z.enum(Object.keys(TLS_VERSIONS) as [keyof typeof TLS_VERSIONS]);

export const tlsConfigSchema = z.strictObject({
  ca: z.string().optional(),
  ca_file: z.string().optional(),
  cert: z.string().optional(),
  cert_file: z.string().optional(),
  key: z.string().optional(),
  key_file: z.string().optional(),
  server_name: z.string().optional(),
  insecure_skip_verify: z.boolean().default(false),
  min_version: tlsVersion.optional(),
  max_version: tlsVersion.optional(),
});

/** What a section without tls_config gets. */
export const DEFAULT_TLS_CONFIG = { insecure_skip_verify: false } as const;

export type TlsConfig = z.output<typeof tlsConfigSchema>;

/**
 * tls_config as the TLS helper uses it. Files stay paths: they are read at every probe, so a renewed
 * certificate is used without a reload.
 */
export interface TlsSettings {
  readonly ca?: string;
  readonly caFile?: string;
  readonly cert?: string;
  readonly certFile?: string;
  readonly key?: string;
  readonly keyFile?: string;
  /** Checked against the certificate, and sent as SNI when it is a name; unset, the target's host. */
  readonly serverName?: string;
  readonly insecureSkipVerify: boolean;
  readonly minVersion?: SecureVersion;
  readonly maxVersion?: SecureVersion;
}

export function compileTlsConfig(config: TlsConfig): TlsSettings {
  return {
    ca: config.ca,
    caFile: config.ca_file,
    cert: config.cert,
    certFile: config.cert_file,
    key: config.key,
    keyFile: config.key_file,
    // An empty server_name means none, as upstream reads it.
    serverName: config.server_name || undefined,
    insecureSkipVerify: config.insecure_skip_verify,
    minVersion: config.min_version && TLS_VERSIONS[config.min_version],
    maxVersion: config.max_version && TLS_VERSIONS[config.max_version],
  };
}

export function tlsConfigWithAbsolutePaths(config: TlsConfig, absolute: (path: string) => string): TlsConfig {
  const resolve = (path: string | undefined): string | undefined => (path === undefined || path === '' ? path : absolute(path));
  return { ...config, ca_file: resolve(config.ca_file), cert_file: resolve(config.cert_file), key_file: resolve(config.key_file) };
}
