/** The grpc prober's definition: its section of a module, with upstream's defaults, and the section compiled. */
import { z } from 'zod';
import { defineProber } from '../definition';
import { compileIpPreference, ipProtocolFields, type IpPreference } from '../shared/ip-protocol';
import { compileTlsConfig, DEFAULT_TLS_CONFIG, tlsConfigSchema, tlsConfigWithAbsolutePaths, type TlsSettings } from '../shared/tls-config';

export const grpcSectionSchema = z.strictObject({
  /** The service name sent in the health check; empty asks about the server as a whole. */
  service: z.string().default(''),
  tls: z.boolean().default(false),
  tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
  ...ipProtocolFields,
});

export type GrpcSection = z.output<typeof grpcSectionSchema>;

export interface GrpcSettings {
  readonly ip: IpPreference;
  /** The service name sent in the health check. */
  readonly service: string;
  readonly tls: boolean;
  readonly tlsConfig: TlsSettings;
}

export const grpcDefinition = defineProber({
  name: 'grpc',
  schema: grpcSectionSchema,
  withAbsolutePaths: (grpc, absolute) => ({ ...grpc, tls_config: tlsConfigWithAbsolutePaths(grpc.tls_config, absolute) }),
  compile: (grpc): GrpcSettings => ({ ip: compileIpPreference(grpc), service: grpc.service, tls: grpc.tls, tlsConfig: compileTlsConfig(grpc.tls_config) }),
});
