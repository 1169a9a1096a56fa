/** The grpc prober's definition: its section of a module, with upstream's defaults. */
import { z } from 'zod';
import { defineProber } from '../definition';
import { ipProtocolFields } from '../shared/ip-protocol';
import { DEFAULT_TLS_CONFIG, tlsConfigSchema } from '../shared/tls-config';

export const grpcSectionSchema = z.strictObject({
  /** The service name sent in the health check; empty asks about the server as a whole. */
  service: z.string().default(''),
  tls: z.boolean().default(false),
  tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
  ...ipProtocolFields,
});

export type GrpcSection = z.output<typeof grpcSectionSchema>;

export const grpcDefinition = defineProber({ name: 'grpc', schema: grpcSectionSchema, rules: () => [] });
