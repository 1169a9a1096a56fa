/**
 * `probekit test` against real servers on loopback (HTTP, HTTPS with a certificate from another CA, a closed port,
 * a stalled server, a DNS server, a gRPC health server): each failure class with its reason, the details of each
 * prober, the three outputs (the JUnit one read by an XML parser), the exit codes, bounded concurrency, Ctrl-C,
 * and the command's own handles closed at the end, in-process and as a program that must exit by itself.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { FAILURE_REASONS } from '@probekit/exporter';
import type { CliIo } from '../../src/cli/command';
import { main } from '../../src/cli/main';
import { ZONE, type DnsTestServer } from '../../exporter/loopback/dns-test-server';
import { PRIVATE_TOKEN, startFailureTargets, type FailureTargets } from '../../exporter/loopback/failure-targets';
import { FROM_SOURCE } from '../../exporter/loopback/from-source';
import type { GrpcHealthServer } from '../../exporter/loopback/grpc-health-server';
import { runCli } from '../support/cli';
import { handlesLeftAfter, openHandles } from '../support/open-handles';
import { tempDirPerTest } from '../support/temp-dir';

const ROOT = join(__dirname, '..', '..');
const tempDir = tempDirPerTest('probekit-test-');

let targets: FailureTargets;
let webUrl: string;
let untrustedUrl: string;
let closedPort: number;
let dns: DnsTestServer;
let grpc: GrpcHealthServer;

beforeAll(async () => {
  targets = await startFailureTargets();
  ({ webUrl, untrustedUrl, closedPort, dns, grpc } = targets);
});

afterAll(() => targets.close());

/** A spec with a job per prober; `failing` adds a job whose every target fails, one per failure class. */
function specYaml(): string {
  // Timeouts that hold on a loaded 2-core machine, where a loopback probe once took 2.4 s to connect: 10 s for the
  // targets meant to answer, 4 s for the stalled one, which must time out waiting for the response.
  return `modules:
  web:
    prober: http
    timeout: 10s
    http: { preferred_ip_protocol: ip4 }
  web_quick:
    prober: http
    timeout: 4s
    http: { preferred_ip_protocol: ip4 }
  web_private:
    prober: http
    timeout: 10s
    http:
      preferred_ip_protocol: ip4
      headers:
        Authorization: { fromEnv: PRIVATE_TOKEN, prefix: "Bearer " }
  dns_www:
    prober: dns
    timeout: 10s
    dns: { query_name: www.${ZONE}, query_type: A, preferred_ip_protocol: ip4 }
  dns_nothing:
    prober: dns
    timeout: 10s
    dns: { query_name: nothing.${ZONE}, preferred_ip_protocol: ip4 }
  grpc_up:
    prober: grpc
    timeout: 10s
    grpc: { preferred_ip_protocol: ip4 }
  grpc_down:
    prober: grpc
    timeout: 10s
    grpc: { service: down, preferred_ip_protocol: ip4 }
jobs:
  - name: websites
    module: web
    targets: [${webUrl}/, ${webUrl}/missing, http://127.0.0.1:${closedPort}/, ${untrustedUrl}/]
  - name: stalled
    module: web_quick
    targets: [${webUrl}/stall]
  - name: private
    module: web_private
    targets: [${webUrl}/private]
  - name: dns
    module: dns_www
    targets: ["127.0.0.1:${dns.port}"]
  - name: dns-missing
    module: dns_nothing
    targets: ["127.0.0.1:${dns.port}"]
  - name: grpc
    module: grpc_up
    targets: ["127.0.0.1:${grpc.port}"]
  - name: grpc-down
    module: grpc_down
    targets: ["127.0.0.1:${grpc.port}"]
  - name: slow
    module: web
    targets: [${Array.from({ length: 6 }, (_, index) => `"${webUrl}/slow?${index}"`).join(', ')}]
`;
}

function writeSpec(text = specYaml()): string {
  const file = join(tempDir(), 'spec.yaml');
  writeFileSync(file, text);
  return file;
}

const ENV = { PRIVATE_TOKEN };

interface JsonReport {
  readonly summary: { total: number; succeeded: number; failed: number; skipped: number };
  readonly results: Array<{ job: string; target: string; success: boolean; skipped: boolean; failure?: { reason: string; phase?: string }; details: Record<string, unknown> }>;
}

