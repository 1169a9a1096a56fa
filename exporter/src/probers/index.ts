/**
 * The probers by the name a module's `prober` field uses. Adding a prober is one file plus one line here.
 */
import type { ProberName } from '../contract/endpoints';
import { probeDns } from './dns';
import { probeGrpc } from './grpc';
import { probeHttp } from './http';
import { probeIcmp } from './icmp';
import { probeTcp } from './tcp';
import type { Prober } from './types';

export const PROBERS: Record<ProberName, Prober> = {
  http: probeHttp,
  tcp: probeTcp,
  dns: probeDns,
  icmp: probeIcmp,
  grpc: probeGrpc,
};
