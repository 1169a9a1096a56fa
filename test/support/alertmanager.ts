/**
 * Debian's Alertmanager, started by a test on a free loopback port with a config of the test's, alone (no cluster
 * peers), its storage in a temporary folder; and a webhook receiver that keeps what Alertmanager posts to it.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../exporter/loopback/reference-exporter';
import { startReady } from './prometheus';

export const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';

export interface RunningAlertmanager {
  /** host:port, as a Prometheus's `alerting.alertmanagers` names it. */
  readonly address: string;
  log(): string;
  stop(): Promise<void>;
}

export async function startAlertmanager(configYaml: string): Promise<RunningAlertmanager> {
  const dir = mkdtempSync(join(tmpdir(), 'probekit-alertmanager-'));
  writeFileSync(join(dir, 'alertmanager.yml'), configYaml);
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const { log, stop } = await startReady(
    'alertmanager',
    ALERTMANAGER,
    [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=${address}`, '--cluster.listen-address='],
    `http://${address}`,
    dir,
  );
  return { address, log, stop };
}

/** What Alertmanager's webhook integration posts: a group's status and its alerts. */
export interface WebhookMessage {
  readonly receiver: string;
  readonly status: 'firing' | 'resolved';
  readonly alerts: ReadonlyArray<{ readonly status: 'firing' | 'resolved'; readonly labels: Record<string, string> }>;
}

export interface WebhookReceiver {
  /** The URL of `path` on this receiver. */
  url(path: string): string;
  /** Every message posted so far, with the path it was posted to. */
  readonly received: ReadonlyArray<{ readonly path: string; readonly message: WebhookMessage }>;
  stop(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Array<{ path: string; message: WebhookMessage }> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', message: JSON.parse(body) as WebhookMessage });
      response.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