describe('probekit test', () => {
  it('probes every target and says why each failure failed, in the table', async () => {
    const before = openHandles();
    const result = await runCli(
      ['test', '--spec', writeSpec(), '--job', 'websites', '--job', 'stalled', '--job', 'private', '--job', 'dns', '--job', 'dns-missing', '--job', 'grpc', '--job', 'grpc-down'],
      ENV,
    );
    expect(result.code).toBe(1);
    const rows = result.stdout.split('\n');
    const row = (job: string, target: string): string => rows.find((line) => line.startsWith(`${job} `) && line.includes(` ${target} `)) ?? `no row for ${job} ${target}`;
    expect(rows[0]).toMatch(/^JOB\s+TARGET\s+MODULE\s+RESULT\s+DURATION\s+DETAILS\s+REASON$/);
    expect(row('websites', `${webUrl}/`)).toMatch(/ ok .*HTTP 200 HTTP\/1\.1/);
    expect(row('websites', `${webUrl}/missing`)).toMatch(/ FAIL .*HTTP 404 HTTP\/1\.1\s+HTTP status not accepted$/);
    expect(row('websites', `http://127.0.0.1:${closedPort}/`)).toMatch(/ FAIL .*connection refused$/);
    expect(row('websites', `${untrustedUrl}/`)).toMatch(/ FAIL .*certificate not valid$/);
    expect(row('stalled', `${webUrl}/stall`)).toMatch(/ FAIL .*timed out \(response\)$/);
    expect(row('private', `${webUrl}/private`)).toMatch(/ ok .*HTTP 200/);
    expect(row('dns', `127.0.0.1:${dns.port}`)).toMatch(/ ok .*NOERROR, 2 answers/);
    expect(row('dns-missing', `127.0.0.1:${dns.port}`)).toMatch(/ FAIL .*NXDOMAIN, 0 answers\s+DNS rcode not accepted$/);
    expect(row('grpc', `127.0.0.1:${grpc.port}`)).toMatch(/ ok .*SERVING/);
    expect(row('grpc-down', `127.0.0.1:${grpc.port}`)).toMatch(/ FAIL .*NOT_SERVING\s+gRPC not serving$/);
    expect(result.stdout).toMatch(/\n10 targets: 4 ok, 6 failed in \d+(\.\d+)? m?s\n$/);
    // Not a terminal: one progress line per finished target, on stderr.
    expect(result.stderr.split('\n').filter((line) => /^\[\d+\/10\] (ok|FAIL) /.test(line))).toHaveLength(10);
    expect(await handlesLeftAfter(before)).toEqual([]);
  });

  it('exits 0 when every probe of the jobs and targets chosen succeeds', async () => {
    const result = await runCli(['test', '--spec', writeSpec(), '--job', 'websites', '--target', `${webUrl}/`], ENV);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n1 target: 1 ok, 0 failed in /);
    expect(result.stdout.split('\n').filter((line) => / ms /.test(line))).toEqual([expect.stringMatching(/^websites +http:\/\/127\.0\.0\.1:\d+\/ +web +ok +\d+(\.\d+)? ms +HTTP 200 HTTP\/1\.1$/)]);
  });

  it('says when a chosen job is inside a maintenance window now, on stderr, and probes it as any other', async () => {
    const always = `maintenance:\n  - name: always\n    jobs: [websites]\n    weekly: { days: [monday, tuesday, wednesday, thursday, friday, saturday, sunday], from: "00:00", to: "24:00" }\n`;
    const result = await runCli(['test', '--spec', writeSpec(`${specYaml()}${always}`), '--job', 'websites', '--target', `${webUrl}/`], ENV);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'note: job websites is inside maintenance window always (every monday, tuesday, wednesday, thursday, friday, saturday, sunday, 00:00 to 24:00 UTC): its alerts fire in Prometheus, and Alertmanager delivers none of them until the window ends\n',
    );
    const outside = await runCli(['test', '--spec', writeSpec(`${specYaml()}${always}`), '--job', 'dns'], ENV);
    expect(outside.stderr).not.toContain('maintenance window');
  });

  it('reads the spec from PROBEKIT_SPEC when --spec is not given', async () => {
    const result = await runCli(['test', '--job', 'dns'], { PROBEKIT_SPEC: writeSpec() });
    expect(result.code).toBe(0);
  });

  it('writes JSON for scripts, with the failure and the details of each target', async () => {
    const result = await runCli(['test', '--spec', writeSpec(), '--job', 'websites', '--job', 'stalled', '--output', 'json'], ENV);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.summary).toMatchObject({ total: 5, succeeded: 1, failed: 4, skipped: 0 });
    expect(report.results.map((entry) => entry.failure?.reason ?? 'ok')).toEqual(['ok', 'HTTP status not accepted', 'connection refused', 'certificate not valid', 'timed out']);
    expect(report.results[4]!.failure).toEqual({ reason: 'timed out', phase: 'response' });
    expect(report.results[0]!.details).toEqual({ httpStatus: 200, httpVersion: 'HTTP/1.1' });
    for (const entry of report.results) if (entry.failure) expect(FAILURE_REASONS).toContain(entry.failure.reason);
  });

  it('writes JUnit XML that an XML parser reads: a suite per job, a case per target, a failure with its reason', async () => {
    const result = await runCli(['test', '--spec', writeSpec(), '--job', 'websites', '--job', 'grpc-down', '--output', 'junit'], ENV);
    expect(result.code).toBe(1);
    const problems: string[] = [];
    const document = new DOMParser({ onError: (level, message) => problems.push(`${level}: ${message}`) }).parseFromString(result.stdout, 'text/xml');
    expect(problems).toEqual([]);
    const root = document.documentElement!;
    expect(root.tagName).toBe('testsuites');
    expect([root.getAttribute('tests'), root.getAttribute('failures'), root.getAttribute('skipped')]).toEqual(['5', '4', '0']);
    const suites = Array.from(root.getElementsByTagName('testsuite')) as Element[];
    expect(suites.map((suite) => [suite.getAttribute('name'), suite.getAttribute('tests'), suite.getAttribute('failures')])).toEqual([
      ['websites', '4', '3'],
      ['grpc-down', '1', '1'],
    ]);
    const cases = Array.from(root.getElementsByTagName('testcase')) as Element[];
    expect(cases.map((testCase) => testCase.getAttribute('name'))).toEqual([`${webUrl}/`, `${webUrl}/missing`, `http://127.0.0.1:${closedPort}/`, `${untrustedUrl}/`, `127.0.0.1:${grpc.port}`]);
    const failures = cases.map((testCase) => (testCase.getElementsByTagName('failure')[0] as Element | undefined)?.getAttribute('type') ?? 'passed');
    expect(failures).toEqual(['passed', 'HTTP status not accepted', 'connection refused', 'certificate not valid', 'gRPC not serving']);
    for (const testCase of cases) expect(Number(testCase.getAttribute('time'))).toBeGreaterThanOrEqual(0);
  });

  it('runs at most --concurrency probes at once', async () => {
    targets.resetSlowCount();
    const result = await runCli(['test', '--spec', writeSpec(), '--job', 'slow', '--concurrency', '2'], ENV);
    expect(result.code).toBe(0);
    expect(targets.mostSlowAtOnce()).toBe(2);
    targets.resetSlowCount();
    await runCli(['test', '--spec', writeSpec(), '--job', 'slow'], ENV);
    expect(targets.mostSlowAtOnce()).toBe(6);
  });

  it('draws a bar on a terminal instead of a line per target', async () => {
    let stderr = '';
    const io: CliIo = { stdout: () => undefined, stderr: (text) => (stderr += text), stderrIsTerminal: true, env: ENV, readFile: () => '', cwd: ROOT };
    expect(await main(['test', '--spec', writeSpec(), '--job', 'dns', '--job', 'grpc'], io)).toBe(0);
    expect(stderr).toBe(`\r[${'-'.repeat(30)}] 0/2\r[${'#'.repeat(15)}${'-'.repeat(15)}] 1/2\r[${'#'.repeat(30)}] 2/2\n`);
  });

  it('stops on request: the probe in flight is interrupted, the rest not run, exit 130', async () => {
    const before = openHandles();
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const spec = writeSpec(specYaml().replace('timeout: 4s', 'timeout: 30s'));
    const running = runCli(['test', '--spec', spec, '--job', 'stalled', '--job', 'dns', '--concurrency', '1'], ENV, stopped);
    setTimeout(stop, 300);
    const result = await running;
    // The probe's deadline is 30 s away: what ended it is the request to stop, as its reason says.
    expect(result.code).toBe(130);
    expect(result.stdout).toMatch(/stalled .* FAIL .*probe interrupted\n/);
    expect(result.stdout).toMatch(/dns .* skipped .*not run: stopped\n/);
    expect(result.stderr).toMatch(/stopped: the probes in flight were interrupted and the rest not run/);
    expect(await handlesLeftAfter(before)).toEqual([]);
  });

  describe('refuses, with exit code 2 and the fix,', () => {
    const refusals: Array<{ what: string; args: (spec: string) => string[]; env?: Record<string, string>; message: RegExp }> = [
      { what: 'no spec', args: () => ['test', '--job', 'dns'], message: /--spec is required \(or the PROBEKIT_SPEC environment variable\)/ },
      { what: 'a spec file that is not there', args: () => ['test', '--spec', 'nowhere.yaml'], message: /--spec nowhere\.yaml: cannot read .*no such file/ },
      { what: 'a job the spec does not have', args: (spec) => ['test', '--spec', spec, '--job', 'websits'], message: /--job websits: the spec has no such job; did you mean "websites"\?/ },
      { what: 'a target of no job', args: (spec) => ['test', '--spec', spec, '--target', 'https://elsewhere.example/'], message: /--target https:\/\/elsewhere\.example\/: not a target of any job/ },
      { what: 'an output it does not write', args: (spec) => ['test', '--spec', spec, '--output', 'xml'], message: /--output xml: give one of table, json, junit/ },
      { what: 'a concurrency of 0', args: (spec) => ['test', '--spec', spec, '--concurrency', '0'], message: /--concurrency 0: give a whole number of 1 or more/ },
      { what: 'a timeout that is not a duration', args: (spec) => ['test', '--spec', spec, '--timeout', 'soon'], message: /--timeout soon: give a Prometheus duration/ },
      { what: 'an unknown flag', args: (spec) => ['test', '--spec', spec, '--jobs', 'dns'], message: /--jobs: unknown flag; did you mean --job\?/ },
      {
        what: 'a secret header whose variable is not set',
        args: (spec) => ['test', '--spec', spec, '--job', 'private'],
        env: {},
        message: /^error: [^:]+\.yaml:16: modules\.web_private\.http\.headers\.Authorization\.fromEnv: environment variable PRIVATE_TOKEN is not set; export it before probekit test/,
      },
    ];
    it.each(refusals)('$what', async ({ args, env, message }) => {
      const result = await runCli(args(writeSpec()), env ?? ENV, undefined, tempDir());
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(message);
    });

    it('a spec with problems, naming the field', async () => {
      const result = await runCli(['test', '--spec', writeSpec('jobs:\n  - module: nowhere\n    targets: [https://example.com/]\n')], {});
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/jobs\[0\]\.module/);
    });

    it.each([
      ['an existing Secret', '{ existingSecret: { name: tokens, key: web } }', 'existingSecret names a Secret in the cluster'],
      ['an ExternalSecret', '{ externalSecret: { name: tokens, store: vault, key: web } }', 'externalSecret names a value in a secret store'],
    ])('%s, which it cannot read from here', async (_form, reference, message) => {
      const headers = 'headers:\n        Authorization: { fromEnv: PRIVATE_TOKEN, prefix: "Bearer " }';
      const spec = writeSpec(specYaml().replace(headers, `authorization: { type: Bearer, credentials: ${reference} }`));
      const result = await runCli(['test', '--spec', spec, '--job', 'private'], {});
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`modules.web_private.http.authorization.credentials: ${message}, which probekit test cannot read from here`);
    });
  });

  it('sends the secret header read from the environment, as synth reads it', async () => {
    const result = await runCli(['test', '--spec', writeSpec(), '--job', 'private'], { PRIVATE_TOKEN: 'wrong' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/HTTP 401 .*HTTP status not accepted/);
    expect(result.stdout + result.stderr).not.toContain('wrong');
  });
});

