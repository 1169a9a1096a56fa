/**
 * One probe as every caller runs it (the /probe handler, and `probekit test` through the contract): a fresh
 * registry with probe_success, probe_duration_seconds and, on failure, probe_failure_reason; the deadline;
 * the probe contained, so that an error escaping it fails this probe alone.
 */
import { FAILURE_REASON_METRIC, type ProbeFailure } from '../contract/failure-reasons';
import type { CompiledModule } from '../config/module';
import type { ProbeLog } from '../log';
import { PROBE_DURATION, PROBE_SUCCESS, ProbeRegistry, gauge } from '../metrics';
import { probe } from '../probers';
import { deadlineIn, ProbeInterrupted } from '../probers/shared/deadline';
import { failed } from '../probers/shared/failure';
import { TargetGuard, type Refusal, type SelfListener } from '../probers/shared/target-guard';
import type { AllowList } from '../config/allowed-targets';
import type { ProbeOutcome } from '../probers/types';
import { runContained } from './escaped-errors';

export interface ProbeRunOptions {
  readonly timeoutSeconds: number;
  /** The `hostname` query parameter. */
  readonly hostname?: string;
  /** Fires when whoever asked for the probe went away: the probe stops then. */
  readonly abandoned?: AbortSignal;
  readonly openMetrics?: boolean;
  /** The config's exporter-wide allowed_targets; the module's own comes with the module. */
  readonly allowedTargets?: AllowList;
  /** The exporter's listener, which deny_self_and_metadata refuses. */
  readonly self?: SelfListener;
}

export interface ProbeRun {
  readonly success: boolean;
  /** Why the probe failed; absent when it succeeded. */
  readonly failure?: ProbeFailure;
  readonly durationSeconds: number;
  /** What the allow-list refused, when it refused the target or a redirect (the failure is then `target refused`). */
  readonly refusal?: Refusal;
  /** The probe's metrics, ready to be written out. */
  readonly registry: ProbeRegistry;
}

/** A probe that could not run (its worker stopped or missed the deadline): failed, with the reason `internal error`. */
export function internalFailureMetrics(durationSeconds: number, openMetrics: boolean): { metricsText: string; contentType: string } {
  const registry = new ProbeRegistry(openMetrics);
  gauge(registry, PROBE_SUCCESS).set(0);
  gauge(registry, PROBE_DURATION).set(durationSeconds);
  const { reason } = FAILURE_REASON_METRIC.labels;
  gauge(registry, FAILURE_REASON_METRIC, [reason, FAILURE_REASON_METRIC.labels.phase]).set({ [reason]: 'internal error' }, 1);
  return { metricsText: registry.text(), contentType: registry.contentType };
}

/** Probes `target` with `module`; `shownTarget` is the target as logs may show it (credentials masked). */
export async function runProbe(moduleName: string, module: CompiledModule, target: string, shownTarget: string, probeLog: ProbeLog, options: ProbeRunOptions): Promise<ProbeRun> {
  probeLog.debug('Beginning probe', { probe: module.prober, timeout_seconds: options.timeoutSeconds });
  const registry = new ProbeRegistry(options.openMetrics);
  const successGauge = gauge(registry, PROBE_SUCCESS);
  const durationGauge = gauge(registry, PROBE_DURATION);
  const deadline = deadlineIn(options.timeoutSeconds * 1000, options.abandoned);
  const started = performance.now();
  const lists = [options.allowedTargets, module.allowedTargets].filter((list): list is AllowList => list !== undefined);
  // Without a list nothing is checked, and probers get no guard to ask.
  const guard = lists.length > 0 ? new TargetGuard(lists, options.self) : undefined;
  let outcome: ProbeOutcome = failed('internal error');
  // An error that escaped the probe fails it at once, even if the prober was waiting on something else.
  let onEscape: () => void = () => undefined;
  const escaped = new Promise<ProbeOutcome>((resolve) => {
    onEscape = () => resolve(failed('internal error'));
  });
  const scope = {
    module: moduleName,
    target: shownTarget,
    escaped: (error: unknown) => {
      probeLog.error('An error escaped the probe', { err: error as Error });
      deadline.interrupt(new ProbeInterrupted('an error escaped the probe'));
      onEscape();
    },
  };
  try {
    outcome = await Promise.race([runContained(scope, () => probe(deadline, target, module, registry, probeLog, { hostname: options.hostname, guard })), escaped]);
  } catch (error) {
    // A prober must not throw; if one does, the probe fails rather than the exporter.
    probeLog.error('Prober failed unexpectedly', { err: error as Error });
  } finally {
    deadline.cancel();
  }
  const durationSeconds = (performance.now() - started) / 1000;
  durationGauge.set(durationSeconds);
  successGauge.set(outcome.success ? 1 : 0);
  if (outcome.success) {
    probeLog.debug('Probe succeeded', { duration_seconds: durationSeconds });
    return { success: true, durationSeconds, registry };
  }
  const failure: ProbeFailure = {
    reason: outcome.reason,
    ...(outcome.phase === undefined ? {} : { phase: outcome.phase }),
    ...(outcome.detail === undefined ? {} : { detail: outcome.detail }),
  };
  const { reason, phase } = FAILURE_REASON_METRIC.labels;
  gauge(registry, FAILURE_REASON_METRIC, [reason, phase]).set({ [reason]: failure.reason, ...(failure.phase === undefined ? {} : { [phase]: failure.phase }) }, 1);
  // The detail goes to the log line, not to a label: its words hold what the server sent.
  probeLog.error('Probe failed', {
    duration_seconds: durationSeconds,
    reason: failure.reason,
    ...(failure.phase === undefined ? {} : { phase: failure.phase }),
    ...(failure.detail === undefined ? {} : { detail: failure.detail }),
  });
  return { success: false, failure, durationSeconds, registry, ...(guard?.refusal && { refusal: guard.refusal }) };
}
