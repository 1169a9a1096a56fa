/**
 * The parts of npm run bench that measure staying responsive rather than throughput, ours against the
 * reference: loading a large config (44,000 modules) by --config.check and by a reload of a running exporter,
 * with the longest a /-/healthy took meanwhile; and probes whose regexps backtracking engines take seconds
 * over (`.*error.*` on a 100 KB body and on a 100 KB line of a tcp dialogue).
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { largeConfigYaml } from '../loopback/large-config';
import { REFERENCE_EXPORTER, startExporter, type RunningExporter, type StartOptions } from '../loopback/reference-exporter';

export const ROBUSTNESS_SCENARIOS = ['config_load', 'regexp'] as const;

const LARGE_MODULES = 44_000;

interface Exporters {
  readonly ours: StartOptions;
  /** How to run ours as a command: the bundle, or node with tsx on the sources. */
  readonly ourCommand: readonly string[];
}

/** Polls /-/healthy every 50 ms until `done`; the longest answer took, in ms (a 30 s wait counts as 30 s). */
async function slowestHealth(exporter: RunningExporter, done: () => boolean): Promise<number> {
  let slowest = 0;
  while (!done()) {
    const started = performance.now();
    await fetch(`${exporter.baseUrl}/-/healthy`, { signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return slowest;
}

function timed(command: readonly string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => execFile(command[0], command.slice(1), { maxBuffer: 1 << 26 }, (error) => (error ? reject(error) : resolve((performance.now() - started) / 1000))));
}

function row(label: string, metric: string, reference: number, ours: number, digits: number): void {
  console.log(`${label.padEnd(18)} ${metric.padEnd(16)} ${reference.toFixed(digits).padStart(9)} ${ours.toFixed(digits).padStart(9)} ${(ours / reference).toFixed(2).padStart(9)}`);
}

async function configLoad({ ours, ourCommand }: Exporters): Promise<void> {
  const large = largeConfigYaml(LARGE_MODULES);
  const results: Record<string, { check: number; reload: number; health: number }> = {};
  for (const name of ['reference', 'ours'] as const) {
    const exporter = await startExporter(name, 'modules:\n  start:\n    prober: http\n', name === 'ours' ? ours : {});
    try {
      writeFileSync(exporter.configFile, large);
      const check = await timed([...(name === 'ours' ? ourCommand : [REFERENCE_EXPORTER]), `--config.file=${exporter.configFile}`, '--config.check']);
      let finished = false;
      const started = performance.now();
      const reload = fetch(`${exporter.baseUrl}/-/reload`, { method: 'POST' }).finally(() => {
        finished = true;
      });
      const health = await slowestHealth(exporter, () => finished);
      if (!(await reload).ok) throw new Error(`${name} refused the large config`);
      results[name] = { check, reload: (performance.now() - started) / 1000, health };
    } finally {
      await exporter.stop();
    }
  }
  const label = `config ${LARGE_MODULES / 1000}k modules`;
  row(label, 'check s', results.reference.check, results.ours.check, 1);
  row(label, 'reload s', results.reference.reload, results.ours.reload, 1);
  row(label, 'max healthy ms', results.reference.health, results.ours.health, 0);
}

async function pathologicalRegexps({ ours }: Exporters): Promise<void> {
  const line = 'x'.repeat(100_000);
  const web = createHttpServer((_request, response) => response.end(line)).listen(0, '127.0.0.1');
  const tcp = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(`${line}\n`);
  }).listen(0, '127.0.0.1');
  await Promise.all([once(web, 'listening'), once(tcp, 'listening')]);
  const config = `modules:
  body:
    prober: http
    timeout: 10s
    http: { preferred_ip_protocol: ip4, fail_if_body_matches_regexp: ['.*error.*'] }
  line:
    prober: tcp
    timeout: 10s
    tcp: { preferred_ip_protocol: ip4, query_response: [{ expect: '.*error.*' }] }
`;
  const targets = { body: `http://127.0.0.1:${(web.address() as AddressInfo).port}/`, line: `127.0.0.1:${(tcp.address() as AddressInfo).port}` };
  try {
    const results: Record<string, Record<string, { ms: number; health: number }>> = {};
    for (const name of ['reference', 'ours'] as const) {
      const exporter = await startExporter(name, config, name === 'ours' ? ours : {});
      results[name] = {};
      try {
        for (const [module, target] of Object.entries(targets)) {
          let finished = false;
          const started = performance.now();
          const probe = exporter.probe({ module, target }).finally(() => {
            finished = true;
          });
          const health = await slowestHealth(exporter, () => finished);
          await probe;
          results[name][module] = { ms: performance.now() - started, health };
        }
      } finally {
        await exporter.stop();
      }
    }
    for (const module of Object.keys(targets)) {
      const label = `regexp 100 KB ${module}`;
      row(label, 'probe ms', results.reference[module].ms, results.ours[module].ms, 0);
      row(label, 'max healthy ms', results.reference[module].health, results.ours[module].health, 0);
    }
  } finally {
    web.close();
    tcp.close();
  }
}

export async function runRobustness(selected: ReadonlyArray<(typeof ROBUSTNESS_SCENARIOS)[number]>, exporters: Exporters): Promise<void> {
  if (selected.includes('regexp')) await pathologicalRegexps(exporters);
  if (selected.includes('config_load')) await configLoad(exporters);
}
