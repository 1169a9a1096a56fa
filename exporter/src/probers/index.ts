/**
 * The probe function of each prober, by the name a module's `prober` field uses. The names come from the
 * definitions (./registry.ts), which the contract loads without this file's runtime dependencies.
 */
import type { ProberName } from './registry';
import { probeDns } from './dns/probe';
import { probeGrpc } from './grpc/probe';
import { probeHttp } from './http/probe';
import { probeIcmp } from './icmp/probe';
import { probeTcp } from './tcp/probe';
import type { Prober } from './types';

export const PROBERS: { readonly [N in ProberName]: Prober } = {
  http: probeHttp,
  tcp: probeTcp,
  dns: probeDns,
  icmp: probeIcmp,
  grpc: probeGrpc,
};
