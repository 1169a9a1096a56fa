/** tls_config, as the http, tcp, dns and grpc sections have it (prometheus/common's TLS settings). */
import { z } from 'zod';

const tlsVersion = z.enum(['TLS10', 'TLS11', 'TLS12', 'TLS13']);

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
