/** The exporter's version, from its package.json (inlined by the bundler), and what derives from it. */
import { version } from '../package.json';

export const EXPORTER_VERSION: string = version;

/** The image built from exporter/Dockerfile, tagged with this version: what the constructs run by default. */
export const EXPORTER_IMAGE = `ghcr.io/probekit/exporter:${EXPORTER_VERSION}`;

/**
 * The default User-Agent of http probes (and of OAuth2 token requests), in the form upstream sends since
 * 0.28 (`Blackbox-Exporter/<version>`, one RFC 9110 product token), naming this exporter and its version.
 */
export const EXPORTER_USER_AGENT = `Probekit-Exporter/${EXPORTER_VERSION}`;
