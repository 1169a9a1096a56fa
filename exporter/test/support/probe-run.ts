/** Running one prober in-process against a module written as YAML, the way the handler would. */
import { ProbeRegistry } from '../../src/metrics';
import { stringify } from 'yaml';
import type { ModuleInput } from '../../src/contract';
import { parseConfig } from '../../src/config/load';
import { Logger, ProbeLog } from '../../src/log';
import { probe } from '../../src/probers';
import { deadlineIn } from '../../src/probers/shared/deadline';
import type { ProbeOptions } from '../../src/probers/types';
import type { ProbeFailure } from '../../src/contract/failure-reasons';
import { parseMetrics, type Sample } from '../../loopback/metrics-text';

export interface ProbeRun {
  readonly success: boolean;
  /** Why it failed, when it did. */
  readonly failure?: ProbeFailure;
  readonly samples: Sample[];
  readonly log: string;
  /**
   * Whether the probe's deadline had passed when the probe settled: what a test asserts instead of the time it
   * took on this machine. A probe that gave up on a silent server did so at its deadline (true, with a `timed out`
   * reason); one that failed at once failed before it (false, with a deadline far longer than the failure needs).
   */
  readonly deadlineExpired: boolean;
}

/** A probe's logger that writes nowhere but its own debug text, as a probe run in a test has it. */
export function quietProbeLog(): ProbeLog {
  return new ProbeLog(new Logger('error', () => undefined), {});
}

/** Probes `target` with the module described by `moduleYaml` (the lines under the module name). */
export async function runProbe(moduleYaml: string, target: string, options: ProbeOptions & { timeoutMs?: number; configDir?: string } = {}): Promise<ProbeRun> {
  const yaml = `modules:\n  m:\n${moduleYaml.replace(/^/gm, '    ')}\n`;
  const module = parseConfig(yaml, `${options.configDir ?? '/tmp'}/blackbox.yml`).modules.m;
  const registry = new ProbeRegistry();
  const log = quietProbeLog();
  const deadline = deadlineIn(options.timeoutMs ?? 5000);
  try {
    const outcome = await probe(deadline, target, module, registry, log, { hostname: options.hostname });
    const { success, ...failure } = outcome;
    return { success, ...(success ? {} : { failure: failure as ProbeFailure }), samples: parseMetrics(registry.text()), log: log.text(), deadlineExpired: deadline.signal.aborted };
  } finally {
    deadline.cancel();
  }
}

/** Probes `target` with `module` given as an object (as the config's YAML would say it). */
export function runModule(module: ModuleInput, target: string, options: ProbeOptions & { timeoutMs?: number; configDir?: string } = {}): Promise<ProbeRun> {
  // Bytes (Uint8Array) are written as !!binary, as a config file would have them.
  return runProbe(stringify(module, { customTags: ['binary'] }), target, options);
}
