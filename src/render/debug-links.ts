/**
 * Links from a dashboard or an alert to the exporter's debug output for one target: `/probe?debug=true` runs the
 * probe again, at the moment the link is opened, and answers with its log, its metrics and the module (secrets
 * masked). Unlike `/logs?id=N`, whose id no dashboard or alert can know, it is computable from the target and
 * the module alone. The base is the spec's `exporter.externalUrl`: where a browser reaches the exporter.
 */
import { PROBE_PATH } from '@probekit/exporter';

export interface DebugLinkParts {
  /** The module, already URL-encoded, or a template expression that yields it encoded. */
  readonly module: string;
  /** The target, likewise. */
  readonly target: string;
}

export function probeDebugUrl(externalUrl: string, parts: DebugLinkParts): string {
  return `${externalUrl}${PROBE_PATH}?debug=true&module=${parts.module}&target=${parts.target}`;
}

/** The exporter's status page: its recent probes, each linked to its log. */
export function statusPageUrl(externalUrl: string): string {
  return `${externalUrl}/`;
}
