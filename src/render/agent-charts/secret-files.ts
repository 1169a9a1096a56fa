/**
 * The files the agent's scrape jobs read (the exporter's CA, the agent's client certificate, the exporter's
 * password, the remote-write credentials) as Secret volumes of the agent's pod, in the shape every chart's
 * "extra volumes" take. Each volume carries only the keys the jobs read: the exporter's TLS Secret also holds its
 * private key, which the agent must not get.
 */
import type { SecretKeyRef } from '../../model';
import { AGENT_CLIENT_TLS_DIR, AGENT_EXPORTER_AUTH_DIR, AGENT_EXPORTER_TLS_DIR, BASIC_AUTH_SECRET_KEYS, TLS_SECRET_KEYS, type ExporterAccess } from '../exporter-web-config';

/** Keys of one Secret, mounted as files of the same names in one directory. */
export interface SecretFiles {
  /** The volume's name in the pod. */
  readonly volume: string;
  readonly secretName: string;
  readonly keys: readonly string[];
  readonly directory: string;
}

export interface SecretVolume {
  readonly name: string;
  readonly secret: { readonly secretName: string; readonly items: ReadonlyArray<{ readonly key: string; readonly path: string }> };
}

export interface VolumeMount {
  readonly name: string;
  readonly mountPath: string;
  readonly readOnly: true;
}

/** The files `agentScrapeAccess` names: the exporter's CA, the agent's certificate and key, the password. */
export function exporterAccessFiles(access: ExporterAccess): SecretFiles[] {
  const { tls, basicAuth } = access;
  return [
    ...(tls ? [{ volume: 'probekit-exporter-ca', secretName: tls.secretName, keys: [TLS_SECRET_KEYS.ca], directory: AGENT_EXPORTER_TLS_DIR }] : []),
    ...(tls?.agentSecretName === undefined
      ? []
      : [{ volume: 'probekit-agent-tls', secretName: tls.agentSecretName, keys: [TLS_SECRET_KEYS.cert, TLS_SECRET_KEYS.key], directory: AGENT_CLIENT_TLS_DIR }]),
    ...(basicAuth ? [{ volume: 'probekit-exporter-auth', secretName: basicAuth.secretName, keys: [BASIC_AUTH_SECRET_KEYS.password], directory: AGENT_EXPORTER_AUTH_DIR }] : []),
  ];
}

/** Where the remote-write credentials are mounted in Alloy's pod. */
export const REMOTE_WRITE_SECRET_DIR = '/etc/probekit/remote-write';

/** The remote-write credential's Secret, and the path of its file in the pod. */
export function remoteWriteFiles(ref: SecretKeyRef): { files: SecretFiles; path: string } {
  return { files: { volume: 'probekit-remote-write', secretName: ref.name, keys: [ref.key], directory: REMOTE_WRITE_SECRET_DIR }, path: `${REMOTE_WRITE_SECRET_DIR}/${ref.key}` };
}

export function secretVolumes(files: readonly SecretFiles[]): SecretVolume[] {
  return files.map(({ volume, secretName, keys }) => ({ name: volume, secret: { secretName, items: keys.map((key) => ({ key, path: key })) } }));
}

export function volumeMounts(files: readonly SecretFiles[]): VolumeMount[] {
  return files.map(({ volume, directory }) => ({ name: volume, mountPath: directory, readOnly: true }));
}

/** The header's words on the Secrets the pod mounts. */
export function mountedSecretsNote(files: readonly SecretFiles[]): string[] {
  if (files.length === 0) return [];
  const listed = files.map(({ secretName, keys }) => `${secretName} (${keys.join(', ')})`).join(', ');
  return [`The agent's pod mounts the Secrets ${listed}: they must exist in the namespace this chart is installed in.`];
}

/** The header's words on where the exporter's Secrets are, when the pod mounts any. */
export function exporterSecretsNote(access: ExporterAccess, exporterNamespace: string): string[] {
  return exporterAccessFiles(access).length === 0 ? [] : [`The exporter's Secrets are in the namespace ${exporterNamespace}: install the chart there, or copy them to its namespace.`];
}
