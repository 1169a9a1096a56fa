/** The icmp prober's definition: its section of a module, with upstream's defaults, and the section compiled. */
import { z } from 'zod';
import { accepted, defineProber, type TargetGrammar } from '../definition';
import { isHost, unbracket } from '../shared/host-port';
import { compileIpPreference, ipProtocolFields, type IpPreference } from '../shared/ip-protocol';
import { echoPayload } from './echo';

/** Upstream's default TTL for echo requests (the Linux default too). */
export const DEFAULT_ICMP_TTL = 64;

export const icmpSectionSchema = z.strictObject({
  ...ipProtocolFields,
  source_ip_address: z.string().optional(),
  /** Bytes of echo payload; 0 sends upstream's 28-byte text. */
  payload_size: z.number().int().min(0).max(65_000).optional(),
  dont_fragment: z.boolean().default(false),
  ttl: z.number().int().min(0, 'must be between 0 and 255').max(255, 'must be between 0 and 255').default(DEFAULT_ICMP_TTL),
});

export type IcmpSection = z.output<typeof icmpSectionSchema>;

export interface IcmpSettings {
  readonly ip: IpPreference;
  readonly sourceAddress?: string;
  /** The echo payload, sent as it is in every request. */
  readonly payload: Buffer;
  readonly dontFragment: boolean;
  readonly ttl: number;
}

/** A host: any text is one to resolve, as upstream takes it; one that is not a name fails at resolution. */
export const icmpTarget: TargetGrammar<string> = {
  parse: (target) => accepted(target),
  strictProblem: (host) => (isHost(unbracket(host)) ? undefined : 'is not a host; an icmp module pings a host name or IP address, without scheme or port'),
};

export const icmpDefinition = defineProber({
  name: 'icmp',
  schema: icmpSectionSchema,
  compile: (icmp): IcmpSettings => ({
    ip: compileIpPreference(icmp),
    sourceAddress: icmp.source_ip_address,
    payload: echoPayload(icmp.payload_size),
    dontFragment: icmp.dont_fragment,
    ttl: icmp.ttl,
  }),
  target: icmpTarget,
});