describe('probekit test, as a program', () => {
  /** Runs the command from source in a child process; resolves with its exit code and output once it exits by itself. */
  function program(args: readonly string[], env: Record<string, string>, onStderr?: (text: string, child: ReturnType<typeof spawn>) => void) {
    const child = spawn(process.execPath, [...FROM_SOURCE, 'src/cli/main.ts', 'test', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr, child);
    });
    // No kill here: a process that keeps a handle open would not exit, and the test's timeout says so.
    return once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null, stdout, stderr }));
  }

  it('exits by itself once the report is written: nothing of its own stays open', async () => {
    const result = await program(['--spec', writeSpec(), '--job', 'websites', '--job', 'dns', '--job', 'grpc'], ENV);
    expect(result).toMatchObject({ code: 1, signal: null });
    expect(result.stdout).toMatch(/\n6 targets: 3 ok, 3 failed in /);
  });

  it('stops cleanly on Ctrl-C (SIGINT): the report of what ran, exit 130', async () => {
    const spec = writeSpec(specYaml().replace('timeout: 4s', 'timeout: 30s'));
    let sent = false;
    const result = await program(['--spec', spec, '--job', 'dns', '--job', 'stalled', '--job', 'grpc', '--concurrency', '1'], ENV, (stderr, child) => {
      if (!sent && stderr.includes('[1/3]')) {
        sent = true;
        setTimeout(() => child.kill('SIGINT'), 200);
      }
    });
    expect(result).toMatchObject({ code: 130, signal: null });
    expect(result.stdout).toMatch(/dns .* ok /);
    expect(result.stdout).toMatch(/stalled .* FAIL .*probe interrupted/);
    expect(result.stdout).toMatch(/grpc .* skipped /);
  });
});
