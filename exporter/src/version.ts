/** The exporter's version, from package.json (inlined by the bundler), and the User-Agent probes send. */
import { version } from '../../package.json';

export const EXPORTER_VERSION: string = version;

/** Upstream sends `Blackbox Exporter/<version>`; targets that filter on it see a compatible product token. */
export const EXPORTER_USER_AGENT = `Blackbox Exporter/${EXPORTER_VERSION} (probekit-exporter)`;
