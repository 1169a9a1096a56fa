/**
 * Which logs belong to a probe's target: the rules a user configures (a glob over the target, and the log filters
 * of the service behind it, which may use what the glob's `*`s matched), then Kubernetes' own naming (a Service's
 * DNS name `<service>.<namespace>.svc` names the service and its namespace). A target that no rule covers is a
 * question for the user, not a guess.
 */
import { z } from 'zod';

/** The log filters a target can map to. */
export const TARGET_LOG_FILTERS = ['service', 'namespace', 'pod', 'container', 'host'] as const;
export type TargetLogFilter = (typeof TARGET_LOG_FILTERS)[number];

export interface TargetLogRule {
  /** A glob over the target as the scrape job lists it (`https://checkout.example.com/*`); `*` matches anything. */
  readonly target: string;
  /** Filters of the logs of the service behind it; `$1`…`$9` are what the glob's `*`s matched. */
  readonly logs: Partial<Record<TargetLogFilter, string>>;
  /** Index pattern of those logs. @default the skills' default */
  readonly index?: string;
}

export const TARGET_LOG_RULE = z
  .object({
    target: z.string().min(1).describe('Glob over the target; * matches anything, and $1, $2... in the filters are what each * matched'),
    logs: z
      .object(Object.fromEntries(TARGET_LOG_FILTERS.map((name) => [name, z.string().min(1).optional()])) as Record<TargetLogFilter, z.ZodOptional<z.ZodString>>)
      .strict()
      .refine((logs) => Object.values(logs).some((value) => value !== undefined), 'name at least one of service, namespace, pod, container, host'),
    index: z.string().min(1).optional(),
  })
  .strict();

export interface TargetLogs {
  readonly filters: Partial<Record<TargetLogFilter, string>>;
  readonly index?: string;
  /** Which rule decided, in words. */
  readonly rule: string;
}

/** The host a target names: a URL's host, or the part before the port of `host:port`. */
export function targetHost(target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      return new URL(target).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return undefined;
    }
  }
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(target);
  if (bracketed) return bracketed[1];
  const parts = target.split(':');
  return parts.length <= 2 ? parts[0] : target;
}

function globMatch(glob: string, text: string): string[] | undefined {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('(.*?)');
  const match = new RegExp(`^${source}$`).exec(text);
  return match ? match.slice(1) : undefined;
}

const KUBERNETES_SERVICE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(\.cluster\.local)?\.?$/;

/** The logs of the service behind `target`, by the first rule that matches it, then by Kubernetes' naming. */
export function targetLogs(target: string, rules: readonly TargetLogRule[] = []): TargetLogs | undefined {
  for (const [i, rule] of rules.entries()) {
    const captures = globMatch(rule.target, target);
    if (captures === undefined) continue;
    const filters = Object.fromEntries(Object.entries(rule.logs).map(([name, value]) => [name, value!.replace(/\$([1-9])/g, (_, n: string) => captures[Number(n) - 1] ?? '')]));
    return { filters, ...(rule.index === undefined ? {} : { index: rule.index }), rule: `target rule ${i + 1} (${rule.target})` };
  }
  const host = targetHost(target);
  const service = host === undefined ? undefined : KUBERNETES_SERVICE.exec(host);
  if (service) return { filters: { service: service[1]!, namespace: service[3]! }, rule: `Kubernetes Service name ${host}` };
  return undefined;
}
