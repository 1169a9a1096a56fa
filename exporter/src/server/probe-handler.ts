/**
 * GET /probe: what every prober shares. Module lookup, the deadline (the module's timeout, or the scrape
 * timeout less the offset, whichever is smaller), the probe itself (./probe-run.ts: a fresh registry with
 * probe_success, probe_duration_seconds and the failure reason), the probe's log for debug=true and the
 * history. Pure of HTTP: returns the reply.
 */
import type { Counter } from 'prom-client';
import type { ProbeFailure } from '../contract/failure-reasons';
import { maskedModuleYaml } from '../config/mask';
import type { CompiledConfig, CompiledModule } from '../config/module';
import { runProbe } from './probe-run';
import { probeTimeoutSeconds } from './probe-timeout';
import { ProbeLog, type Logger } from '../log';
import type { ProbeHistory } from './history';
import type { Refusal, SelfListener } from '../probers/shared/target-guard';
import type { ProbePool } from './probe-pool';
import { internalFailureMetrics } from './probe-run';

/** Upstream's default module when the request names none. */
export const DEFAULT_MODULE = 'http_2xx';

export interface ProbeReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface ProbeContext {
  readonly config: CompiledConfig;
  readonly timeoutOffsetSeconds: number;
  readonly log: Logger;
  readonly history: ProbeHistory;
  readonly unknownModules: Counter;
  /** probekit_exporter_targets_refused_total, labelled module and reason. */
  readonly targetsRefused?: Counter<'module' | 'reason'>;
  /** The exporter's listener, for allowed_targets.deny_self_and_metadata. */
  readonly self?: SelfListener;
  /** Worker threads that run the probes (--probe.workers > 1); without, probes run in this thread. */
  readonly pool?: ProbePool;
}

/** What the answer needs of a probe, wherever it ran. */
interface ProbeAnswer {
  readonly success: boolean;
  readonly failure?: ProbeFailure;
  readonly refusal?: Refusal;
  readonly metricsText: string;
  readonly contentType: string;
}

function plain(status: number, body: string): ProbeReply {
  return { status, contentType: 'text/plain; charset=utf-8', body: `${body}\n` };
}

/** Each loaded module's masked YAML, written once: every probe keeps a debug text for the history. */
const moduleYamlTexts = new WeakMap<CompiledModule, string>();

/** The debug=true answer: the probe's log, the metrics it would return, its module as written with secrets masked. */
function debugText(logText: string, metricsText: string, module: CompiledModule): string {
  let moduleYaml = moduleYamlTexts.get(module);
  if (moduleYaml === undefined) {
    moduleYaml = maskedModuleYaml(module.written);
    moduleYamlTexts.set(module, moduleYaml);
  }
  return `Logs for the probe:\n${logText}\n\n\nMetrics that would have been returned:\n${metricsText}\n\n\nModule configuration:\n${moduleYaml}`;
}

/**
 * Answers one /probe request. `abandoned` fires when the scrape goes away before the answer (the client
 * disconnected, Prometheus' scrape timeout passed): the probe stops then, as upstream's does with its
 * request's context, rather than holding its connections until the module's timeout.
 */
export async function handleProbe(context: ProbeContext, params: URLSearchParams, scrapeTimeoutHeader: string | undefined, openMetrics: boolean, abandoned?: AbortSignal): Promise<ProbeReply> {
  const moduleName = params.get('module') || DEFAULT_MODULE;
  const module = context.config.modules[moduleName];
  if (!module) {
    context.unknownModules.inc();
    context.log.debug('Unknown module', { module: moduleName });
    return plain(400, `Unknown module ${JSON.stringify(moduleName)}: use one of the config's modules`);
  }
  let timeoutSeconds: number;
  try {
    timeoutSeconds = probeTimeoutSeconds(module.timeoutMs, scrapeTimeoutHeader, context.timeoutOffsetSeconds);
  } catch (error) {
    return plain(500, `Failed to parse timeout from Prometheus header: ${(error as Error).message}`);
  }
  const target = params.get('target');
  if (!target) return plain(400, 'Target parameter is missing: add target=<address> to the query');
  const hostname = params.get('hostname') || undefined;
  if (hostname !== undefined && module.prober === 'http') {
    const configured = module.http.request.hostHeader;
    if (configured !== undefined && configured !== hostname) {
      return plain(400, `Host header defined both in module configuration (${configured}) and with URL-parameter 'hostname' (${hostname}); keep one`);
    }
  }

  // A target may carry credentials (https://user:password@host/); logs and history show it masked.
  const probeLog = ProbeLog.forTarget(context.log, moduleName, target);
  const shownTarget = probeLog.shownTarget;
  const started = performance.now();
  let answer: ProbeAnswer;
  if (context.pool) {
    const result = await context.pool.probe({ module: moduleName, target, shownTarget, timeoutSeconds, hostname, openMetrics, self: context.self, abandoned }, probeLog);
    // A worker that could not run the probe (it stopped, or was replaced past the deadline) fails it, as an internal error.
    answer =
      result.metricsText === undefined
        ? { success: false, failure: result.failure ?? { reason: 'internal error' }, ...internalFailureMetrics((performance.now() - started) / 1000, openMetrics) }
        : { success: result.success, failure: result.failure, refusal: result.refusal, metricsText: result.metricsText, contentType: result.contentType! };
  } else {
    const run = await runProbe(moduleName, module, target, shownTarget, probeLog, {
      timeoutSeconds,
      hostname,
      abandoned,
      openMetrics,
      allowedTargets: context.config.allowedTargets,
      self: context.self,
    });
    answer = { success: run.success, failure: run.failure, refusal: run.refusal, metricsText: run.registry.text(), contentType: run.registry.contentType };
  }
  const { success, failure, refusal, metricsText } = answer;
  if (refusal) {
    context.targetsRefused?.inc({ module: moduleName, reason: refusal.reason });
    probeLog.warn('Target refused by allowed_targets', { reason: refusal.reason, stage: refusal.stage, problem: refusal.message });
  }

  let debug: string | undefined;
  // Written once, when the history's page or debug=true first asks: most probes' debug texts are never read.
  const debugOutput = (): string => (debug ??= debugText(probeLog.text(), metricsText, module));
  context.history.add({ module: moduleName, target: shownTarget, success, ...(failure && { failure }), debugOutput });
  // The target itself refused: the caller asked for something it may not, which is the request's fault,
  // not the target's. A redirect refused mid-probe is the target's answer: probe_success 0 with the reason.
  if (refusal?.stage === 'target') return plain(403, refusal.message);
  if (params.get('debug') === 'true') return { status: 200, contentType: 'text/plain; charset=utf-8', body: debugOutput() };
  return { status: 200, contentType: answer.contentType, body: metricsText };
}
