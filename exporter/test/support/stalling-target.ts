/** A loopback HTTP target that answers `ok`, except on /stall, where it never answers: for deadlines and probes in flight. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StallingTarget {
  readonly server: Server;
  /** `http://127.0.0.1:PORT`, without a path. */
  readonly url: string;
  close(): void;
}

export async function startStallingTarget(): Promise<StallingTarget> {
  const server = createServer((request, response) => {
    if (request.url === '/stall') return;
    response.end('ok');
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
