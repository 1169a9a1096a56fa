/**
 * An ExternalSecret (External Secrets Operator, external-secrets.io/v1): the operator reads a value from a
 * secret store and keeps it in a Secret of the same name under the key `value`. What is synthesized names
 * the store and the value's place there; the value itself never passes through probekit.
 */
import { EXTERNAL_SECRET_KEY, type ExternalSecretSource } from '../model';

export const EXTERNAL_SECRET_API_VERSION = 'external-secrets.io/v1';

/** How often the operator reads the store again: a rotated value reaches the pods' files within this. */
export const EXTERNAL_SECRET_REFRESH = '1h';

export function renderExternalSecret(source: ExternalSecretSource, labels: Readonly<Record<string, string>> = {}): Record<string, unknown> {
  return {
    apiVersion: EXTERNAL_SECRET_API_VERSION,
    kind: 'ExternalSecret',
    metadata: { name: source.name, labels: { ...labels } },
    spec: {
      refreshInterval: EXTERNAL_SECRET_REFRESH,
      secretStoreRef: { name: source.store, kind: source.storeKind ?? 'SecretStore' },
      target: { name: source.name, creationPolicy: 'Owner' },
      data: [{ secretKey: EXTERNAL_SECRET_KEY, remoteRef: { key: source.key, ...(source.property === undefined ? {} : { property: source.property }) } }],
    },
  };
}
