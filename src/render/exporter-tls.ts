/**
 * The exporter behind TLS in a cluster: its web config (`--web.config.file`) reads the certificate from a
 * `kubernetes.io/tls` Secret (the one a cert-manager Certificate writes: `tls.crt`, `tls.key`, `ca.crt`),
 * and whoever scrapes it (the agent's jobs, the Operator's Probes and ServiceMonitor) then uses https,
 * trusts that CA, checks the Service's name and, when client certificates are required, presents the agent's.
 */
import { stringify } from 'yaml';
import type { ExporterTls } from '../model';
import { CLUSTER_CONFIG_DIR } from './exporter-config';

/** Where the exporter's TLS Secret is mounted in its pod. */
export const CLUSTER_TLS_DIR = `${CLUSTER_CONFIG_DIR}/tls`;

/** The web config's file name in the exporter's ConfigMap, beside its config. */
export const WEB_CONFIG_FILE = 'web.yml';

/** The keys of a `kubernetes.io/tls` Secret, as cert-manager writes them. */
export const TLS_SECRET_KEYS = { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } as const;

/**
 * Where the agent's scrape jobs expect the exporter's CA (and, with client certificates, the agent's own
 * certificate and key): the agent's pod mounts those Secrets here (the chart's extra volumes).
 */
export const AGENT_EXPORTER_TLS_DIR = '/etc/probekit/exporter-tls';
export const AGENT_CLIENT_TLS_DIR = '/etc/probekit/agent-tls';

/** The host of the exporter's host:port, the name its certificate must carry (`<service>.<namespace>.svc`). */
export function exporterHost(address: string): string {
  return address.slice(0, address.lastIndexOf(':'));
}

/** The web config text: no secret in it, only the paths of the mounted Secret's files. */
export function renderWebConfig(tls: ExporterTls): string {
  const file = (key: string): string => `${CLUSTER_TLS_DIR}/${key}`;
  return stringify({
    tls_server_config: {
      cert_file: file(TLS_SECRET_KEYS.cert),
      key_file: file(TLS_SECRET_KEYS.key),
      ...(tls.agentSecretName === undefined ? {} : { client_auth_type: 'RequireAndVerifyClientCert', client_ca_file: file(TLS_SECRET_KEYS.ca) }),
    },
  });
}

/** A Prometheus scrape config's https settings for scraping the exporter at `serverName`. */
export function agentScrapeTls(tls: ExporterTls, serverName: string): { scheme: 'https'; tls_config: Record<string, string> } {
  return {
    scheme: 'https',
    tls_config: {
      ca_file: `${AGENT_EXPORTER_TLS_DIR}/${TLS_SECRET_KEYS.ca}`,
      server_name: serverName,
      ...(tls.agentSecretName === undefined ? {} : { cert_file: `${AGENT_CLIENT_TLS_DIR}/${TLS_SECRET_KEYS.cert}`, key_file: `${AGENT_CLIENT_TLS_DIR}/${TLS_SECRET_KEYS.key}` }),
    },
  };
}

/** The Operator's SafeTLSConfig for scraping the exporter: the Secrets by reference, never their values. */
export function operatorScrapeTls(tls: ExporterTls, serverName: string): Record<string, unknown> {
  const secretKey = (name: string, key: string) => ({ name, key });
  return {
    ca: { secret: secretKey(tls.secretName, TLS_SECRET_KEYS.ca) },
    serverName,
    ...(tls.agentSecretName === undefined ? {} : { cert: { secret: secretKey(tls.agentSecretName, TLS_SECRET_KEYS.cert) }, keySecret: secretKey(tls.agentSecretName, TLS_SECRET_KEYS.key) }),
  };
}
