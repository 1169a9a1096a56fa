/**
 * The tcp prober's definition: its section of a module (TLS at once or by STARTTLS, and the query_response
 * dialogue) with upstream's defaults, and the section compiled.
 */
import { z } from 'zod';
import { regexpSchema, type Pattern } from '../../config/regexp';
import { accepted, defineProber, refused, type CompileContext, type TargetGrammar } from '../definition';
import { hostProblem, portNumber, portProblem, splitHostPort } from '../shared/host-port';
import { compileIpPreference, ipProtocolFields, type IpPreference } from '../shared/ip-protocol';
import { compileTlsConfig, DEFAULT_TLS_CONFIG, tlsConfigSchema, tlsConfigWithAbsolutePaths, type TlsSettings } from '../shared/tls-config';

/** Text, or bytes written in YAML as `!!binary <base64>` (upstream's example sends a PostgreSQL SSLRequest so). */
const textOrBytes = z.union([z.string(), z.instanceof(Uint8Array)]);

const queryResponseSchema = z
  .strictObject({
    /** Read lines until one matches; its captures fill `${1}`/`${name}` in `send` and in label values. */
    expect: regexpSchema.optional(),
    /** Read exactly these bytes next and fail when they differ. */
    expect_bytes: textOrBytes.optional(),
    /** probe_expect_info labels, values expanded from `expect`'s captures. */
    labels: z.array(z.strictObject({ name: z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name'), value: z.string() })).optional(),
    /** A line to write, a newline added. */
    send: textOrBytes.optional(),
    /** Upgrade the connection to TLS (tls_config applies) after this step. */
    starttls: z.boolean().default(false),
  })
  .refine((step) => step.expect === undefined || step.expect_bytes === undefined, {
    message: 'expect and expect_bytes are mutually exclusive; split them into two steps',
    path: ['expect_bytes'],
  });

export const tcpSectionSchema = z.strictObject({
  ...ipProtocolFields,
  source_ip_address: z.string().optional(),
  query_response: z.array(queryResponseSchema).optional(),
  tls: z.boolean().default(false),
  tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
});

export type TcpSection = z.output<typeof tcpSectionSchema>;

/** One query_response step, in the order the probe takes its parts: expect, expect_bytes, send, starttls. */
export interface QueryStep {
  readonly expect?: Pattern;
  /** Read exactly these bytes next. */
  readonly expectBytes?: Buffer;
  /** Written with a newline; `expect`'s captures are expanded into it (text as UTF-8, bytes as Latin-1). */
  readonly send?: string | Buffer;
  readonly labels?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  readonly startTls: boolean;
}

export interface TcpSettings {
  readonly ip: IpPreference;
  readonly sourceAddress?: string;
  readonly steps: readonly QueryStep[];
  /** TLS from the start of the connection. */
  readonly tls: boolean;
  readonly tlsConfig: TlsSettings;
}

/** Text stays text (captures are expanded into it); `!!binary` bytes become a Buffer. */
function textOrBuffer(value: string | Uint8Array | undefined): string | Buffer | undefined {
  return value === undefined || typeof value === 'string' ? value : Buffer.from(value);
}

function compileTcp(tcp: TcpSection, context: CompileContext): TcpSettings {
  const steps = (tcp.query_response ?? []).map((step, index): QueryStep => ({
    expect: step.expect === undefined ? undefined : context.pattern(['query_response', index, 'expect'], step.expect),
    // Empty text expects nothing, as an unset field.
    expectBytes: step.expect_bytes === undefined || step.expect_bytes === '' ? undefined : Buffer.from(step.expect_bytes),
    send: textOrBuffer(step.send),
    labels: step.labels,
    startTls: step.starttls,
  }));
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
