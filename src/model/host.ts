/**
 * The single-machine form's settings filled in: where the exporter listens, where the agent and a browser on that
 * machine reach it, and so the base of the host files' debug links.
 */
import { parseListenAddress } from '@probekit/exporter';
import { DEFAULTS, type HostInput, type Spec } from './spec';

/** Hosts that mean every interface of the machine, and the loopback address an agent beside the exporter uses for each. */
const WILDCARD_HOSTS: Readonly<Record<string, string>> = { '': '127.0.0.1', '0.0.0.0': '127.0.0.1', '::': '[::1]' };

/**
 * The exporter as an agent on the same machine reaches it: at the address it listens on (`host.listenAddress`),
 * through loopback where that means every interface (`:9115`, `0.0.0.0:9115`, `[::]:9115`).
 */
export function localExporterAddress(listenAddress: string): string {
  const parsed = parseListenAddress(listenAddress);
  if (parsed === undefined) throw new Error(`not a listen address: ${listenAddress}`);
  const host = WILDCARD_HOSTS[parsed.host] ?? (parsed.host.includes(':') ? `[${parsed.host}]` : parsed.host);
  return `${host}:${parsed.port}`;
}

/**
 * The host form with every default filled in. Its exporter's external URL is the spec's `exporter.externalUrl`
 * when given (`given`, as the spec writes it), else where the exporter listens, as a browser on the machine (or at
 * the end of an SSH tunnel to it) reaches it: `0.0.0.0:9200` links to `http://127.0.0.1:9200`, not to the cluster
 * form's `http://localhost:9115`.
 */
export function hostSettings(host: HostInput = {}, given?: string): Spec['host'] {
  const listenAddress = host.listenAddress ?? DEFAULTS.host.listenAddress;
  return { listenAddress, externalUrl: (given ?? `http://${localExporterAddress(listenAddress)}`).replace(/\/+$/, '') };
}
