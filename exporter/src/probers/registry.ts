/**
 * The probers the exporter implements, by the definitions the contract may load (no probe function, no
 * runtime dependency). The runtime registry (./index.ts) maps the same names to probe functions; adding a
 * prober is its folder plus one line here and one there, which the type checker then asks for.
 */
import { dnsDefinition } from './dns/definition';
import { grpcDefinition } from './grpc/definition';
import { httpDefinition } from './http/definition';
import { icmpDefinition } from './icmp/definition';
import { tcpDefinition } from './tcp/definition';
import { unixDefinition } from './unix/definition';

/** In the order error messages list them. */
const DEFINITIONS = [httpDefinition, tcpDefinition, icmpDefinition, dnsDefinition, grpcDefinition, unixDefinition] as const;

type Definition = (typeof DEFINITIONS)[number];

/** The `prober` field of a module takes one of these. */
export type ProberName = Definition['name'];
export const PROBER_NAMES = DEFINITIONS.map((definition) => definition.name) as [ProberName, ...ProberName[]];

export type DefinitionOf<N extends ProberName> = Extract<Definition, { readonly name: N }>;

export const PROBER_DEFINITIONS = Object.fromEntries(DEFINITIONS.map((definition) => [definition.name, definition])) as { readonly [N in ProberName]: DefinitionOf<N> };
