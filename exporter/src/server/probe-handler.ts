/**
 * GET /probe: what every prober shares. Module lookup, the deadline (the module's timeout, or the scrape
 * timeout less the offset, whichever is smaller), the probe itself (./probe-run.ts: a fresh registry with
 * probe_success, probe_duration_seconds and the failure reason), the probe's log for debug=true and the
 * history. Pure of HTTP: returns the reply.
 */
import type { Counter } from 'prom-client';
import { stringify } from 'yaml';
import { maskModule, maskUrl } from '../config/mask';
import type { CompiledConfig, CompiledModule } from '../config/module';
import { probeMetricsText } from '../metrics';
import { runProbe } from './probe-run';
import { ProbeLog, type Logger } from '../log';
import type { ProbeHistory } from './history';
import type { SelfListener } from '../probers/shared/target-guard';

/** Upstream's probe timeout when neither the module nor the scrape says one. */
const DEFAULT_SCRAPE_TIMEOUT_SECONDS = 120;

/** Upstream's default for --timeout-offset: the probe ends this long before the scrape times out. */
export const DEFAULT_TIMEOUT_OFFSET_SECONDS = 0.5;

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
}

function plain(status: number, body: string): ProbeReply {
  return { status, contentType: 'text/plain; charset=utf-8', body: `${body}\n` };
}

/** Digits with Go's underscores: only between two digits. */
const DECIMAL_DIGITS = '\\d(?:_?\\d)*';
const HEX_DIGITS = '[0-9A-Fa-f](?:_?[0-9A-Fa-f])*';
const GO_DECIMAL_FLOAT = new RegExp(`^[+-]?(?:${DECIMAL_DIGITS}(?:\\.(?:${DECIMAL_DIGITS})?)?|\\.${DECIMAL_DIGITS})(?:[eE][+-]?${DECIMAL_DIGITS})?$`);
const GO_HEX_FLOAT = new RegExp(`^([+-]?)0[xX]_?(${HEX_DIGITS})?(?:\\.(${HEX_DIGITS})?)?[pP]([+-]?${DECIMAL_DIGITS})$`);

/**
 * `text` read as Go's strconv.ParseFloat reads it (what upstream parses the scrape timeout header with):
 * decimal or hexadecimal with a binary exponent (0x1p-2), underscores between digits, inf, infinity and nan
 * in any case. Throws as it fails: a syntax error, or a finite number too large for a double.
 */
export function parseGoFloat(text: string): number {
  const special = /^([+-]?)(inf|infinity)$/i.exec(text);
  if (special) return special[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  let value: number | undefined;
  if (GO_DECIMAL_FLOAT.test(text)) value = Number(text.replaceAll('_', ''));
  const hex = GO_HEX_FLOAT.exec(text);
  if (hex && (hex[2] !== undefined || hex[3] !== undefined)) {
    const [whole, fraction] = [(hex[2] ?? '').replaceAll('_', ''), (hex[3] ?? '').replaceAll('_', '')];
    const mantissa = Number.parseInt(`${whole}${fraction}` || '0', 16);
    value = (hex[1] === '-' ? -1 : 1) * mantissa * 2 ** (Number(hex[4].replaceAll('_', '')) - 4 * fraction.length);
  }
  if (value === undefined) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
  if (!Number.isFinite(value)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/**
 * Seconds the probe may take, as upstream computes it: the scrape timeout (120 s when absent or 0) less
 * the offset, unless the module's own timeout is smaller (or that difference is negative).
 */
export function probeTimeoutSeconds(moduleTimeoutMs: number | undefined, scrapeTimeoutHeader: string | undefined, offsetSeconds: number): number {
  let scrapeSeconds = 0;
  if (scrapeTimeoutHeader !== undefined && scrapeTimeoutHeader !== '') scrapeSeconds = parseGoFloat(scrapeTimeoutHeader.trim());
  if (scrapeSeconds === 0) scrapeSeconds = DEFAULT_SCRAPE_TIMEOUT_SECONDS;
  const available = scrapeSeconds - offsetSeconds;
  const moduleSeconds = (moduleTimeoutMs ?? 0) / 1000;
  const seconds = (moduleSeconds > 0 && moduleSeconds < available) || available < 0 ? moduleSeconds : available;
  // NaN, or infinity without a module timeout: Go turns it into a negative duration, a probe out of time at once.
  return Number.isFinite(seconds) ? seconds : 0;
}

/** Each loaded module's masked YAML, written once: every probe keeps a debug text for the history. */
const maskedModuleYaml = new WeakMap<CompiledModule, string>();

/** The debug=true answer: the probe's log, the metrics it would return, its module as written with secrets masked. */
function debugText(logText: string, metricsText: string, module: CompiledModule): string {
  let moduleYaml = maskedModuleYaml.get(module);
  if (moduleYaml === undefined) {
    moduleYaml = stringify(maskModule(module.written));
    maskedModuleYaml.set(module, moduleYaml);
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
  const shownTarget = maskUrl(target);
  const probeLog = new ProbeLog(context.log, { module: moduleName, target: shownTarget });
  const { success, registry, refusal } = await runProbe(moduleName, module, target, shownTarget, probeLog, {
    timeoutSeconds,
    hostname,
    abandoned,
    openMetrics,
    allowedTargets: context.config.allowedTargets,
    self: context.self,
  });
  if (refusal) {
    context.targetsRefused?.inc({ module: moduleName, reason: refusal.reason });
    probeLog.warn('Target refused by allowed_targets', { reason: refusal.reason, stage: refusal.stage, problem: refusal.message });
  }

  const metricsText = await probeMetricsText(registry);
  let debug: string | undefined;
  // Written once, when the history's page or debug=true first asks: most probes' debug texts are never read.
  const debugOutput = (): string => (debug ??= debugText(probeLog.text(), metricsText, module));
  context.history.add({ module: moduleName, target: shownTarget, success, debugOutput });
  // The target itself refused: the caller asked for something it may not, which is the request's fault,
  // not the target's. A redirect refused mid-probe is the target's answer: probe_success 0 with the reason.
  if (refusal?.stage === 'target') return plain(403, refusal.message);
  if (params.get('debug') === 'true') return { status: 200, contentType: 'text/plain; charset=utf-8', body: debugOutput() };
  return { status: 200, contentType: registry.contentType, body: metricsText };
}
