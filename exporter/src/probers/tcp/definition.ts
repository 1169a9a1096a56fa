/**
 * The tcp prober's definition: its section of a module (TLS at once or by STARTTLS, and the query_response
 * dialogue it shares with unix, ../shared/query-response.ts) with upstream's defaults, and the section compiled.
 */
import { z } from 'zod';
import { accepted, defineProber, refused, type CompileContext, type TargetGrammar } from '../definition';
import { hostProblem, portNumber, portProblem, splitHostPort } from '../shared/host-port';
import { compileIpPreference, ipProtocolFields, type IpPreference } from '../shared/ip-protocol';
import { compileQuerySteps, queryResponseSchema, type QueryStep } from '../shared/query-response';
import { compileTlsConfig, DEFAULT_TLS_CONFIG, tlsConfigSchema, tlsConfigWithAbsolutePaths, type TlsSettings } from '../shared/tls-config';

export const tcpSectionSchema = z.strictObject({
  ...ipProtocolFields,
  source_ip_address: z.string().optional(),
  query_response: z.array(queryResponseSchema).optional(),
  tls: z.boolean().default(false),
  tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
});

export type TcpSection = z.output<typeof tcpSectionSchema>;

export interface TcpSettings {
  readonly ip: IpPreference;
  readonly sourceAddress?: string;
  readonly steps: readonly QueryStep[];
  /** TLS from the start of the connection. */
  readonly tls: boolean;
  readonly tlsConfig: TlsSettings;
}

function compileTcp(tcp: TcpSection, context: CompileContext): TcpSettings {
  const steps = compileQuerySteps(tcp.query_response, context);
  return { ip: compileIpPreference(tcp), sourceAddress: tcp.source_ip_address, steps, tls: tcp.tls, tlsConfig: compileTlsConfig(tcp.tls_config) };
}

export interface HostAndPort {
  readonly host: string;
  readonly port: number;
}

/** `host:port`, as upstream's tcp prober splits it: the port is required. */
export const tcpTarget: TargetGrammar<HostAndPort> = {
  parse(target) {
    const notHostPort = 'is not host:port; a tcp module needs the port, for example example.com:443 or [::1]:443';
    const split = splitHostPort(target);
    if (!split) return refused(notHostPort);
    const port = portNumber(split.port);
    if (port !== undefined) return accepted({ host: split.host, port });
    // A port that is not a number means the target is something else altogether (a URL, say).
    return refused(/^[0-9]+$/.test(split.port) ? portProblem(split.port) : notHostPort);
  },
  strictProblem: ({ host }) => hostProblem(host),
};

export const tcpDefinition = defineProber({
  name: 'tcp',
  schema: tcpSectionSchema,
  rules: () => [],
  withAbsolutePaths: (tcp, absolute) => ({ ...tcp, tls_config: tlsConfigWithAbsolutePaths(tcp.tls_config, absolute) }),
  compile: compileTcp,
  target: tcpTarget,
});
