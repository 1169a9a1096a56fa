/**
 * The exporter's contract: everything another package may know about the exporter, and the only entry point
 * of `@probekit/exporter` (its package.json `exports` refuses deep imports). Importing it loads no probe
 * function and no runtime dependency of the exporter, only what describes its config file (the probers'
 * definitions: sections, compile steps, target grammars), its HTTP interface and its failure reasons; the
 * probers load on the first call of `probeTarget`, which runs one probe in the caller's process.
 */
import { isMainThread, workerData } from 'node:worker_threads';
import { CHECK_ROLE } from '../probers/shared/check-messages';

export * from './endpoints';
export * from './service-discovery';
export * from './problems';
export * from './targets';
export * from './config';
export { EXPORTER_VERSION, EXPORTER_IMAGE } from '../version';
export * from './config-problems';
export { DURATION_HINT, parseDuration, formatDuration, GO_DURATION_HINT, parseGoDuration } from '../config/duration';
export { parseByteSize } from '../config/size';
export * from './failure-reasons';
export { probeTarget, type TargetProbeOptions, type TargetProbeResult, type ProbeSample, type ProbeLogEntry } from './probe-target';

// probeTarget's costly checks run in threads that load this same file (the contract bundle) with this role.
if (!isMainThread && (workerData as { role?: string } | null)?.role === CHECK_ROLE) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- only a check thread initializes it
  require('../probers/shared/check-worker');
}
