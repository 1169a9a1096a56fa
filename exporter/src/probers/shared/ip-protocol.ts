/** preferred_ip_protocol and ip_protocol_fallback: every prober's section has them, with upstream's defaults. */
import { z } from 'zod';

const ipProtocol = z.enum(['ip4', 'ip6']);

/** Upstream defaults to ip6 with fallback to ip4: a dual-stack target is probed over IPv6 first. */
export const ipProtocolFields = {
  preferred_ip_protocol: ipProtocol.default('ip6'),
  ip_protocol_fallback: z.boolean().default(true),
};

/** The two fields as a section has them once its defaults are applied. */
export interface IpProtocolSettings {
  readonly preferred_ip_protocol: 'ip4' | 'ip6';
  readonly ip_protocol_fallback: boolean;
}
