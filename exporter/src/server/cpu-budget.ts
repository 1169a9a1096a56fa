/**
 * How many CPUs this process may use, for --probe.workers=auto: the CPUs it may run on
 * (os.availableParallelism, which follows the affinity mask) capped by its cgroup's CPU quota, rounded up,
 * as a container's CPU limit sets it (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

export interface CgroupFiles {
  /** Where the cgroup file systems are mounted. @default /sys/fs/cgroup */
  readonly root?: string;
  /** The process's /proc/self/cgroup text. @default read from /proc */
  readonly selfCgroup?: string;
  /** CPUs the process may run on. @default os.availableParallelism() */
  readonly parallelism?: number;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The quota in CPUs a cgroup's files set, or undefined when none does. */
function quotaOf(root: string, selfCgroup: string): number | undefined {
  const quotas: number[] = [];
  for (const line of selfCgroup.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    if (path === undefined) continue;
    if (controllers === '') {
      // cgroup v2: "max 100000" or "50000 100000"; a container usually sees its own cgroup as the root.
      for (const dir of [join(root, path), root]) {
        const [quota, period] = (read(join(dir, 'cpu.max')) ?? '').trim().split(/\s+/);
        if (quota !== undefined && period !== undefined && /^\d+$/.test(quota) && Number(period) > 0) quotas.push(Number(quota) / Number(period));
        if (quota !== undefined && quota !== '') break;
      }
    } else if (controllers.split(',').includes('cpu')) {
      for (const dir of [join(root, 'cpu', path), join(root, 'cpu,cpuacct', path), join(root, 'cpu'), join(root, 'cpu,cpuacct')]) {
        const quota = Number(read(join(dir, 'cpu.cfs_quota_us')));
        const period = Number(read(join(dir, 'cpu.cfs_period_us')));
        if (Number.isFinite(quota) && Number.isFinite(period) && period > 0) {
          if (quota > 0) quotas.push(quota / period);
          break;
        }
      }
    }
  }
  return quotas.length === 0 ? undefined : Math.min(...quotas);
}

/** CPUs this process may use, a whole number of at least 1. */
export function usableCpus(files: CgroupFiles = {}): number {
  const parallelism = files.parallelism ?? availableParallelism();
  const quota = quotaOf(files.root ?? '/sys/fs/cgroup', files.selfCgroup ?? read('/proc/self/cgroup') ?? '');
  return Math.max(1, Math.min(parallelism, quota === undefined ? parallelism : Math.ceil(quota)));
}
