/** Runs one prober the way the probe handler does: a module parsed with defaults, a fresh registry, a deadline. */
import { Registry } from 'prom-client';
import { moduleSchema, type ModuleInput } from '../../exporter/src/config/schema';
import { Logger, ProbeLog } from '../../exporter/src/log';
import { deadlineIn } from '../../exporter/src/probers/shared/deadline';
import type { Prober } from '../../exporter/src/probers/types';
import { parseMetrics, type Sample } from './metrics-text';

export interface ProbeRun {
  readonly success: boolean;
  readonly samples: Sample[];
  /** The probe's log lines, as its debug output shows them. */
  readonly log: string;
  readonly elapsedMs: number;
}

const silent = new Logger('error', () => undefined);

export async function runProbe(prober: Prober, target: string, module: ModuleInput, timeoutMs = 2000): Promise<ProbeRun> {
  const parsed = moduleSchema.parse(module);
  const registry = new Registry();
  const log = new ProbeLog(silent, {});
  const deadline = deadlineIn(timeoutMs);
  const started = performance.now();
  try {
    const success = await prober(deadline, target, parsed, registry, log, {});
    return { success, samples: parseMetrics(await registry.metrics()), log: log.text(), elapsedMs: performance.now() - started };
  } finally {
    deadline.cancel();
  }
}

