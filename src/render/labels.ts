/**
 * The labels probekit puts on what it creates, Kubernetes' recommended `app.kubernetes.io/*` keys, so that
 * `kubectl get all -l app.kubernetes.io/part-of=probekit` lists everything of it in a namespace.
 */

/** What marks an object as probekit's. */
export const PART_OF_PROBEKIT = { 'app.kubernetes.io/part-of': 'probekit' } as const;

export interface ProbekitLabelsOptions {
  /** The application (`app.kubernetes.io/name`). */
  readonly name?: string;
  /** Which one of several of that application (`app.kubernetes.io/instance`). */
  readonly instance?: string;
  /** Its role within probekit (`app.kubernetes.io/component`). */
  readonly component?: string;
}

/** The labels of one probekit object: the ones given, and `part-of: probekit`. */
export function probekitLabels(options: ProbekitLabelsOptions = {}): Record<string, string> {
  return {
    ...(options.name === undefined ? {} : { 'app.kubernetes.io/name': options.name }),
    ...PART_OF_PROBEKIT,
    ...(options.instance === undefined ? {} : { 'app.kubernetes.io/instance': options.instance }),
    ...(options.component === undefined ? {} : { 'app.kubernetes.io/component': options.component }),
  };
}

/** The exporter's application name, as upstream's chart labels it. */
const EXPORTER_APP = 'blackbox-exporter';

/** The labels that select the pods of one exporter: readable, and independent of the construct tree. */
export function exporterSelectorLabels(serviceName: string): Record<string, string> {
  return { 'app.kubernetes.io/name': EXPORTER_APP, 'app.kubernetes.io/instance': serviceName };
}

/** Every label of one exporter's objects: its selector labels and `part-of: probekit`. */
export function exporterLabels(serviceName: string): Record<string, string> {
  return probekitLabels({ name: EXPORTER_APP, instance: serviceName });
}
