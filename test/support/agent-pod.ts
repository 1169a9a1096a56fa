/**
 * The agent's pod as a chart builds it from the values' extra volumes and mounts: whether Kubernetes would take
 * them (its Pod schema, through kubernetes-models), and which files the agent's container then sees.
 */
import { Pod } from 'kubernetes-models/v1/Pod';

interface SecretVolume {
  readonly name: string;
  readonly secret: { readonly secretName: string; readonly items?: ReadonlyArray<{ readonly key: string; readonly path: string }> };
}
interface Mount {
  readonly name: string;
  readonly mountPath: string;
}

/** Validates a pod holding these volumes and a container with these mounts; throws naming what Kubernetes refuses. */
export function validateAgentPod(volumes: readonly SecretVolume[], mounts: readonly Mount[]): void {
  new Pod({
    metadata: { name: 'agent' },
    spec: {
      containers: [{ name: 'agent', image: 'agent', volumeMounts: [...mounts] }],
      volumes: volumes.map((volume) => ({ ...volume, secret: { ...volume.secret, items: volume.secret.items?.map((item) => ({ ...item })) } })),
    },
  }).validate();
}

/** The files the container sees from Secret volumes, with the Secret and key each one holds. */
export function mountedFiles(volumes: readonly SecretVolume[], mounts: readonly Mount[]): Map<string, { secretName: string; key: string }> {
  const files = new Map<string, { secretName: string; key: string }>();
  for (const mount of mounts) {
    const volume = volumes.find((candidate) => candidate.name === mount.name);
    if (volume === undefined) throw new Error(`the mount ${mount.name} has no volume`);
    for (const item of volume.secret.items ?? []) files.set(`${mount.mountPath}/${item.path}`, { secretName: volume.secret.secretName, key: item.key });
  }
  return files;
}

/** The files under /etc/probekit/ that a text (jobs, an Alloy configuration) names. */
export function probekitFilesNamed(text: string): string[] {
  return [...new Set(text.match(/\/etc\/probekit\/[^\s"',\]]+/g) ?? [])];
}
