/** The exporter's version, from its package.json (inlined by the bundler), and what derives from it. */
import { version } from '../package.json';

export const EXPORTER_VERSION: string = version;

/** The image built from exporter/Dockerfile, tagged with this version: what the constructs run by default. */
export const EXPORTER_IMAGE = `ghcr.io/probekit/exporter:${EXPORTER_VERSION}`;

/** Upstream sends `Blackbox Exporter/<version>`; targets that filter on it see a compatible product token. */
export const EXPORTER_USER_AGENT = `Blackbox Exporter/${EXPORTER_VERSION} (probekit-exporter)`;
