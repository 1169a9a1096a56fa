/**
 * What the reference blackbox_exporter (Debian's 0.23.0) makes of the config files of ../support/upstream-configs.ts,
 * and of regular expressions: the facts the loader tests hold ours to are upstream's own.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithBinaries } from '../../../test/support/integration';
import { metricValue } from '../../loopback/metrics-text';
import { REFERENCE_EXPORTER, startPair } from '../../loopback/reference-exporter';
import { compileGoRegexp } from '../../src/config/regexp';
import { UPSTREAM_CONFIGS } from '../support/upstream-configs';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'probekit-reference-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `--config.check` of the reference on `text`: 'loads' or 'refuses'. */
function referenceCheck(name: string, text: string | Buffer): Promise<string> {
  const file = join(dir, `${name.replace(/\W+/g, '-')}.yml`);
  writeFileSync(file, text);
  return new Promise((resolve) => execFile(REFERENCE_EXPORTER, [`--config.file=${file}`, '--config.check'], (error) => resolve(error ? 'refuses' : 'loads')));
}

describeWithBinaries([REFERENCE_EXPORTER])('the reference exporter on config files people write', () => {
  it('loads and refuses them as the loader tests say upstream does', async () => {
    const outcomes = await Promise.all(UPSTREAM_CONFIGS.map(async (config) => [config.name, await referenceCheck(config.name, config.text)]));
    expect(Object.fromEntries(outcomes)).toEqual(Object.fromEntries(UPSTREAM_CONFIGS.map((config) => [config.name, config.upstream])));
  }, 60_000);
});

/** Patterns and texts where a regexp engine other than RE2 would answer differently. */
const MATCHES: ReadonlyArray<readonly [pattern: string, text: string]> = [
  ['\\Q(ok)\\E', '(ok)'],
  ['\\Q(ok)\\E', 'ok'],
  ['^\\pL+$', 'Ærø'],
  ['^\\pL+$', 'e1'],
  ['[[:^alpha:]]', 'abc'],
  ['[[:^alpha:]]', 'ab1'],
  ['^(?U)a+$', 'aaa'],
  ['(?i)straße', 'STRASSE'],
  ['(?i)k', '\u212a'],
  ['(?i)σ', 'ς'],
  ['a.c', 'a\nc'],
  ['(?s)a.c', 'a\nc'],
  ['^b', 'a\nb'],
  ['(?m)^b', 'a\nb'],
  ['a$', 'a\n'],
  ['\\d', '٣'],
  ['\\w', 'é'],
  ['\\bé', ' é'],
  ['\\p{Greek}', 'λ'],
  ['[^a]', '\n'],
  ['^a{,2}$', 'a{,2}'],
  ['^(a|ab)(c|bcd)(d*)$', 'abcd'],
  ['a(?i)b', 'aB'],
  ['\\x{263a}', '☺'],
];

describeWithBinaries([REFERENCE_EXPORTER])('the reference exporter on regular expressions', () => {
  it('matches bodies as ours does', async () => {
    const server = createServer((request, response) => response.end(MATCHES[Number(request.url?.slice(1))][1])).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const modules = MATCHES.map(
      ([pattern], index) => `  m${index}:\n    prober: http\n    http:\n      preferred_ip_protocol: ip4\n      fail_if_body_not_matches_regexp: [${JSON.stringify(pattern)}]\n`,
    );
    const pair = await startPair(`modules:\n${modules.join('')}`);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const results = await Promise.all(
        MATCHES.map(async ([pattern, text], index) => {
          const { reference, ours } = await pair.probeBoth({ module: `m${index}`, target: `${base}/${index}` });
          return { pattern, text, reference: metricValue(reference.samples, 'probe_success'), ours: metricValue(ours.samples, 'probe_success') };
        }),
      );
      expect(results.filter((result) => result.reference !== result.ours)).toEqual([]);
    } finally {
      await pair.stop();
      server.close();
    }
  }, 60_000);

  it('refuses what ours refuses, and accepts what ours accepts', async () => {
    // (?<name>...) is left out: Go 1.22 accepts it (so upstream 0.28 and ours do); Debian's 0.23 is built with an older Go.
    const patterns = ['a(?=b)', '(?<=a)b', '(a)\\1', 'a{1001}', 'a{1000}', 'a++', '\\C', '\\Z', '(?U)a+', '[[:^alpha:]]', '\\pL', '(?P<x>a)(?P<x>b)', '[z-a]', 'x{2}{3}', '(?i)(?s:.)'];
    const outcomes = await Promise.all(
      patterns.map(async (pattern, index) => {
        const reference = await referenceCheck(`pattern-${index}`, `modules:\n  m:\n    prober: http\n    http:\n      fail_if_body_matches_regexp: [${JSON.stringify(pattern)}]\n`);
        let ours = 'loads';
        try {
          compileGoRegexp(pattern);
        } catch {
          ours = 'refuses';
        }
        return { pattern, reference, ours };
      }),
    );
    expect(outcomes.filter((outcome) => outcome.reference !== outcome.ours)).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.ours === 'refuses').map((outcome) => outcome.pattern)).toEqual(['a(?=b)', '(?<=a)b', '(a)\\1', 'a{1001}', 'a++', '\\C', '\\Z', '[z-a]', 'x{2}{3}']);
  }, 60_000);
});
