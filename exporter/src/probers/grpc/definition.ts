/** The grpc prober's definition: its section of a module, with upstream's defaults, and the section compiled. */
import { z } from 'zod';
import { accepted, defineProber, refused, type TargetGrammar } from '../definition';
import { hostProblem, portNumber, portProblem, splitHostPort, unbracket } from '../shared/host-port';
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

/** The server a grpc probe checks; without a port, 443 with TLS and 80 without. */
export interface GrpcServer {
  readonly host: string;
  readonly port?: number;
  /** A path written after the address (`https://host:443/health`); the prober does not use it. */
  readonly ignoredPath?: string;
}

/** `host:port` or `host`, optionally written as an http:// or https:// URL whose path is ignored, as upstream reads it. */
export const grpcTarget: TargetGrammar<GrpcServer> = {
  parse(target) {
    const withoutScheme = target.replace(/^https?:\/\//, '');
    const hostAndPort = withoutScheme.replace(/\/.*$/, '');
    const path = withoutScheme.slice(hostAndPort.length).replace(/^\/$/, '');
    const split = splitHostPort(hostAndPort);
    // Upstream reads the target as a URL, where a zone is written %25 (RFC 6874): [fe80::1%25eth0]:50051.
    const written = split?.host ?? unbracket(hostAndPort);
    const zoned = /^([0-9A-Fa-f:.]+)%25(.+)$/.exec(written);
    let host = written;
    try {
      if (zoned) host = `${zoned[1]}%${decodeURIComponent(zoned[2])}`;
    } catch {
      return refused(`has an invalid zone ${zoned?.[2]}; write an interface name, for example [fe80::1%25eth0]:50051`);
    }
    const port = split && portNumber(split.port);
    if (split && port === undefined) return refused(portProblem(split.port));
    if (host === '') return refused('has no host; write host:port, for example grpc.example.com:443');
    return accepted({ host, port, ...(path === '' ? {} : { ignoredPath: path }) });
  },
  strictProblem({ host, port, ignoredPath }, written) {
    // The port the exporter would take follows the module's tls setting, which the target alone does not show.
    if (port === undefined) return 'is not host:port; a grpc module needs the port, for example example.com:443 or [::1]:50051';
    // The service a probe checks is the module's grpc.service: a path would suggest a check that does not happen.
    if (ignoredPath !== undefined) {
      return `has a path ${ignoredPath}, which the grpc prober does not use (it checks the module's grpc.service); write ${written.slice(0, written.length - ignoredPath.length)}`;
    }
    return hostProblem(host);
  },
};

export const grpcDefinition = defineProber({
  name: 'grpc',
  schema: grpcSectionSchema,
  withAbsolutePaths: (grpc, absolute) => ({ ...grpc, tls_config: tlsConfigWithAbsolutePaths(grpc.tls_config, absolute) }),
  compile: (grpc): GrpcSettings => ({ ip: compileIpPreference(grpc), service: grpc.service, tls: grpc.tls, tlsConfig: compileTlsConfig(grpc.tls_config) }),
  target: grpcTarget,
});
