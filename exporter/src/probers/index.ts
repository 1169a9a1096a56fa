/**
 * The probe function of each prober, by the name a module's `prober` field uses. The names come from the
 * definitions (./registry.ts), which the contract loads without this file's runtime dependencies.
 */
import type { CompiledModule } from '../config/module';
import type { ProberName } from './registry';
import type { ProbeDeadline, ProbeLogger, ProbeOptions, ProbeOutcome, Prober } from './types';
import type { ProbeRegistry } from '../metrics';

/**
 * Each prober's code and libraries load with its first probe (the bundle keeps each module behind a
 * function until something requires it): an exporter whose config uses one prober does not carry the
 * memory of the other five (dns-packet, HTTP/2, TLS, the ICMP addon).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded with the prober's first probe, see above */
const LOADERS: { readonly [N in ProberName]: () => Prober<N> } = {
  http: () => (require('./http/probe') as typeof import('./http/probe')).probeHttp,
  tcp: () => (require('./tcp/probe') as typeof import('./tcp/probe')).probeTcp,
  dns: () => (require('./dns/probe') as typeof import('./dns/probe')).probeDns,
  icmp: () => (require('./icmp/probe') as typeof import('./icmp/probe')).probeIcmp,
  grpc: () => (require('./grpc/probe') as typeof import('./grpc/probe')).probeGrpc,
  unix: () => (require('./unix/probe') as typeof import('./unix/probe')).probeUnix,
};
/* eslint-enable @typescript-eslint/no-require-imports */

const loaded = new Map<ProberName, Prober<ProberName>>();

function proberOf(name: ProberName): Prober<ProberName> {
  let prober = loaded.get(name);
  if (prober === undefined) {
    // Each loader gives its own prober's function; the map holds them by name, which the type checker cannot follow.
    prober = LOADERS[name]() as Prober<ProberName>;
    loaded.set(name, prober);
  }
  return prober;
}

/** Probes `target` with `module`'s own prober. */
export function probe(deadline: ProbeDeadline, target: string, module: CompiledModule, registry: ProbeRegistry, logger: ProbeLogger, options: ProbeOptions): Promise<ProbeOutcome> {
  // Each prober takes its own kind of module; `module.prober` says which.
  return proberOf(module.prober)(deadline, target, module, registry, logger, options);
}
