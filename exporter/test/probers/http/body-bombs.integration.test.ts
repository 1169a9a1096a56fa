/**
 * Memory a target decides: small compressed bodies that expand to tens or hundreds of megabytes, probed by
 * modules whose checks must keep the body, against the exporter run as the image runs it under its 256 MB
 * limit (--max-old-space-size=256). The exporter must stay up, answer /-/healthy, and fail each probe with the
 * body-too-large reason, having read no more than the cap; its own /metrics says how much memory it holds.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { FROM_SOURCE } from '../../../loopback/from-source';
import { metricValue, parseMetrics } from '../../../loopback/metrics-text';
import { OUR_EXPORTER_MAIN, startExporter, type RunningExporter } from '../../../loopback/reference-exporter';
import { probeWhileHealthy as probeWhileHealthyAt, startSite, type TargetSite } from '../../support/probe-while-healthy';
import { CHECKED_BODY_LIMIT } from '../../../src/probers/http/body';

const MiB = 1024 * 1024;

/** `member` gzip members back to back: one body, as gzip readers (Go's and Node's) read them. */
const repeated = (member: Buffer, times: number): Buffer => Buffer.concat(Array<Buffer>(times).fill(member));

/** 64 MiB of JSON, `[{"a":1},...]`, as 48 gzip members of 1.3 MiB each: about 90 KB on the wire. */
function jsonBomb(): Buffer {
  const items = '{"a":1},'.repeat((4 * MiB) / 8);
  return Buffer.concat([gzipSync('['), repeated(gzipSync(items, { level: 9 }), 16), gzipSync('{"a":1}]')]);
}

/** 64 MiB of one letter, gzipped: about 64 KB. */
const member = (): Buffer => gzipSync(Buffer.alloc(64 * MiB, 'a'), { level: 9 });

let site: TargetSite;
let exporter: RunningExporter;
const bodies: Record<string, { readonly encoding: string; readonly bytes: Buffer }> = {};

beforeAll(async () => {
  bodies['/json-bomb'] = { encoding: 'gzip', bytes: jsonBomb() };
  const letters = member();
  // 1 GiB in 16 members, about 1 MB on the wire; 256 MiB in 4.
  bodies['/text-bomb'] = { encoding: 'gzip', bytes: repeated(letters, 16) };
  bodies['/smaller-bomb'] = { encoding: 'gzip', bytes: repeated(letters, 4) };
  const text = Buffer.alloc(2 * MiB, 'a');
  bodies['/gzip'] = { encoding: 'gzip', bytes: gzipSync(text) };
  bodies['/deflate'] = { encoding: 'deflate', bytes: deflateSync(text) };
  bodies['/br'] = { encoding: 'br', bytes: brotliCompressSync(text) };
  bodies['/identity'] = { encoding: 'identity', bytes: text };
  site = await startSite((request, response) => {
    const body = bodies[request.url ?? ''];
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': body.encoding, 'Content-Length': body.bytes.length });
    response.end(body.bytes);
  });
  const http = (section: Record<string, unknown>) => ({ prober: 'http', timeout: '20s', http: { preferred_ip_protocol: 'ip4', ...section } });
  const modules = {
    cel: http({ compression: 'gzip', fail_if_body_json_not_matches_cel: 'body.size() > 0' }),
    regexp: http({ compression: 'gzip', fail_if_body_not_matches_regexp: ['b'] }),
    unchecked: http({ compression: 'gzip' }),
    ...Object.fromEntries(['gzip', 'deflate', 'br', 'identity'].map((compression) => [`limited_${compression}`, http({ compression, body_size_limit: '1MiB' })])),
  };
  // As the image runs it: the container's 256 MB, in the heap limit the exporter died at.
  exporter = await startExporter('ours', stringify({ modules }), { command: [process.execPath, '--max-old-space-size=256', ...FROM_SOURCE, OUR_EXPORTER_MAIN] });
}, 60_000);

afterAll(async () => {
  await exporter?.stop();
  site?.close();
});

const probeWhileHealthy = (module: string, path: string) => probeWhileHealthyAt(exporter, module, site.url(path));

/**
 * The resident memory, in MiB, the exporter may report after a bomb: a size, not a time. Its heap is capped at
 * 256 MiB here (the container's limit); before the cap on checked bodies the regexp case kept 2.1 GiB resident.
 */
const MOST_RESIDENT_MIB = 400;

async function residentMiB(): Promise<number> {
  const samples = parseMetrics(await (await fetch(`${exporter.baseUrl}/metrics`)).text());
  return metricValue(samples, 'process_resident_memory_bytes')! / MiB;
}

describe('a compressed body that expands past what the probe may keep', () => {
  it.each([
    ['a CEL check, 90 KB of gzip expanding to 64 MiB of JSON', 'cel', '/json-bomb'],
    ['a body regexp, 1 MB of gzip expanding to 1 GiB', 'regexp', '/text-bomb'],
  ])(
    '%s: the probe fails at the cap, the exporter stays up and small',
    async (_name, module, path) => {
      const { text, samples, health } = await probeWhileHealthy(module, path);
      expect(metricValue(samples, 'probe_success')).toBe(0);
      expect(samples.find((sample) => sample.name === 'probe_failure_reason')?.labels.reason).toBe('HTTP response not accepted');
      expect(metricValue(samples, 'probe_http_uncompressed_body_length')).toBe(CHECKED_BODY_LIMIT);
      expect(text).toContain(`the body is longer than ${CHECKED_BODY_LIMIT} bytes, the most a body checked by regexps or CEL may have when body_size_limit is not set`);
      expect(health.length).toBeGreaterThan(0);
      expect(health.every((status) => status === 200)).toBe(true);
      // Before the cap: the CEL case ran the process out of heap (killed); the regexp case held 2.1 GiB of RSS.
      expect(await residentMiB()).toBeLessThan(MOST_RESIDENT_MIB);
    },
    60_000,
  );

  it('a body no check reads is counted whole and not kept: 256 MiB passes, the process stays small', async () => {
    const { samples } = await probeWhileHealthy('unchecked', '/smaller-bomb');
    expect(metricValue(samples, 'probe_success')).toBe(1);
    expect(metricValue(samples, 'probe_http_uncompressed_body_length')).toBe(256 * MiB);
    expect(await residentMiB()).toBeLessThan(MOST_RESIDENT_MIB);
  }, 60_000);
});

describe('a compressed body past body_size_limit', () => {
  it.each(['gzip', 'deflate', 'br', 'identity'])('%s: the same reason and sizes as a body sent as it is', async (compression) => {
    const { text, samples } = await probeWhileHealthy(`limited_${compression}`, `/${compression}`);
    expect(metricValue(samples, 'probe_success')).toBe(0);
    expect(samples.find((sample) => sample.name === 'probe_failure_reason')?.labels.reason).toBe('HTTP response not accepted');
    expect(text).toContain('the body is longer than body_size_limit (1048576 bytes)');
    expect(metricValue(samples, 'probe_http_uncompressed_body_length')).toBe(MiB);
    expect(metricValue(samples, 'probe_http_content_length')).toBe(bodies[`/${compression}`].bytes.length);
  });

  it('left the exporter running', async () => {
    expect((await fetch(`${exporter.baseUrl}/-/healthy`)).ok).toBe(true);
    expect(exporter.log()).not.toMatch(/heap out of memory/);
  });
});
