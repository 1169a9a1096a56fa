/**
 * Prometheus' query API as the report asks it: instant and range queries (POSTed, so long selectors fit), with the
 * headers the user gave, each failure one line naming the URL and what to do.
 */

/** A query failed: Prometheus unreachable, refusing, or answering as something else. One line, no secret in it. */
export class PrometheusFailure extends Error {}

export interface Series<V> {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: V;
}

/** [Unix seconds, value as Prometheus writes it] */
type Point = [number, string];

export interface PrometheusApi {
  /** Prometheus' URL as it may be shown: without a user or password. */
  readonly shownUrl: string;
  /** An instant vector at `time` (Unix seconds): one value per series. */
  instant(query: string, time: number): Promise<Array<Series<number>>>;
  /** A range vector selector at `time` (`probe_success{...}[6h]`): each series' raw samples. */
  samples(query: string, time: number): Promise<Array<Series<Array<readonly [number, number]>>>>;
  /** A range query: each series' values at start, start + step, ... up to end. */
  range(query: string, start: number, end: number, stepSeconds: number): Promise<Array<Series<Array<readonly [number, number]>>>>;
}

export interface ApiOptions {
  /** Sent with every request (Authorization, X-Scope-OrgID...). */
  readonly headers?: Readonly<Record<string, string>>;
  /** How long a query may take, in seconds; Prometheus is told the same. @default 120 */
  readonly timeoutSeconds?: number;
  readonly fetch?: typeof fetch;
}

/** The URL without user and password, for messages. */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  return shown.href.replace(/\/$/, '');
}

/** What a failed fetch says, in words: the cause's code (ECONNREFUSED) or message. */
function cause(error: unknown): string {
  const inner = (error as { cause?: { code?: string; message?: string } }).cause;
  return inner?.code ?? inner?.message ?? (error instanceof Error ? error.message : String(error));
}

const AUTH_HINT = "give its credentials with --header 'Authorization: ...' or --bearer-token-file";

export function prometheusApi(base: string, options: ApiOptions = {}): PrometheusApi {
  const url = new URL(base.endsWith('/') ? base : `${base}/`);
  const shown = shownUrl(url);
  const timeoutSeconds = options.timeoutSeconds ?? 120;
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { ...options.headers, 'content-type': 'application/x-www-form-urlencoded' };
  if (url.username !== '') headers.authorization ??= `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const endpoint = (path: string) => {
    const target = new URL(path, url);
    target.username = '';
    target.password = '';
    return target;
  };

  async function post<T>(path: string, params: Record<string, string>): Promise<T> {
    const body = new URLSearchParams({ ...params, timeout: `${timeoutSeconds}s` }).toString();
    let response: Response;
    try {
      response = await doFetch(endpoint(path), { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutSeconds * 1000) });
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new PrometheusFailure(`Prometheus at ${shown} did not answer a query within ${timeoutSeconds} s; give it longer with --timeout, or ask for less (a shorter window, fewer --job)`);
      }
      throw new PrometheusFailure(`cannot reach Prometheus at ${shown}: ${cause(error)}; check --prometheus`);
    }
    if (response.status === 401 || response.status === 403) {
      throw new PrometheusFailure(`Prometheus at ${shown} answered ${response.status} ${response.statusText}; ${AUTH_HINT}`);
    }
    const text = await response.text().catch((error: unknown) => {
      throw new PrometheusFailure(`Prometheus at ${shown} broke off its answer: ${cause(error)}`);
    });
    let answer: { status?: string; data?: T; error?: string; errorType?: string };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      throw new PrometheusFailure(
        `${shown} did not answer ${path} as Prometheus does (HTTP ${response.status}, ${response.headers.get('content-type') ?? 'no content type'}); give Prometheus' base URL to --prometheus`,
      );
    }
    if (answer.status !== 'success' || answer.data === undefined) {
      const why = answer.error ?? `HTTP ${response.status}`;
      throw new PrometheusFailure(`Prometheus at ${shown} refused the query ${params.query}: ${why.split('\n')[0]}`);
    }
    return answer.data;
  }

  const numbers = (points: readonly Point[]) => points.map(([time, value]) => [time, Number(value)] as const);
  return {
    shownUrl: shown,
    async instant(query, time) {
      const data = await post<{ resultType: string; result: Array<{ metric: Record<string, string>; value: Point }> }>('api/v1/query', { query, time: String(time) });
      return data.result.map((series) => ({ metric: series.metric, value: Number(series.value[1]) }));
    },
    async samples(query, time) {
      const data = await post<{ result: Array<{ metric: Record<string, string>; values: Point[] }> }>('api/v1/query', { query, time: String(time) });
      return data.result.map((series) => ({ metric: series.metric, value: numbers(series.values) }));
    },
    async range(query, start, end, stepSeconds) {
      const data = await post<{ result: Array<{ metric: Record<string, string>; values: Point[] }> }>('api/v1/query_range', {
        query,
        start: String(start),
        end: String(end),
        step: String(stepSeconds),
      });
      return data.result.map((series) => ({ metric: series.metric, value: numbers(series.values) }));
    },
  };
}
