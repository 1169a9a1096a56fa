/**
 * preferred_ip_protocol and ip_protocol_fallback: every prober's section has them, with upstream's
 * defaults, and every prober that resolves a host follows them.
 */
import { z } from 'zod';

const ipProtocol = z.enum(['ip4', 'ip6']);

/** Upstream defaults to ip6 with fallback to ip4: a dual-stack target is probed over IPv6 first. */
export const ipProtocolFields = {
  preferred_ip_protocol: ipProtocol.default('ip6'),
  ip_protocol_fallback: z.boolean().default(true),
};

export type IpFamily = 4 | 6;

/** The address family to look for first, and whether the other one will do. */
export interface IpPreference {
  readonly preferred: IpFamily;
  readonly fallback: boolean;
}

export function compileIpPreference(section: { readonly preferred_ip_protocol: 'ip4' | 'ip6'; readonly ip_protocol_fallback: boolean }): IpPreference {
  return { preferred: section.preferred_ip_protocol === 'ip4' ? 4 : 6, fallback: section.ip_protocol_fallback };
}
