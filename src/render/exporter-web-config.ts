/**
 * Who may scrape the exporter in a cluster: its web config (`--web.config.file`) reads the certificate from a
 * `kubernetes.io/tls` Secret (the one a cert-manager Certificate writes: `tls.crt`, `tls.key`, `ca.crt`) and/or
 * asks for a password whose bcrypt hash it holds; whoever scrapes it (the agent's jobs, the Operator's Probes and
 * ServiceMonitor) then uses https, trusts that CA, checks the Service's name, presents the agent's client
 * certificate when one is required, and sends the password from a `kubernetes.io/basic-auth` Secret.
 */
import { stringify } from 'yaml';
import type { ExporterBasicAuth, ExporterTls } from '../model';
import { CLUSTER_CONFIG_DIR } from './exporter-config';

/** How the exporter is reached: over TLS, with a password, both or neither. */
export interface ExporterAccess {
  readonly tls?: ExporterTls;
  readonly basicAuth?: ExporterBasicAuth;
}

/** Where the exporter's TLS Secret is mounted in its pod. */
export const CLUSTER_TLS_DIR = `${CLUSTER_CONFIG_DIR}/tls`;

/**
 * Where the web config is mounted when it holds a password hash: from a Secret of its own rather than the
 * ConfigMap, since the exporter treats a hash as it treats a secret (never shown, never logged).
 */
export const CLUSTER_WEB_CONFIG_DIR = `${CLUSTER_CONFIG_DIR}/web`;

/** The web config's file name, in the exporter's ConfigMap beside its config or in its web-config Secret. */
export const WEB_CONFIG_FILE = 'web.yml';

/** The keys of a `kubernetes.io/tls` Secret, as cert-manager writes them. */
export const TLS_SECRET_KEYS = { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } as const;

/** The keys of a `kubernetes.io/basic-auth` Secret, which the Operator's BasicAuth references too. */
export const BASIC_AUTH_SECRET_KEYS = { username: 'username', password: 'password' } as const;

/**
 * Where the agent's scrape jobs expect the exporter's CA, the agent's own certificate and key (with client
 * certificates) and the password (with basic auth): the agent's pod mounts those Secrets here (the chart's
 * extra volumes).
 */
export const AGENT_EXPORTER_TLS_DIR = '/etc/probekit/exporter-tls';
export const AGENT_CLIENT_TLS_DIR = '/etc/probekit/agent-tls';
export const AGENT_EXPORTER_AUTH_DIR = '/etc/probekit/exporter-auth';

/** The host of the exporter's host:port, the name its certificate must carry (`<service>.<namespace>.svc`). */
export function exporterHost(address: string): string {
  return address.slice(0, address.lastIndexOf(':'));
}

/** Whether the exporter needs a web config at all. */
export function hasWebConfig(access: ExporterAccess): boolean {
  return access.tls !== undefined || access.basicAuth !== undefined;
}

/** Whether the kubelet can call /-/healthy: not when a client certificate or a password is required. */
export function kubeletCanCallHealth(access: ExporterAccess): boolean {
  return access.tls?.agentSecretName === undefined && access.basicAuth === undefined;
}

/** The web config text: paths of the mounted Secret's files and the password's bcrypt hash, never a password. */
export function renderWebConfig(access: ExporterAccess): string {
  const { tls, basicAuth } = access;
  const file = (key: string): string => `${CLUSTER_TLS_DIR}/${key}`;
  return stringify({
    ...(tls && {
      tls_server_config: {
        cert_file: file(TLS_SECRET_KEYS.cert),
        key_file: file(TLS_SECRET_KEYS.key),
        ...(tls.agentSecretName === undefined ? {} : { client_auth_type: 'RequireAndVerifyClientCert', client_ca_file: file(TLS_SECRET_KEYS.ca) }),
      },
    }),
    ...(basicAuth && { basic_auth_users: { [basicAuth.username]: basicAuth.passwordHash } }),
  });
}

/** A Prometheus scrape config's settings for scraping the exporter at `serverName`: https, a password, both or none. */
export function agentScrapeAccess(access: ExporterAccess, serverName: string): { scheme?: 'https'; tls_config?: Record<string, string>; basic_auth?: { username: string; password_file: string } } {
  const { tls, basicAuth } = access;
  return {
    ...(tls && {
      scheme: 'https' as const,
      tls_config: {
        ca_file: `${AGENT_EXPORTER_TLS_DIR}/${TLS_SECRET_KEYS.ca}`,
        server_name: serverName,
        ...(tls.agentSecretName === undefined ? {} : { cert_file: `${AGENT_CLIENT_TLS_DIR}/${TLS_SECRET_KEYS.cert}`, key_file: `${AGENT_CLIENT_TLS_DIR}/${TLS_SECRET_KEYS.key}` }),
      },
    }),
    ...(basicAuth && { basic_auth: { username: basicAuth.username, password_file: `${AGENT_EXPORTER_AUTH_DIR}/${BASIC_AUTH_SECRET_KEYS.password}` } }),
  };
}

/** The Operator's settings for scraping the exporter (SafeTLSConfig, BasicAuth): the Secrets by reference, never their values. */
export function operatorScrapeAccess(access: ExporterAccess, serverName: string): { tlsConfig?: Record<string, unknown>; basicAuth?: Record<string, unknown> } {
  const { tls, basicAuth } = access;
  const secretKey = (name: string, key: string) => ({ name, key });
  return {
    ...(tls && {
      tlsConfig: {
        ca: { secret: secretKey(tls.secretName, TLS_SECRET_KEYS.ca) },
        serverName,
        ...(tls.agentSecretName === undefined ? {} : { cert: { secret: secretKey(tls.agentSecretName, TLS_SECRET_KEYS.cert) }, keySecret: secretKey(tls.agentSecretName, TLS_SECRET_KEYS.key) }),
      },
    }),
    ...(basicAuth && {
      basicAuth: {
        username: secretKey(basicAuth.secretName, BASIC_AUTH_SECRET_KEYS.username),
        password: secretKey(basicAuth.secretName, BASIC_AUTH_SECRET_KEYS.password),
      },
    }),
  };
}
