/**
 * The probe function of each prober, by the name a module's `prober` field uses. The names come from the
 * definitions (./registry.ts), which the contract loads without this file's runtime dependencies.
 */
import type { Registry } from 'prom-client';
import type { CompiledModule } from '../config/module';
import type { ProberName } from './registry';
import { probeDns } from './dns/probe';
import { probeGrpc } from './grpc/probe';
import { probeHttp } from './http/probe';
import { probeIcmp } from './icmp/probe';
import { probeTcp } from './tcp/probe';
import { probeUnix } from './unix/probe';
import type { ProbeDeadline, ProbeLogger, ProbeOptions, Prober } from './types';

const PROBERS: { readonly [N in ProberName]: Prober<N> } = {
  http: probeHttp,
  tcp: probeTcp,
  dns: probeDns,
  icmp: probeIcmp,
  grpc: probeGrpc,
  unix: probeUnix,
};

/** Probes `target` with `module`'s own prober. */
export function probe(deadline: ProbeDeadline, target: string, module: CompiledModule, registry: Registry, logger: ProbeLogger, options: ProbeOptions): Promise<boolean> {
  // Each prober takes its own kind of module; `module.prober` says which, which the type checker cannot follow.
  const prober = PROBERS[module.prober] as Prober<ProberName>;
  return prober(deadline, target, module, registry, logger, options);
}
