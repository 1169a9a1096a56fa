/**
 * The contract's hand-written config types (src/contract/config.ts) and the schemas that check a config at run time
 * say the same: `npm run typecheck` compiles the assertions below, each holding a hand-written type equal, field for
 * field, to its schema's input type. A field added to one side only, a field optional on one side only, or a value
 * type that differs, fails to compile; the test at the end shows that it does.
 */
import { join } from 'node:path';
import ts from 'typescript';
import type { z } from 'zod';
import type * as contract from '../../src/contract';
import type { allowedTargetsSchema } from '../../src/config/allowed-targets';
import type { configSchema, moduleSchema } from '../../src/config/schema';
import type { PROBER_NAMES as REGISTERED_PROBERS } from '../../src/probers/registry';
import type { httpSectionSchema } from '../../src/probers/http/definition';
import type { tcpSectionSchema } from '../../src/probers/tcp/definition';
import type { icmpSectionSchema } from '../../src/probers/icmp/definition';
import type { dnsSectionSchema } from '../../src/probers/dns/definition';
import type { grpcSectionSchema } from '../../src/probers/grpc/definition';
import type { unixSectionSchema } from '../../src/probers/unix/definition';
import type { tlsConfigSchema } from '../../src/probers/shared/tls-config';
import type { queryResponseSchema } from '../../src/probers/shared/query-response';

/** Values compared as they are; bytes as Uint8Array, whatever buffer the schema's type names. */
type Leaf = string | number | boolean | bigint | symbol | null | undefined;

/** A type with readonly taken off, at every depth (the schemas' input types are mutable, ours readonly). */
type Mutable<T> = T extends Uint8Array ? Uint8Array : T extends Leaf ? T : T extends readonly (infer E)[] ? Mutable<E>[] : { -readonly [K in keyof T]: Mutable<T[K]> };

type Assignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Whether A and B have the same field names, at every depth (assignability alone lets an optional field be on one side only). */
type KeysMatch<A, B> = A extends Leaf | Uint8Array
  ? true
  : A extends readonly (infer E)[]
    ? B extends readonly (infer F)[]
      ? KeysMatch<E, F>
      : false
    : Assignable<keyof A, keyof B> extends true
      ? false extends { [K in keyof A & keyof B]-?: KeysMatch<NonNullable<A[K]>, NonNullable<B[K]>> }[keyof A & keyof B]
        ? false
        : true
      : false;

/**
 * true when A and B say the same, readonly aside: each assignable to the other (so a field required on one side is
 * required on the other, and every value type agrees) and the same field names at every depth.
 */
export type Same<A, B> = Assignable<Mutable<A>, Mutable<B>> extends true ? KeysMatch<Mutable<A>, Mutable<B>> : false;

type Input<S extends z.ZodType> = z.input<S>;

// Each hand-written type against its schema's input type, and the whole module and config, which hold them all.
export const sameTypes: Record<string, true> = {
  http: true satisfies Same<contract.HttpProbeInput, Input<typeof httpSectionSchema>>,
  tcp: true satisfies Same<contract.TcpProbeInput, Input<typeof tcpSectionSchema>>,
  icmp: true satisfies Same<contract.IcmpProbeInput, Input<typeof icmpSectionSchema>>,
  dns: true satisfies Same<contract.DnsProbeInput, Input<typeof dnsSectionSchema>>,
  grpc: true satisfies Same<contract.GrpcProbeInput, Input<typeof grpcSectionSchema>>,
  unix: true satisfies Same<contract.UnixProbeInput, Input<typeof unixSectionSchema>>,
  tls: true satisfies Same<contract.TlsConfigInput, Input<typeof tlsConfigSchema>>,
  queryResponse: true satisfies Same<contract.QueryResponseInput, Input<typeof queryResponseSchema>>,
  allowedTargets: true satisfies Same<contract.AllowedTargetsInput, Input<typeof allowedTargetsSchema>>,
  module: true satisfies Same<contract.ModuleInput, Input<typeof moduleSchema>>,
  config: true satisfies Same<contract.ConfigInput, Input<typeof configSchema>>,
  proberName: true satisfies Same<contract.ProberName, (typeof REGISTERED_PROBERS)[number]>,
};

describe('the hand-written config types', () => {
  it('are checked field for field: a field on one side alone, optional on one side only, or of another type, does not compile', () => {
    // Same, compiled by tsc for variants of the http section that differ by one field, each on a line of its own.
    const schema = 'z.input<typeof httpSectionSchema>';
    const variants: Array<[ours: string, theirs: string]> = [
      ['HttpProbeInput', schema],
      ['HttpProbeInput & { readonly extra?: string }', schema],
      ['HttpProbeInput', `${schema} & { extra?: string }`],
      ["Omit<HttpProbeInput, 'method'>", schema],
      ["Omit<HttpProbeInput, 'method'> & { readonly method: string }", schema],
      ["Omit<HttpProbeInput, 'method'> & { readonly method?: number }", schema],
      ["Omit<HttpProbeInput, 'tls_config'> & { readonly tls_config?: { readonly ca?: string } }", schema],
    ];
    const file = join(__dirname, 'config-types.variants.ts');
    const header = [
      "import type { z } from 'zod';",
      "import type { HttpProbeInput } from '../../src/contract';",
      "import type { httpSectionSchema } from '../../src/probers/http/definition';",
      "import type { Same } from './config-types.test';",
    ];
    const source = [...header, ...variants.map(([ours, theirs], index) => `export const check${index} = true satisfies Same<${ours}, ${theirs}>;`)].join('\n');
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      target: ts.ScriptTarget.ES2022,
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const { readFile, fileExists } = host;
    host.readFile = (name) => (name === file ? source : readFile.call(host, name));
    host.fileExists = (name) => name === file || fileExists.call(host, name);
    const program = ts.createProgram([file], options, host);
    const failingLines = new Set(
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(file))
        .filter((diagnostic) => diagnostic.file?.fileName === file && diagnostic.start !== undefined)
        .map((diagnostic) => diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start!).line - header.length),
    );
    expect(variants.map((_, index) => failingLines.has(index))).toEqual([false, true, true, true, true, true, true]);
  }, 60_000);
});
