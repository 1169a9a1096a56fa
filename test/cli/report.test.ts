import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli';

/** Mistakes refused before anything is asked of Prometheus (no server runs: an attempt would fail otherwise). */
describe('probekit report refuses a mistaken command line before querying', () => {
  const prometheus = ['--prometheus', 'http://prometheus.invalid:9090'];

  it.each([
    [['--window', '30x'], '--window 30x: give whole seconds or more as a Prometheus duration such as 30d, 7d or 24h'],
    [['--window', '500ms'], '--window 500ms: give whole seconds or more as a Prometheus duration such as 30d, 7d or 24h'],
    [['--window', '1d', '--from', '2026-11-01T00:00:00Z'], '--window and --from exclude each other: give one of them'],
    [['--from', '2026-11-02T00:00:00Z', '--to', '2026-11-01T00:00:00Z'], '--from 2026-11-02T00:00:00Z: is not before --to (2026-11-01T00:00:00.000Z); give a start before the end'],
    [['--timeout', '1.5s'], '--timeout 1.5s: give whole seconds as a Prometheus duration such as 2m or 300s'],
    [['--to', 'yesterday'], '--to yesterday: give a time as RFC 3339 (2026-11-01T00:00:00Z) or Unix seconds'],
    [['--format', 'pdf'], '--format pdf: give one of html, json, markdown, svg-badge'],
    [['--out', 'report.txt'], '--out report.txt: its extension says no format; give --format (html, json, markdown, svg-badge) or name the file .html, .json, .md or .svg'],
    [['--out', 'badge.svg'], '--format svg-badge draws one job: give --job NAME once (run once per job for more badges)'],
    [['--header', 'Authorization Bearer hunter2'], "--header Authorization Bearer hunter2...: write it as 'Name: value' (a header name, a colon, its value)"],
    [['--header', 'Authorization:'], "--header Authorization...: write it as 'Name: value' (a header name, a colon, its value)"],
  ])('%j', async (args, message) => {
    expect(await runCli(['report', ...prometheus, ...args])).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n` });
  });

  it('requires --prometheus', async () => {
    expect((await runCli(['report'])).stderr).toBe("error: --prometheus is required: the base URL of the Prometheus that scrapes probekit's jobs (http://prometheus:9090)\n");
  });

  it('takes the bearer token from its file alone, never beside an Authorization header, and names the file it cannot read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-report-cli-'));
    writeFileSync(join(dir, 'token'), 'hunter2\n');
    const both = await runCli(['report', ...prometheus, '--bearer-token-file', join(dir, 'token'), '--header', 'authorization: Basic eA==']);
    expect(both).toEqual({ code: 2, stdout: '', stderr: "error: --bearer-token-file and --header 'Authorization: ...' exclude each other: give one of them\n" });
    const missing = await runCli(['report', ...prometheus, '--bearer-token-file', join(dir, 'nothing')]);
    expect(missing.stderr).toBe(`error: --bearer-token-file: cannot read ${join(dir, 'nothing')} (ENOENT); give a file holding the bearer token\n`);
  });

  it("names the spec's jobs when --job names none of them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probekit-report-cli-'));
    writeFileSync(join(dir, 'spec.yaml'), 'modules:\n  http_2xx: { preset: http_2xx }\njobs:\n  - { name: storefront, module: http_2xx, targets: ["https://shop.example.com"] }\n');
    const result = await runCli(['report', ...prometheus, '--spec', join(dir, 'spec.yaml'), '--job', 'storefrnt']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: --job storefrnt: the spec has no such job; did you mean "storefront"? its jobs are storefront\n' });
  });

  it('lists its flags and their defaults in --help', async () => {
    const { code, stdout } = await runCli(['report', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      "usage: probekit report --prometheus URL [--spec FILE] [--job NAME]... [--window D | --from T] [--to T] [--format FORMAT] [--out FILE] [--title TEXT] [--header 'NAME: VALUE']... [--bearer-token-file FILE] [--timeout D]",
    );
  });
});
