/** Probes through a running exporter while /-/healthy is asked every 100 ms, and the loopback site they probe. */
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProbeResult, RunningExporter } from '../../loopback/reference-exporter';

export interface ProbedWhileHealthy extends ProbeResult {
  /** /-/healthy's status at each poll during the probe (0: no answer within 10 s). */
  readonly health: readonly number[];
}

/** Probes `target` with `module` (with debug=true, so that the text holds the probe's log) and polls /-/healthy until it answers. */
export async function probeWhileHealthy(exporter: RunningExporter, module: string, target: string): Promise<ProbedWhileHealthy> {
  let probing = true;
  const health: number[] = [];
  const poller = (async () => {
    while (probing) {
      health.push((await fetch(`${exporter.baseUrl}/-/healthy`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined))?.status ?? 0);
      await new Promise((done) => setTimeout(done, 100));
    }
  })();
  const result = await exporter.probe({ module, target, params: { debug: 'true' } });
  probing = false;
  await poller;
  return { ...result, health };
}

/** A loopback HTTP server for the probes to reach, and how to name its paths. */
export interface TargetSite {
  url(path: string): string;
  close(): void;
}

export async function startSite(handler: RequestListener): Promise<TargetSite> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, close: () => server.close() };
}
