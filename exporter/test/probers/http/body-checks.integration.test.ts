/**
 * Work a target decides: body checks whose cost the body sets (a CEL expression quadratic in a list, a regexp
 * with many states over megabytes), against the exporter run as a process. Each probe must end at its deadline
 * with a timeout saying what was still running, as the exporter reports it (probe_duration_seconds against the
 * module's timeout, its reason and log line), /-/healthy must answer all along, and later probes must find the
 * checks working again. A check that needs more memory than its thread may use fails its probe alone.
 */
import { stringify } from 'yaml';
import { metricValue } from '../../../loopback/metrics-text';
import { startExporter, type RunningExporter } from '../../../loopback/reference-exporter';
import { probeWhileHealthy as probeWhileHealthyAt, startSite, type TargetSite } from '../../support/probe-while-healthy';
import { CHECK_HEAP_MIB } from '../../../src/probers/shared/checks';

/** The module timeout of the costly checks, in seconds. */
const TIMEOUT = 2;
/** How far past its timeout a probe may report ending: the process's own latency on a loaded machine. */
const MARGIN = 1.5;

const BODIES: Record<string, string> = {
  // 5,000 numbers: `body.exists(x, body.exists(y, ...))` evaluates 25 million times.
  '/numbers': JSON.stringify(Array.from({ length: 5000 }, (_, index) => index)),
  // Just under the 4 MiB a checked body may have: each regexp below takes RE2 about 0.1 s over it on this machine.
  '/letters': 'abcdefgh'.repeat(512 * 1024 - 1),
  // 3.8 MiB of small objects: fine as JSON, past a check thread's heap once CEL holds it as its values.
  '/objects': `[${'{"a":1},'.repeat(500_000)}{"a":1}]`,
  '/small': JSON.stringify({ status: 'ok', items: [1, 2, 3] }),
};

let site: TargetSite;
let exporter: RunningExporter;

beforeAll(async () => {
  site = await startSite((request, response) => response.end(BODIES[request.url ?? ''] ?? 'none'));
  const http = (timeout: string, section: Record<string, unknown>) => ({ prober: 'http', timeout, http: { preferred_ip_protocol: 'ip4', ...section } });
  const modules = {
    quadratic_cel: http(`${TIMEOUT}s`, { fail_if_body_json_not_matches_cel: 'body.exists(x, body.exists(y, x + y == -1)) || true' }),
    quadratic_cel_matches: http(`${TIMEOUT}s`, { fail_if_body_json_matches_cel: 'body.all(x, body.all(y, x + y >= 0)) && false' }),
    // 60 regexps of 400 to 459 repeated alternatives: RE2 is linear, but 60 passes over 4 MiB take seconds.
    many_states: http(`${TIMEOUT}s`, { fail_if_body_matches_regexp: Array.from({ length: 60 }, (_, index) => `(?:a|b|c|d|e|f|g|h){${400 + index}}[^a-h]`) }),
    big_json: http('10s', { body_size_limit: '16MiB', fail_if_body_json_not_matches_cel: 'body.exists(x, x.a == 2)' }),
    small_cel: http('10s', { fail_if_body_json_not_matches_cel: "body.status == 'ok' && body.items.size() == 3" }),
    small_regexp: http('10s', { fail_if_body_not_matches_regexp: ['"status":"ok"'] }),
  };
  exporter = await startExporter('ours', stringify({ modules }));
}, 60_000);

afterAll(async () => {
  await exporter?.stop();
  site?.close();
});

const probeWhileHealthy = (module: string, path: string) => probeWhileHealthyAt(exporter, module, site.url(path));

const reasonOf = (samples: Awaited<ReturnType<typeof probeWhileHealthy>>['samples']) => samples.find((sample) => sample.name === 'probe_failure_reason')?.labels;

describe('checks that cost what the body makes them cost end at the deadline', () => {
  it.each([
    ['a CEL expression quadratic in a list of 5,000', 'quadratic_cel', '/numbers', 'CEL checks of the body'],
    ['a fail_if_body_json_matches_cel expression quadratic in it', 'quadratic_cel_matches', '/numbers', 'CEL checks of the body'],
    ['60 regexps of hundreds of repeated alternatives over 4 MiB', 'many_states', '/letters', 'body regexps'],
  ])(
    '%s: timed out at the deadline, /-/healthy answered throughout',
    async (_name, module, path, what) => {
      const { text, samples, health } = await probeWhileHealthy(module, path);
      expect(metricValue(samples, 'probe_success')).toBe(0);
      expect(reasonOf(samples)).toEqual({ reason: 'timed out', phase: 'response' });
      const duration = metricValue(samples, 'probe_duration_seconds')!;
      expect(duration).toBeGreaterThanOrEqual(TIMEOUT - 0.1);
      expect(duration).toBeLessThan(TIMEOUT + MARGIN);
      expect(text).toContain(`detail="the ${what} were still running at the deadline, and were stopped"`);
      // The server kept answering while the check ran: a poll every 100 ms, each answered, none failed.
      expect(health.length).toBeGreaterThanOrEqual(3);
      expect(health.filter((status) => status !== 200)).toEqual([]);
    },
    30_000,
  );

  it('later checks run again, on small bodies and large', async () => {
    for (const module of ['small_cel', 'small_regexp']) {
      const { samples } = await probeWhileHealthy(module, '/small');
      expect({ module, success: metricValue(samples, 'probe_success') }).toEqual({ module, success: 1 });
    }
  });
});

describe('a check that needs more memory than its thread may use', () => {
  it(`fails its probe, saying so, and leaves the exporter running (${CHECK_HEAP_MIB} MiB per check thread)`, async () => {
    const { text, samples } = await probeWhileHealthy('big_json', '/objects');
    expect(metricValue(samples, 'probe_success')).toBe(0);
    expect(reasonOf(samples)).toEqual({ reason: 'body CEL expression failed' });
    expect(metricValue(samples, 'probe_failed_due_to_cel')).toBe(1);
    expect(text).toContain(`the checks needed more than the ${CHECK_HEAP_MIB} MiB of memory a check may use`);
    expect((await fetch(`${exporter.baseUrl}/-/healthy`)).ok).toBe(true);
    const { samples: after } = await probeWhileHealthy('small_cel', '/small');
    expect(metricValue(after, 'probe_success')).toBe(1);
  }, 30_000);
});
