/**
 * The unix prober's definition (upstream 0.28's): a stream socket at a path, optionally with TLS, and the
 * query_response dialogue the tcp prober has (../shared/query-response.ts).
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { accepted, defineProber, refused, type CompileContext, type TargetGrammar } from '../definition';
import { compileQuerySteps, queryResponseSchema, type QueryStep } from '../shared/query-response';
import { compileTlsConfig, DEFAULT_TLS_CONFIG, tlsConfigSchema, tlsConfigWithAbsolutePaths, type TlsSettings } from '../shared/tls-config';

export const unixSectionSchema = z.strictObject({
  query_response: z.array(queryResponseSchema).optional(),
  tls: z.boolean().default(false),
  tls_config: tlsConfigSchema.default(DEFAULT_TLS_CONFIG),
});

export type UnixSection = z.output<typeof unixSectionSchema>;

export interface UnixSettings {
  readonly steps: readonly QueryStep[];
  /** TLS from the start of the connection. */
  readonly tls: boolean;
  readonly tlsConfig: TlsSettings;
}

function compileUnix(unix: UnixSection, context: CompileContext): UnixSettings {
  return { steps: compileQuerySteps(unix.query_response, context), tls: unix.tls, tlsConfig: compileTlsConfig(unix.tls_config) };
}

/** The socket's path, as upstream dials it; an empty one names nothing. */
export const unixTarget: TargetGrammar<string> = {
  parse: (target) => (target === '' ? refused('is empty; a unix module needs the path of a socket, for example /run/app.sock') : accepted(target)),
  // A relative path would be resolved against the exporter's working directory, which the spec does not know.
  strictProblem: (path) => (isAbsolute(path) ? undefined : 'is not an absolute path; a unix module probes a socket by its full path, for example /run/app.sock'),
};

export const unixDefinition = defineProber({
  name: 'unix',
  schema: unixSectionSchema,
  withAbsolutePaths: (unix, absolute) => ({ ...unix, tls_config: tlsConfigWithAbsolutePaths(unix.tls_config, absolute) }),
  compile: compileUnix,
  target: unixTarget,
});
