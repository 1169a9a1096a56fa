/**
 * The query_response list the tcp and unix probers share, as upstream's query_response.go: its part of a
 * section (schema) and the steps compiled at load. The walk over a connection is ./query-dialogue.ts.
 */
import { z } from 'zod';
import { regexpSchema, type Pattern } from '../../config/regexp';
import type { CompileContext } from '../definition';

/** Text, or bytes written in YAML as `!!binary <base64>` (upstream's example sends a PostgreSQL SSLRequest so). */
const textOrBytes = z.union([z.string(), z.instanceof(Uint8Array)]);

export const queryResponseSchema = z
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

type QueryResponseInput = z.output<typeof queryResponseSchema>;

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

/** Text stays text (captures are expanded into it); `!!binary` bytes become a Buffer. */
function textOrBuffer(value: string | Uint8Array | undefined): string | Buffer | undefined {
  return value === undefined || typeof value === 'string' ? value : Buffer.from(value);
}

/** A section's query_response list, compiled; problems are reported under `query_response`. */
export function compileQuerySteps(steps: readonly QueryResponseInput[] | undefined, context: CompileContext): QueryStep[] {
  return (steps ?? []).map((step, index): QueryStep => ({
    expect: step.expect === undefined ? undefined : context.pattern(['query_response', index, 'expect'], step.expect),
    // Empty text expects nothing, as an unset field.
    expectBytes: step.expect_bytes === undefined || step.expect_bytes === '' ? undefined : Buffer.from(step.expect_bytes),
    send: textOrBuffer(step.send),
    labels: step.labels,
    startTls: step.starttls,
  }));
}
