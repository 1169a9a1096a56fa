/**
 * The tcp prober's definition: its section of a module (TLS at once or by STARTTLS, and the query_response
 * dialogue) with upstream's defaults, and the rule that every `expect` compiles.
 */
import { z } from 'zod';
import type { Problem } from '../../contract/problems';
import { regexpProblem, regexpSchema } from '../../config/regexp';
import { defineProber } from '../definition';
import { ipProtocolFields } from '../shared/ip-protocol';
import { DEFAULT_TLS_CONFIG, tlsConfigSchema } from '../shared/tls-config';

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
export type QueryResponse = z.output<typeof queryResponseSchema>;

function tcpRules(tcp: TcpSection): Problem[] {
  return (tcp.query_response ?? []).flatMap((step, index) => (step.expect === undefined ? [] : regexpProblem(['query_response', index, 'expect'], step.expect)));
}

export const tcpDefinition = defineProber({ name: 'tcp', schema: tcpSectionSchema, rules: tcpRules });
